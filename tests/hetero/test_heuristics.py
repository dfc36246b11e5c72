"""Heuristics by hand: tie-breaking, HLP rounding's bound, HEFT with and without insertion."""

from __future__ import annotations

from hpcsched.core.registry import run_method
from hpcsched.hetero import Instance, bounds


def test_a_zero_time_task_stays_on_the_gpu_side():
    # a takes 0 on both types; b is 10x faster on the GPU and pays 5 when a ran on a CPU.
    # Ties sent to the CPU gave makespan 6 (a on CPU, b waits for the transfer); GPUs first give 1.
    instance = Instance.create([0, 10], [0, 1], [(0, 1, 5)], cpus=1, gpus=1)
    for method in ("heft", "heft-insertion", "minmin"):
        result = run_method(instance, method, time_limit=10)
        assert result.objective == 1, method


def test_insertion_uses_an_idle_gap():
    # a (GPU only, 4) -> b (CPU only, 3); c (CPU only, 2) comes last by rank. b waits on the CPU
    # until 4: without insertion c goes after b (ends 9), with insertion into [0, 2) (ends 7).
    instance = Instance.create([None, 3, 2], [4, None, None], [(0, 1, 0)], cpus=1, gpus=1)
    plain = run_method(instance, "heft", time_limit=10)
    inserted = run_method(instance, "heft-insertion", time_limit=10)
    assert plain.objective == 9 and inserted.objective == 7


def test_hlp_rounding_reports_the_hlp_bound():
    instance = Instance.create([4, 8, 3, 9], [2, 1, 3, 1], [(0, 1), (2, 3)], cpus=2, gpus=1)
    result = run_method(instance, "hlp-rounding", time_limit=10)
    assert result.bound == bounds.hlp(instance) <= result.objective
