"""The compute may wait for an offload that frees the memory it needs (issue 23): `offload-greedy`, `offload-dp`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

import hpcsched
from hpcsched.checkpoint import Instance
from hpcsched.core.result import Status
from hpcsched.core.solved import SOLVED_FILE, read_solved

from .test_brute_force_offload import small_two_level_chains

INSTANCES = Path(__file__).resolve().parents[2] / "instances" / "checkpoint"
FOUND = (Status.OPTIMAL, Status.FEASIBLE)


def loss_waits_for_its_input_offload() -> Instance:
    """One stage where the loss ``B 1`` must wait for ``Off 0``.

    fw = [1], bw = [1, 1]; x = [2, 1], xbar_1 = 1; btmp_1 = 4; M = 6; a link
    of 1 byte per time unit each way, no latency: ``Off 0`` / ``Pre 0`` last 2.

    By hand: ``B 0`` holds x_0 + xbar_1 + delta_1 + delta_0 = 2 + 1 + 1 + 2 = 6
    = M, so M cannot be lower. During ``B 1`` the GPU holds xbar_1 (or x_1,
    1 byte), delta_1 (1) and btmp_1 (4): 6 = M, so x_0 (2) cannot be held
    then, yet ``B 0`` reads it: x_0 must be on the host during ``B 1``. It
    is held up to the end of its ``Off 0`` (2 units from time 0 at the
    earliest, since x_0 is ready at 0), so ``B 1`` starts at 2 or later
    (back to back after ``Fall 0`` it would start at 1: it waits); ``Pre 0``
    holds x_0 from its start, so it starts when ``B 1`` ends (3 or later)
    and ends at 5 or later; ``B 0`` runs [5, 6). Recomputing (``F 0``, then
    ``Fall 0`` again before ``B 0``) needs x_0 held during ``B 1`` too.
    Optimum 6: ``Fall 0`` [0, 1), ``Off 0`` [0, 2), ``B 1`` [2, 3), ``Pre 0``
    [3, 5), ``B 0`` [5, 6).
    """
    chain = Instance.create([1], [1, 1], [2, 1], [None, 1], 10**6, btmp=[0, 4])
    return chain.with_link(bandwidth_out=1, bandwidth_in=1).with_memory(6)


def _start_of(solution, operation: tuple[str, int]) -> int:
    return next(t for op, t in zip(solution.sequence, solution.start, strict=True) if tuple(op) == operation)


@pytest.mark.parametrize("options", [{}, {"recompute": False}])
def test_hand_made_chain_whose_only_schedule_waits_for_an_offload(options):
    instance = loss_waits_for_its_input_offload()
    exact = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    assert exact.status is Status.OPTIMAL and exact.objective == 6  # the hand-derived optimum (docstring)
    result = hpcsched.solve(instance, "offload-greedy", time_limit=60, **options)
    assert result.status is Status.FEASIBLE, result.notes
    assert result.objective == 6
    assert hpcsched.validate(instance, result.solution) == []
    # B 1 does not start right after Fall 0 (at 1): it waits for Off 0 to free x_0
    assert _start_of(result.solution, ("B", 1)) == 2


def test_offload_only_answers_on_homogeneous4_half_lat1():
    """Every offload-only schedule there makes a backward wait for an offload (docs/checkpoint.md); before the
    waits the greedy found none."""
    instance = hpcsched.read_instance(INSTANCES / "homogeneous4-half-lat1.json")
    # brute-force-offload's optimum there (a 3 s search), reproduced by test_regression.py
    exact = read_solved(INSTANCES / SOLVED_FILE)["homogeneous4-half-lat1.json"]
    assert exact.status == "OPTIMAL" and exact.bound_method == "brute-force-offload"
    only = hpcsched.solve(instance, "offload-greedy", time_limit=60, recompute=False)
    assert only.status in FOUND, only.notes
    assert hpcsched.validate(instance, only.solution) == []
    assert not any(name == "F" for name, _ in only.solution.sequence)
    assert only.objective >= exact.objective


def _never_below_the_brute_force_optimum(instance):
    exact = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    if exact.status is Status.INFEASIBLE:
        return
    assert exact.status is Status.OPTIMAL, exact.notes
    for method, options in (("offload-greedy", {}), ("offload-greedy", {"recompute": False}), ("offload-dp", {})):
        result = hpcsched.solve(instance, method, time_limit=60, **options)
        assert result.status in (*FOUND, Status.NOT_APPLICABLE), result.notes
        if result.solution is not None:
            assert hpcsched.validate(instance, result.solution) == []
            assert result.objective >= exact.objective


@settings(max_examples=30, deadline=None)
@given(small_two_level_chains(max_length=2, max_time=2, max_size=3))
def test_never_below_the_brute_force_optimum(instance):
    """Up to two stages, where the exhaustive search takes under 0.5 s; three stages in the slow variant."""
    _never_below_the_brute_force_optimum(instance)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(small_two_level_chains(max_length=3, max_time=2, max_size=3))
def test_never_below_the_brute_force_optimum_on_three_stages(instance):
    """Three stages: one exhaustive search takes up to 6 s."""
    _never_below_the_brute_force_optimum(instance)


#: The one shipped instance checked by default (0.3 s): test_regression.py makes the same offload-greedy run on
#: every instance below and asserts that it equals the recorded value (by default where that run is short).
REPRESENTATIVE = "alexnet-pcie3-b70.json"


def _recorded_by_offload_greedy() -> list:
    solved = read_solved(INSTANCES / SOLVED_FILE)
    return [
        pytest.param(name, entry.objective, marks=[] if name == REPRESENTATIVE else [pytest.mark.slow])
        for name, entry in sorted(solved.items())
        if entry.method == "offload-greedy"
    ]


@pytest.mark.parametrize(("name", "recorded"), _recorded_by_offload_greedy())
def test_never_worse_than_recorded_on_shipped_instances(name, recorded):
    instance = hpcsched.read_instance(INSTANCES / name)
    result = hpcsched.solve(instance, "offload-greedy", time_limit=300)
    assert result.status in FOUND, result.notes
    assert result.objective <= recorded
