"""Special cases against the exact methods; Revolve's and rotor's published facts; heuristics above bounds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import hpcsched
from hpcsched.checkpoint import HEURISTIC_METHODS, Instance, Solution, bounds, evaluate, validate
from hpcsched.checkpoint.formulations import persistent_dp, shortest_sequence
from hpcsched.checkpoint.special_cases import revolve_extra_forwards, revolve_sequence
from hpcsched.core.result import Status

from .checkpoint_strategies import small_chains


def unit(length, memory_without_x0):
    """rotor's unit chain; rotor's memory does not count x_0, this model's M does: M = rotor's + 1."""
    return Instance.create(
        [1] * length, [1] * (length + 1), [1] * (length + 1), [None] + [1] * length, memory_without_x0 + 1
    )


@pytest.mark.parametrize(
    ("steps", "checkpoints", "extra"),
    [(10, 2, 20), (10, 3, 15), (20, 3, 45), (50, 5, 122), (100, 10, 222), (1000, 10, 3636)],
)
def test_revolve_closed_form_and_its_sequence(steps, checkpoints, extra):
    assert revolve_extra_forwards(steps, checkpoints) == extra
    sequence = revolve_sequence(steps, checkpoints)
    assert sum(1 for name, _ in sequence if name == "F") == extra
    assert sum(1 for name, _ in sequence if name == "Fall") == steps
    instance = unit(steps, 10**6)
    solution = Solution(sequence)
    assert validate(instance, solution) == []
    assert evaluate(instance, solution)["recomputation_time"] == extra


@pytest.mark.parametrize(
    ("length", "table"),
    [
        (5, {4: 20, 5: 14, 6: 13, 7: 11, 9: 11}),
        (10, {4: 65, 5: 37, 6: 30, 7: 28, 8: 26, 9: 25, 10: 24, 11: 23, 12: 21, 15: 21}),
    ],
)
def test_rotor_unit_chain_table(length, table):
    for memory, total in table.items():
        result = hpcsched.solve(unit(length, memory), "dp", time_limit=60)
        assert result.objective == total, memory


def test_revolve_is_beaten_by_dp_in_this_model():
    # Revolve re-runs each recording forward; this model may keep it (Fall): dp is better on unit chains
    instance = unit(10, 5)  # M = 6 bytes, x_0 included
    revolve = hpcsched.solve(instance, "revolve", time_limit=60)
    dp = hpcsched.solve(instance, "dp", time_limit=60)
    assert revolve.status is Status.FEASIBLE and dp.objective < revolve.objective
    assert (dp.objective, revolve.objective) == (37, 41)


@settings(max_examples=30)
@given(small_chains(transients=False))
def test_store_all_is_optimal_when_it_fits_and_matches_brute_force(instance):
    result = hpcsched.solve(instance, "store-all", time_limit=60)
    best = shortest_sequence(instance)
    if result.status is Status.OPTIMAL:
        assert result.objective == best[0] == instance.compute_time
    else:  # below the store-all peak some stage runs twice (bounds.no_recomputation_bound)
        assert result.status is Status.NOT_APPLICABLE
        assert best[0] >= instance.compute_time + min(instance.fw)


@settings(max_examples=30)
@given(small_chains(max_length=5))
def test_bounds_never_exceed_the_optimum_and_heuristics_never_go_below(instance):
    best = shortest_sequence(instance)
    bound = bounds.best(instance)
    assert best is not None and bound <= best[0]
    for method in HEURISTIC_METHODS:
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_APPLICABLE), (method, result.notes)
        if result.status.has_solution:
            assert result.objective >= best[0] >= bound


def test_homogeneous_revolve_against_exact_on_its_class():
    for memory in (4, 5, 6, 7):
        instance = unit(4, memory)
        revolve = hpcsched.solve(instance, "revolve", time_limit=60)
        best = shortest_sequence(instance)[0]
        assert revolve.status.has_solution and revolve.objective >= best
        assert revolve.objective - instance.compute_time == revolve_extra_forwards(4, int(revolve.notes[0].split()[2]))


def test_single_forward_lp_is_tighter_than_the_trivial_bound_somewhere():
    instance = unit(10, 5)
    assert bounds.single_forward_lp(instance) > bounds.compute_time(instance) + 1
    assert bounds.single_forward_lp(instance) <= persistent_dp(instance).time


@settings(max_examples=15)
@given(small_chains(max_length=8, max_size=10**6, transients=False))
def test_rounded_dp_and_every_heuristic_stay_valid_and_above_the_bound(instance):
    # sizes up to 1e6 bytes force slot rounding in the DP (30 slots): every answer still validates
    bound = bounds.best(instance)
    for method, options in (("dp", {"slots": 30}), *((name, {}) for name in HEURISTIC_METHODS)):
        result = hpcsched.solve(instance, method, time_limit=60, **options)
        assert result.status is not Status.ERROR, (method, result.notes)
        if result.status.has_solution:
            assert result.objective >= bound
