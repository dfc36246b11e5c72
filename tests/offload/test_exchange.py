"""The exchange lemma (equal activations: offload the earliest ones) and the methods that rely on it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reference import SAFETY_LIMIT, proven_or_infeasible

from hpcsched import validate
from hpcsched.core.result import Status
from hpcsched.offload import bounds, simulate
from hpcsched.offload.formulations import exact_timing, offload_set_search
from hpcsched.offload.model import canonical_schedule, exchange_pairs, identical_classes

from .offload_helpers import chains, deterministic_cpsat, rough_chains, small_instance


@st.composite
def tied_chains(draw, max_layers=5):
    """Chains whose activations take few distinct sizes, so that most have an equal partner."""
    n = draw(st.integers(2, max_layers))
    sizes = st.lists(st.sampled_from([3, 5, 8]), min_size=n + 1, max_size=n + 1)
    times = st.lists(st.integers(0, 6), min_size=n, max_size=n)
    return small_instance(
        draw(times),
        draw(times),
        draw(sizes),
        fraction=draw(st.sampled_from([0.0, 0.3, 0.7])),
        bandwidth=draw(st.sampled_from([1.0, 2.0, 3.0])),
        latency=draw(st.integers(0, 1)),
        duplex=draw(st.sampled_from(["full", "half"])),
        workspace_forward=draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
        workspace_backward=draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
    )


def makespan(instance, solution) -> int:
    return solution.backward_start[0] + instance.backward[0]


def is_canonical(instance, offloaded) -> bool:
    return all(i in offloaded for i, j in exchange_pairs(instance) if j in offloaded)


def group_counts(instance, offloaded) -> list[int]:
    return [sum(1 for i in group if i in offloaded) for group in identical_classes(instance)]


def test_exchange_pairs_by_hand():
    instance = small_instance([1, 1, 1, 1], [1, 1, 1, 1], [4, 7, 4, 7, 4])
    assert identical_classes(instance) == [(0, 2), (1, 3)]  # a_4 is never offloadable
    assert exchange_pairs(instance) == [(0, 2), (1, 3)]
    assert is_canonical(instance, {0, 1}) and is_canonical(instance, {0, 1, 2})
    assert not is_canonical(instance, {2, 3}) and not is_canonical(instance, {0, 3})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_chains(), st.randoms(use_true_random=False))
def test_canonical_schedule_is_valid_with_the_same_makespan(instance, rng):
    # The lemma, checked by the independent validator on as-early-as-possible schedules of random
    # sets and on an exactly timed one (CP-SAT with the set fixed, whose timing is not the simulator's).
    schedules = []
    for _ in range(6):
        chosen = [i for i in instance.offloadable if rng.random() < 0.5]
        schedule = simulate(instance, chosen)
        if schedule is not None:
            schedules.append(schedule)
    assume(schedules)
    timed = exact_timing(instance, set(schedules[0].offloaded), time_limit=5).schedule
    schedules += [timed] if timed is not None else []
    for schedule in schedules:
        assert validate(instance, schedule) == []
        canonical = canonical_schedule(instance, schedule)
        assert validate(instance, canonical) == []
        assert makespan(instance, canonical) == makespan(instance, schedule)
        assert is_canonical(instance, set(canonical.offloaded))
        assert group_counts(instance, canonical.offloaded) == group_counts(instance, schedule.offloaded)
        assert {i for i in canonical.offloaded if not any(i in g for g in identical_classes(instance))} == {
            i for i in schedule.offloaded if not any(i in g for g in identical_classes(instance))
        }


# 12 chains by default (brute force, then every canonical set timed again: ~0.15 s each); the `slow`
# twin draws 25 others (-m slow).
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_chains(max_layers=4))
def test_brute_force_optimum_has_a_canonical_offload_set(instance):
    check_brute_force_optimum_has_a_canonical_offload_set(instance)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_chains(max_layers=4))
def test_brute_force_optimum_has_a_canonical_offload_set_on_more_chains(instance):
    check_brute_force_optimum_has_a_canonical_offload_set(instance)


def check_brute_force_optimum_has_a_canonical_offload_set(instance):
    # Brute force times every set; the best canonical set must reach its optimum (the lemma's claim
    # that exact methods may skip the others).  The full-resolution cpsat, which adds the
    # implications, must agree.
    brute = proven_or_infeasible(instance, "brute-force")
    assume(brute.status is Status.OPTIMAL)
    best_canonical = None
    for size in range(len(instance.offloadable) + 1):
        for subset in itertools.combinations(instance.offloadable, size):
            if not is_canonical(instance, set(subset)):
                continue
            timing = exact_timing(instance, set(subset), time_limit=SAFETY_LIMIT)
            timed = timing.schedule
            assert timing.proven
            if timed is not None and (best_canonical is None or makespan(instance, timed) < best_canonical):
                best_canonical = makespan(instance, timed)
    assert best_canonical == brute.objective
    # From its first greedy start (its iterated local search, 2/3 of a run here, adds no implication), with
    # deterministic limits: a loaded machine cannot turn its proof into FEASIBLE (was a 5 s wall clock).
    warm = deterministic_cpsat(instance, heuristic_fraction=0.0)
    assert warm.status is Status.OPTIMAL and warm.objective == brute.objective


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(tied_chains(max_layers=4), chains(max_layers=4), rough_chains()))
def test_instant_relaxation_keeps_the_offload_sets_the_search_relies_on(instance):
    # The search rules a branch out when the relaxation with its decisions fixed is INFEASIBLE at the
    # cap.  For each subset S, the simulator's schedule with exactly S offloaded (makespan m) must
    # leave solvable at cap m: without the exchange implications, the relaxation with S fixed (with
    # and without every optional row); with them (the default), the relaxation with the canonical
    # equivalent of S fixed.  A non-canonical S itself must then have no solution at all: the search
    # skips it on purpose.
    n = instance.n_layers
    rows = [(j, k) for j in instance.offloadable for k in range(j + 2, n + 1)]
    for size in range(len(instance.offloadable) + 1):
        for subset in itertools.combinations(instance.offloadable, size):
            schedule = simulate(instance, list(subset))
            if schedule is None:
                continue
            assert validate(instance, schedule) == [] and sorted(schedule.offloaded) == list(subset)
            cap = makespan(instance, schedule)
            canonical = canonical_schedule(instance, schedule)
            cases = [({i: i in subset for i in instance.offloadable}, False, optional) for optional in (False, True)]
            cases.append(({i: i in canonical.offloaded for i in instance.offloadable}, True, True))
            for fixed, exchange, optional in cases:
                outcome, _ = bounds.instant_relaxation(
                    instance,
                    upper=cap,
                    time_limit=5,
                    workers=1,
                    fixed_offload=fixed,
                    start_rows=optional,
                    prefetch_rows=rows if optional else (),
                    exchange=exchange,
                )
                assert outcome.status is Status.OPTIMAL and outcome.objective <= cap
            if not is_canonical(instance, set(subset)):
                broken = {i: i in subset for i in instance.offloadable}
                outcome, _ = bounds.instant_relaxation(
                    instance, upper=10**6, time_limit=5, workers=1, fixed_offload=broken
                )
                assert outcome.status is Status.INFEASIBLE


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(tied_chains(), chains(max_layers=5)))
def test_offload_set_search_with_and_without_exchange_proves_the_brute_force_optimum(instance):
    # Brute force knows nothing of the lemma; the search with it (the default) must still prove the
    # optimum, from above it, and the search without it too.
    brute = proven_or_infeasible(instance, "brute-force")
    assume(brute.status is Status.OPTIMAL)
    optimum = int(brute.objective)
    upper = makespan(instance, simulate(instance, instance.offloadable))
    for exchange in (True, False):
        search = offload_set_search(instance, upper=upper, time_limit=60, workers=2, cuts=True, exchange=exchange)
        assert search.proven and search.bound == optimum == search.cap + 1 and search.share_ruled_out == 1.0
        if upper > optimum:
            assert validate(instance, search.schedule) == []
            assert makespan(instance, search.schedule) == optimum
        else:
            assert search.schedule is None
