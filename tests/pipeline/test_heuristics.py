"""Heuristics: valid, never below the bounds or the brute-force optimum; the classic schedules' known properties."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpcsched import solve
from hpcsched.core.result import Status
from hpcsched.pipeline import bounds, generate_interleaved, generate_uniform, generate_zero_bubble
from hpcsched.pipeline.generate import generate_random, generate_vshape
from hpcsched.pipeline.simulate import order_peaks, orders_of
from hpcsched.pipeline.stages import (
    gpipe_orders,
    interleaved_orders,
    one_f_one_b_orders,
    one_f_one_b_warmups,
    stage_chain,
)

from .pipeline_strategies import instances, stage_chains

HEURISTICS = (
    "gpipe",
    "1f1b",
    "interleaved-1f1b",
    "zb-h1",
    "zb-h2",
    "greedy-backward-first",
    "greedy-critical-path",
    "greedy-memory-tight",
    "greedy",
    "local-search",
)
#: Methods whose rule always finds a schedule when one micro-batch in the frees-first order fits.
MEMORY_AWARE = ("greedy-backward-first", "greedy-critical-path", "greedy-memory-tight", "greedy")


def _check(instance, method, optimum=None):
    result = (
        solve(instance, method, time_limit=30, max_iterations=200)
        if method == "local-search"
        else solve(instance, method, time_limit=30)
    )
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_APPLICABLE), (method, result.notes)
    if result.solution is None:
        assert result.notes, method
        return result
    assert result.objective >= bounds.best(instance) - 1e-9, method
    assert result.bound is None or result.bound <= result.objective + 1e-9
    if optimum is not None:
        assert result.objective >= optimum - 1e-9, method
        if result.status is Status.OPTIMAL:
            assert result.objective == optimum, method
    return result


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(instances(max_jobs=8))
def test_makespan_heuristics_valid_and_never_below_the_optimum(instance):
    exact = solve(instance, "brute-force", time_limit=60)
    optimum = exact.objective if exact.status is Status.OPTIMAL else None
    for method in HEURISTICS:
        result = _check(instance, method, optimum)
        if exact.status is Status.INFEASIBLE:
            assert result.solution is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(instances(objective="period", max_jobs=4))
def test_period_heuristics_valid_and_never_below_the_optimum(instance):
    exact = solve(instance, "brute-force", time_limit=60)
    optimum = exact.objective if exact.status is Status.OPTIMAL else None
    for method in HEURISTICS:
        _check(instance, method, optimum)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stage_chains(max_stages=4, max_micro=5))
def test_memory_aware_rules_always_find_a_schedule(instance):
    alone = solve(instance, "sequential", time_limit=30)
    for method in (*MEMORY_AWARE, "1f1b"):
        result = _check(instance, method)
        if alone.solution is not None and method in MEMORY_AWARE:
            assert result.solution is not None, (method, result.notes)


@pytest.mark.parametrize("devices", [1, 2, 3, 5])
@pytest.mark.parametrize("n", [1, 2, 4, 7])
def test_1f1b_and_gpipe_peaks_on_uniform_chains(devices, n):
    instance = generate_uniform(devices=devices, n=n, forward=2, backward=3, activation=3)
    chain = stage_chain(instance)
    peaks = order_peaks(instance, one_f_one_b_orders(instance, chain, one_f_one_b_warmups(chain, n)))
    assert peaks == [3 * min(n, devices - d) for d in range(devices)]
    assert order_peaks(instance, gpipe_orders(instance, chain)) == [3 * n] * devices
    result = solve(instance, "1f1b", time_limit=10)
    assert result.status is Status.OPTIMAL and result.objective == (n + devices - 1) * 5
    assert result.kpis["peak_memory_0"] == 3 * min(n, devices)


@pytest.mark.parametrize("devices", [2, 3, 4])
def test_1f1b_fits_a_tight_limit_by_lowering_its_warm_up(devices):
    instance = generate_uniform(devices=devices, n=6, memory_limit=2)
    result = solve(instance, "1f1b", time_limit=10)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert result.kpis["peak_memory"] <= 2
    assert solve(instance, "gpipe", time_limit=10).status is Status.NOT_APPLICABLE


@pytest.mark.parametrize("devices", [2, 3, 4, 6])
def test_zb_h1_reaches_the_bound_with_equal_passes_and_keeps_the_first_devices_peak(devices):
    n = 2 * devices
    instance = generate_zero_bubble(devices=devices, n=n)  # F = B = W = 1, F allocates 2, W holds 1
    h1, plain = solve(instance, "zb-h1", time_limit=10), solve(instance, "1f1b", time_limit=10)
    assert h1.objective == 3 * n + devices - 1 == bounds.best(instance)
    assert h1.status is Status.OPTIMAL
    assert h1.kpis["peak_memory_0"] == plain.kpis["peak_memory_0"]
    assert all(h1.kpis[f"peak_memory_{d}"] <= h1.kpis["peak_memory_0"] for d in range(devices))
    assert solve(instance, "zb-h2", time_limit=10).objective <= plain.objective


def test_zb_needs_w_blocks_and_gpipe_has_no_period():
    instance = generate_uniform(devices=3, n=3)
    result = solve(instance, "zb-h1", time_limit=10)
    assert result.status is Status.NOT_APPLICABLE and "W blocks" in result.notes[0]
    period = generate_uniform(devices=3, objective="period")
    assert solve(period, "gpipe", time_limit=10).status is Status.NOT_APPLICABLE


@pytest.mark.parametrize(("devices", "chunks", "n"), [(2, 2, 4), (4, 2, 8), (3, 3, 6), (4, 3, 4), (2, 1, 5)])
def test_interleaved_orders_are_acyclic_when_n_is_a_multiple_of_d(devices, chunks, n):
    instance = generate_interleaved(devices=devices, chunks=chunks, n=n)
    result = solve(instance, "interleaved-1f1b", time_limit=10)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE), result.notes
    chain = stage_chain(instance)
    assert orders_of(instance, result.solution) is not None
    assert len(interleaved_orders(instance, chain, chunks)[0]) == n * chunks * 2


def test_stage_schedules_refuse_what_is_outside_their_class():
    vshape = generate_vshape(devices=2, n=2)
    assert "one stage per device" in solve(vshape, "1f1b", time_limit=10).notes[0]
    assert "device s mod" in solve(vshape, "interleaved-1f1b", time_limit=10).notes[0]
    assert solve(vshape, "gpipe", time_limit=10).status in (Status.OPTIMAL, Status.FEASIBLE)


def test_vshape_repetend_of_1f1b_is_tessels():
    instance = generate_uniform(devices=4, forward=1, backward=3, memory_limit=4, objective="period")
    result = solve(instance, "1f1b", time_limit=10)
    assert result.status is Status.OPTIMAL and result.objective == 4
    assert [result.kpis[f"peak_memory_{d}"] for d in range(4)] == [4, 3, 2, 1]


@pytest.mark.parametrize("seed", range(4))
def test_local_search_never_worse_than_its_start(seed):
    instance = generate_random(seed=seed, devices=3, n=5, memory_factor=1.5, split=True)
    start = min(
        r.objective
        for r in (solve(instance, m, time_limit=10) for m in ("1f1b", "zb-h1", "zb-h2", "gpipe", "greedy"))
        if r.objective is not None
    )
    result = solve(instance, "local-search", time_limit=30, seed=seed, max_iterations=300)
    assert result.objective <= start


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3))
def test_uniform_1f1b_reaches_the_device_bound(devices, n, forward, backward):
    instance = generate_uniform(devices=devices, n=n, forward=forward, backward=backward)
    result = solve(instance, "1f1b", time_limit=10)
    assert result.objective == (n + devices - 1) * (forward + backward) == bounds.device_bound(instance)
