"""Channel orders in the simulator, order local search, instant relaxation and relax-and-repair."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reference import SAFETY_LIMIT, proven_optimum, proven_or_infeasible
from workclock import deadline_after

from hpcsched import solve, validate
from hpcsched.core import deadline as deadline_module
from hpcsched.core.result import Status
from hpcsched.offload import Instance, bounds, simulate
from hpcsched.offload.formulations import offload_set_search
from hpcsched.offload.heuristics import channel_orders, improve_orders, ordered_local_search

from .offload_helpers import PROOF_DETERMINISTIC_TIME, chains, deterministic_cpsat, rough_chains

#: Deadline-clock readings an order search may make (about one per move it tries): on these small
#: chains it reaches its local optimum long before, on any machine.
SEARCH_READS = 10_000


def within_moves(search, instance, solution):
    """``search(instance, solution, deadline)`` with a deadline that passes after `SEARCH_READS` readings.

    A budget of moves rather than of seconds (tests/workclock.py): the search does the same work and
    returns the same schedule on a loaded machine as on an idle one, and a search that never stops
    ends at the budget instead of hanging the test.
    """
    with deadline_after(SEARCH_READS):
        return search(instance, solution, deadline_module.now() + 1.0)


@settings(max_examples=40, deadline=None)
@given(chains(max_layers=6), st.randoms(use_true_random=False))
def test_simulator_with_channel_orders_gives_valid_schedules(instance, rng):
    chosen = [i for i in instance.offloadable if rng.random() < 0.6]
    default = simulate(instance, chosen)
    same = simulate(instance, chosen, out_order=sorted(chosen), in_order=sorted(chosen, reverse=True))
    assert same == default  # the default orders are production order out, order of use in
    out_order, in_order = chosen[:], chosen[:]
    rng.shuffle(out_order)
    rng.shuffle(in_order)
    solution = simulate(instance, chosen, out_order=out_order, in_order=in_order)
    if solution is not None:
        assert validate(instance, solution) == []
        assert channel_orders(solution)[0] == out_order  # offloads start in the given order


def test_simulator_rejects_orders_that_are_not_permutations():
    instance = Instance(
        name="o",
        forward=(1, 1, 1),
        backward=(1, 1, 1),
        activation=(4, 4, 4, 4),
        memory=100,
        bandwidth_out=1.0,
        bandwidth_in=1.0,
    )
    with pytest.raises(ValueError):
        simulate(instance, [0, 1], out_order=[0], in_order=[1, 0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(max_layers=5))
def test_order_search_and_instant_relaxation_against_brute_force(instance):
    optimum = proven_optimum(instance, "brute-force")
    start = simulate(instance, instance.offloadable)
    improved = within_moves(ordered_local_search, instance, start)
    assert validate(instance, improved) == []
    assert (
        optimum <= improved.backward_start[0] + instance.backward[0] <= start.backward_start[0] + instance.backward[0]
    )
    # With the makespan capped at the optimum the relaxation must keep the optimal schedule:
    # an INFEASIBLE answer there (bound optimum + 1) would expose an unsound row.
    relaxed = bounds.instant_relaxation_bound(instance, upper=int(optimum), time_limit=5, workers=1)
    assert bounds.best(instance) <= relaxed <= optimum
    below = bounds.instant_relaxation_bound(instance, upper=int(optimum) - 1, time_limit=5, workers=1)
    assert below <= optimum
    # Upper bound from a heuristic, as in the package.
    heuristic = solve(instance, "local-search", time_limit=0.3)
    assert bounds.instant_relaxation_bound(instance, upper=int(heuristic.objective), time_limit=5, workers=1) <= optimum
    searched, _, _ = bounds.instant_relaxation_search(
        instance,
        lower=int(bounds.best(instance)),
        upper=int(heuristic.objective),
        time_limit=5,
        workers=1,
        hint=heuristic.solution,
    )
    assert bounds.best(instance) <= searched <= optimum


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(chains(max_layers=5), rough_chains()))
def test_instant_relaxation_with_every_optional_row_keeps_the_optimum(instance):
    # Every start-of-B row and every prefetch row (j, k): capped at the brute-force optimum the
    # relaxation must still have a solution (an unsound row would make it INFEASIBLE: bound optimum + 1).
    brute = proven_or_infeasible(instance, "brute-force")
    assume(brute.status is Status.OPTIMAL)  # rough chains may not fit in memory at all
    optimum = int(brute.objective)
    n = instance.n_layers
    rows = [(j, k) for j in instance.offloadable for k in range(j + 2, n + 1)]
    relaxed = bounds.instant_relaxation_bound(
        instance, upper=optimum, time_limit=5, workers=1, start_rows=True, prefetch_rows=rows
    )
    assert bounds.best(instance) <= relaxed <= optimum
    # A valid schedule breaks none of the optional rows: the optimal one (validated by the registry),
    # and offloading everything as early as possible when that fits. (Was a 0.2 s local search per
    # example: wall-clock bound, and its schedule depended on the machine's load.)
    asap = simulate(instance, instance.offloadable)
    for schedule in (brute.solution, asap):
        if schedule is not None:
            assert validate(instance, schedule) == []
            assert bounds.missing_rows(instance, schedule) == (False, [])


# 12 chains by default (brute force, four searches and two cpsat runs: ~0.3 s each); the `slow` twin
# draws 25 others (-m slow).
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(chains(max_layers=5), rough_chains()))
def test_offload_set_search_proves_the_brute_force_optimum(instance):
    check_offload_set_search_proves_the_brute_force_optimum(instance)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(chains(max_layers=5), rough_chains()))
def test_offload_set_search_proves_the_brute_force_optimum_on_more_chains(instance):
    check_offload_set_search_proves_the_brute_force_optimum(instance)


def check_offload_set_search_proves_the_brute_force_optimum(instance):
    # Started above the optimum (offload everything, as early as possible), the search must find a
    # schedule of the optimal makespan on its way and then rule out everything below it.
    brute = proven_or_infeasible(instance, "brute-force")
    assume(brute.status is Status.OPTIMAL)
    optimum = int(brute.objective)
    start = simulate(instance, instance.offloadable)
    upper = start.backward_start[0] + instance.backward[0]
    # Each branch is limited in deterministic time; the wall clock is only a safety stop.
    search = offload_set_search(instance, upper=upper, time_limit=SAFETY_LIMIT, workers=1)
    assert search.proven and search.bound == optimum == search.cap + 1 and search.share_ruled_out == 1.0
    if upper > optimum:
        assert validate(instance, search.schedule) == []
        assert search.schedule.backward_start[0] + instance.backward[0] == optimum
    else:
        assert search.schedule is None
    # With the optional rows added as relaxed solutions break them: the same proof.
    with_cuts = offload_set_search(instance, upper=upper, time_limit=SAFETY_LIMIT, workers=1, cuts=True)
    assert with_cuts.proven and with_cuts.bound == optimum
    # Two branches at a time (one CP-SAT worker each), with and without cuts: the same proof, whatever
    # order the branches finish in.
    for cuts in (False, True):
        parallel = offload_set_search(
            instance, upper=upper, time_limit=SAFETY_LIMIT, workers=2, branch_workers=1, cuts=cuts
        )
        assert parallel.proven and parallel.bound == optimum == parallel.cap + 1
        if upper > optimum:
            assert validate(instance, parallel.schedule) == []
            assert parallel.schedule.backward_start[0] + instance.backward[0] == optimum
        else:
            assert parallel.schedule is None
    # Through the registry (validated), as the cpsat option; a search cut short keeps a valid bound.
    # No time for the heuristic start (it is ~3/4 of a run here and proves nothing): the search starts
    # from the first greedy schedule and has to find the optimum itself.
    for branch_cuts in (False, True):
        result = deterministic_cpsat(
            instance, use_lp=False, branch_fraction=1.0, branch_cuts=branch_cuts, heuristic_fraction=0.0
        )
        assert result.status is Status.OPTIMAL and result.objective == optimum
    cut = offload_set_search(instance, upper=upper, time_limit=0.0, workers=1)
    assert not cut.proven and cut.nodes == 0 and cut.open == 1 and cut.bound <= optimum


def test_missing_rows_finds_a_prefetch_that_overflows_during_a_backward_step():
    # B_2 = [6, 8) starts with a_1, a_2, δ_1 = 12 bytes (a_0 offloaded by 4): fits.  The prefetch
    # of a_0 starts at 7, inside B_2: 16 > 12.  Only the prefetch row (0, 2) sees it.
    from hpcsched.offload import Solution

    instance = Instance(
        name="hand",
        forward=(1, 1),
        backward=(3, 2),
        activation=(4, 4, 4),
        memory=12,
        bandwidth_out=1.0,
        bandwidth_in=1.0,
    )
    broken = Solution(
        offloaded=(0,), forward_start=(4, 5), backward_start=(11, 6), offload_start={0: 0}, prefetch_start={0: 7}
    )
    assert [v.rule for v in validate(instance, broken)] == ["memory"]
    assert bounds.missing_rows(instance, broken) == (False, [(0, 2)])
    with pytest.raises(ValueError, match="prefetch row"):
        bounds.instant_relaxation(instance, upper=20, prefetch_rows=[(0, 1)])


def test_instant_relaxation_by_hand_beats_the_transfer_bound():
    # Same chain as test_transfer_bound_by_hand: transfer bound 8, optimum 10 (by hand).
    # Relaxation: B_2 holds a_1, δ_1, a_2 and a_0 (16 > 12), so a_0 is absent at end B_2 - 1:
    # its offload [e-4, e) ends by then, e >= 4, so end B_2 >= 5; its prefetch starts at or
    # after end B_2 and ends before B_1: B_1 ends >= 5 + 4 + 1 = 10.
    instance = Instance(
        name="hand",
        forward=(1, 1),
        backward=(1, 1),
        activation=(4, 4, 4),
        memory=12,
        bandwidth_out=1.0,
        bandwidth_in=1.0,
    )
    assert bounds.transfer_bound(instance) == 8
    # Proofs: a deterministic limit where the function takes one, else only the safety stop.
    assert bounds.instant_relaxation_bound(instance, upper=12, time_limit=SAFETY_LIMIT, workers=1) == 10
    # Branching on the offload set: keeping a_0 leaves 16 bytes in B_2, no schedule at all.
    limits = {"time_limit": SAFETY_LIMIT, "deterministic_time": PROOF_DETERMINISTIC_TIME, "workers": 1}
    kept, _ = bounds.instant_relaxation(instance, upper=12, fixed_offload={0: False}, **limits)
    assert kept.status is Status.INFEASIBLE
    offloaded, _ = bounds.instant_relaxation(instance, upper=12, fixed_offload={0: True}, **limits)
    assert offloaded.status is Status.OPTIMAL and offloaded.objective == 10
    with pytest.raises(ValueError, match="not offloadable"):
        bounds.instant_relaxation(instance, upper=12, fixed_offload={2: True})


def test_order_search_beats_default_orders_on_a_found_example():
    # Search random small chains for one where moving a transfer in its channel order helps,
    # and check the improvement against brute force (never below the optimum).
    from .offload_helpers import small_instance

    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(3, 6)
        instance = small_instance(
            [rng.randint(1, 6) for _ in range(n)],
            [rng.randint(1, 8) for _ in range(n)],
            [rng.randint(1, 12) for _ in range(n + 1)],
            fraction=0.3,
            bandwidth=rng.choice([1.0, 2.0]),
        )
        for size in range(2, len(instance.offloadable) + 1):
            chosen = rng.sample(list(instance.offloadable), size)
            default = simulate(instance, chosen)
            if default is None:
                continue
            better = within_moves(improve_orders, instance, default)
            value = better.backward_start[0] + instance.backward[0]
            if value < default.backward_start[0] + instance.backward[0]:
                assert validate(instance, better) == []
                assert value >= proven_optimum(instance, "brute-force")
                return
    pytest.fail("no chain where the channel orders matter was found")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(max_layers=4))
def test_cpsat_with_relax_and_repair_agrees_with_brute_force(instance):
    optimum = proven_optimum(instance, "brute-force")
    result = deterministic_cpsat(instance, relaxation_fraction=0.4)
    assert result.status is Status.OPTIMAL and result.objective == optimum


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("relaxation_fraction", "abc"),
        ("relaxation_fraction", -0.1),
        ("relaxation_probe_fraction", 1.5),
        ("coarse_fraction", float("nan")),
        ("branch_fraction", 2.0),
        ("exchange", "no"),
        ("use_lp", 1),
        ("branch_cuts", "false"),
    ],
)
def test_cpsat_refuses_bad_fraction_options_by_name(option, value):
    from hpcsched.core.errors import OptionError

    instance = Instance(
        name="o", forward=(1, 1), backward=(1, 1), activation=(4, 4, 4), memory=12, bandwidth_out=1.0, bandwidth_in=1.0
    )
    with pytest.raises(OptionError, match=f"options.{option}"):
        solve(instance, "cpsat", time_limit=1, **{option: value})
