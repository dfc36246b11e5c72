"""HeteroPrio: the rule by hand, spoliation counted, uniform acceleration noted, the trap family."""

from __future__ import annotations

from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.hetero import Instance, bounds, generate_heteroprio_trap
from hpcsched.hetero.simulate import heteroprio, is_uniform_acceleration


def test_an_idle_gpu_spoliates_a_slow_cpu_task():
    # t=0: the GPU takes A (most accelerated), the CPU takes B (5 on a CPU). At t=1 the GPU is idle
    # with nothing ready and would finish B at 2 < 5: it spoliates B (1 unit of CPU work lost).
    instance = Instance.create([10, 5], [1, 1], cpus=1, gpus=1)
    run = heteroprio(instance, spoliation="earliest-finish")
    assert run.spoliations == 1 and run.aborted_work == 1
    assert max(p.end for p in run.placements) == 2
    assert [p.machine_class for p in run.placements] == ["gpu", "gpu"]
    plain = heteroprio(instance, spoliation="none")
    assert plain.spoliations == 0 and max(p.end for p in plain.placements) == 5


def test_the_two_spoliation_rules_differ_in_their_choice():
    # A (10/1) goes to the GPU; C (6/1) and D (30/4) to the CPUs. At t=1 the idle GPU can finish
    # both earlier. earliest-finish takes C (ends 2), then at t=2 D (ends 6): two spoliations.
    # latest-end takes D (its CPU copy ends last, 30), ends 5; C (CPU copy ends 6, GPU would end 6
    # too) stays on its CPU: one spoliation.
    instance = Instance.create([10, 6, 30], [1, 1, 4], cpus=2, gpus=1)
    first = heteroprio(instance, spoliation="earliest-finish")
    last = heteroprio(instance, spoliation="latest-end")
    assert first.spoliations == 2 and [p.machine_class for p in first.placements] == ["gpu", "gpu", "gpu"]
    assert last.spoliations == 1 and [p.machine_class for p in last.placements] == ["gpu", "cpu", "gpu"]
    assert (first.placements[2].start, last.placements[2].start) == (2, 1)


def test_uniform_acceleration_is_noted():
    instance = Instance.create([4, 8, 12], [2, 4, 6], [(0, 1)], cpus=1, gpus=1)
    assert is_uniform_acceleration(instance)
    result = run_method(instance, "heteroprio", time_limit=10)
    assert any("uniform acceleration" in note for note in result.notes)
    assert not is_uniform_acceleration(Instance.create([4, 9], [2, 4], cpus=1, gpus=1))


def test_heteroprio_on_its_trap_is_far_from_the_optimum():
    instance = generate_heteroprio_trap(chain=20, acceleration=16, cpus=8, gpus=2)
    optimum = run_method(instance, "heft-insertion", time_limit=60)
    assert optimum.objective == bounds.best(instance) == 400  # the chain on one GPU meets the bound
    trapped = run_method(instance, "heteroprio", time_limit=60)
    assert trapped.status is Status.FEASIBLE and trapped.objective >= 1.5 * optimum.objective
