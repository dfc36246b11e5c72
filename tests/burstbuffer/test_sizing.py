"""Sizing with no slowdown: the simulator confirms the sizes, smaller sizes slow someone down."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import proven_optimum

from hpcsched import solve
from hpcsched.burstbuffer import Application, Solution, evaluate, generate_periodic
from hpcsched.burstbuffer.formulations import static_size_lp
from hpcsched.burstbuffer.model.fluid import simulate
from hpcsched.burstbuffer.special_cases import (
    constant_rate_granules,
    constant_rate_size_continuous,
    least_drain,
    peak_content,
)
from hpcsched.core.result import Status

from .bb_helpers import pair, single

small = dict(n=st.integers(2, 4), seed=st.integers(0, 10_000), load=st.floats(0.3, 0.95))


def periodic(n, seed, load, objective, granules=16):
    return generate_periodic(seed=seed, n=n, load=load, iterations=(1, 4), granules=granules, objective=objective)


def slowed(instance, solution) -> bool:
    return evaluate(instance, solution)["max_dilation"] > 1 + 1e-9


@settings(max_examples=25, deadline=None)
@given(**small)
def test_dynamic_size_is_exactly_enough(n, seed, load):
    instance = periodic(n, seed, load, "sizing-dynamic")
    result = solve(instance, "sizing-dynamic-sweep")
    assert result.status is Status.OPTIMAL  # the validator checked dilation 1 (rule "slowdown")
    size = result.objective
    assert evaluate(instance, result.solution)["max_dilation"] == pytest.approx(1.0, abs=1e-9)
    if size > 0:
        assert slowed(instance, Solution.dynamic(size * (1 - 1e-4)))
        assert slowed(instance, Solution.dynamic(max(0.0, size - instance.platform.granule)))


def test_dynamic_size_by_hand():
    # Two single bursts of 100 bytes at 10 B/s into B = 10: backlog 100 at t = 10. Without
    # compute phases their long-run load is 2 B (refused by default), so size the finite horizon.
    result = solve(pair(objective="sizing-dynamic"), "sizing-dynamic-sweep", allow_overload=True)
    assert result.objective == pytest.approx(100.0)
    assert solve(pair(objective="sizing-dynamic"), "sizing-dynamic-sweep").status is Status.INFEASIBLE


@settings(max_examples=6, deadline=None)
@given(**small)
def test_static_sizes_are_enough_and_tight(n, seed, load):
    instance = periodic(n, seed, load, "sizing-static")
    dynamic = proven_optimum(instance.with_objective("sizing-dynamic"), "sizing-dynamic-sweep")
    lp = solve(instance, "sizing-static-lp", time_limit=30)
    constant = solve(instance, "sizing-static-constant")
    assert lp.status is Status.OPTIMAL and constant.status is Status.FEASIBLE
    # price of static allocation >= 1; constant drain rates are a restriction of the LP
    assert lp.objective >= dynamic * (1 - 1e-9)
    assert static_size_lp(instance) >= dynamic * (1 - 1e-7)
    assert constant.objective >= lp.objective * (1 - 1e-9)
    assert constant_rate_size_continuous(instance) >= static_size_lp(instance) * (1 - 1e-7)
    for result in (lp, constant):
        granules = list(result.solution.granules)
        for k, g in enumerate(granules):
            if g == 0:
                continue
            fewer = dataclasses.replace(result.solution, granules=tuple([*granules[:k], g - 1, *granules[k + 1 :]]))
            dilation = simulate(instance, fewer).dilation(k)
            assert dilation > 1 + 1e-12, f"{result.method}: app {k} still fine with one granule less"


def test_overload_is_infeasible_with_the_load_figure():
    instance = generate_periodic(seed=3, n=3, load=1.25, objective="sizing-dynamic")
    for objective, method in [
        ("sizing-dynamic", "sizing-dynamic-sweep"),
        ("sizing-static", "sizing-static-lp"),
        ("sizing-static", "sizing-static-constant"),
    ]:
        result = solve(instance.with_objective(objective), method)
        assert result.status is Status.INFEASIBLE
        assert "load 1.2500" in result.notes[0]


@settings(max_examples=40, deadline=None)
@given(
    compute=st.floats(0, 50),
    volume=st.floats(1, 100),
    rate=st.floats(1, 20),
    iterations=st.integers(1, 5),
    fraction=st.floats(0, 1.2),
)
def test_peak_content_formula_matches_the_simulator(compute, volume, rate, iterations, fraction):
    app = Application("x", 0.0, iterations, compute, volume, rate)
    drain = fraction * app.rate
    peak = peak_content(app, drain)
    if peak <= 1e-6:
        return
    instance = single(app, bandwidth=max(drain, 1e-9) * 2, capacity=peak, granule=peak, objective="sharing")
    assert simulate(instance, Solution.static([1], [drain])).dilation(0) == pytest.approx(1.0, abs=1e-9)
    assert abs(least_drain(app, peak) - drain) <= 1e-9 * app.rate or peak_content(
        app, least_drain(app, peak)
    ) <= peak * (1 + 1e-9)
    tight = single(app, bandwidth=max(drain, 1e-9) * 2, capacity=peak, granule=peak * (1 - 1e-3))
    assert simulate(tight, Solution.static([1], [drain])).dilation(0) > 1 + 1e-12


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 3))
def test_constant_rate_greedy_matches_enumeration(seed, n):
    import itertools

    instance = generate_periodic(seed=seed, n=n, load=0.7, iterations=(1, 3), granules=6, objective="sizing-static")
    granules, _ = constant_rate_granules(instance)
    granule, bandwidth = instance.platform.granule, instance.platform.pfs_bandwidth
    limit = [int(app.iterations * app.volume // granule) + 1 for app in instance.applications]
    best = min(
        sum(v)
        for v in itertools.product(*[range(m + 1) for m in limit])
        if sum(least_drain(app, g * granule) for app, g in zip(instance.applications, v, strict=False))
        <= bandwidth * (1 - 1e-12)
    )
    assert sum(granules) == best


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), load=st.floats(0.2, 0.95))
def test_one_application_static_equals_dynamic(seed, load):
    # Alone, a partition with the whole bandwidth is the shared buffer: S*_stat = S*_dyn (in whole granules).
    instance = periodic(1, seed, load, "sizing-static")
    dynamic = proven_optimum(instance.with_objective("sizing-dynamic"), "sizing-dynamic-sweep")
    static = solve(instance, "sizing-static-lp", time_limit=20)
    granule = instance.platform.granule
    assert static.status is Status.OPTIMAL
    expected = max(0, -(-round(dynamic / granule, 9) // 1)) * granule  # ceil(S*_dyn / G) G
    assert static.objective == pytest.approx(expected, rel=1e-9)
