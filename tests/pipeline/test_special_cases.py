"""Special cases: equal to brute force on their class (their theorems), NOT_APPLICABLE outside it."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from hpcsched import solve
from hpcsched.core.result import Status
from hpcsched.pipeline import Edge, bounds, generate_uniform
from hpcsched.pipeline.special_cases import least_peak_order

from .pipeline_strategies import block_graphs


def _no_delays(instance):
    return replace(instance, edges=tuple(Edge(e.source, e.target, 0) for e in instance.edges))


def _unlimited(instance):
    return replace(instance, memory_limit=(None,) * instance.devices)


def _peak_by_enumeration(instance):
    predecessors = instance.predecessors()
    best = None
    for order in itertools.permutations(range(instance.n_blocks)):
        where = {b: i for i, b in enumerate(order)}
        if any(where[u] > where[b] for b in order for u, _ in predecessors[b]):
            continue
        level = peak = 0
        for b in order:
            peak = max(peak, level + max(instance.blocks[b].memory, 0))
            level += instance.blocks[b].memory
        best = peak if best is None else min(best, peak)
    return best


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(block_graphs(max_blocks=5, max_devices=1, max_micro=1))
def test_least_peak_order_is_the_least_peak(instance):
    peak, order = least_peak_order(instance)
    assert peak == _peak_by_enumeration(instance)
    assert sorted(order) == list(range(instance.n_blocks))


@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(block_graphs(max_blocks=4, max_devices=1, max_micro=3))
def test_one_device_equals_brute_force(instance):
    instance = _no_delays(instance)
    special, exact = solve(instance, "one-device", time_limit=30), solve(instance, "brute-force", time_limit=60)
    if exact.status is Status.INFEASIBLE:
        assert special.status is Status.INFEASIBLE
    else:
        assert exact.status is Status.OPTIMAL
        assert special.status is Status.OPTIMAL and special.objective == exact.objective


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(block_graphs(max_blocks=4, max_devices=1, max_micro=2, objective="period"))
def test_one_device_period_equals_brute_force(instance):
    instance = _no_delays(instance)
    special, exact = solve(instance, "one-device", time_limit=30), solve(instance, "brute-force", time_limit=60)
    assert special.status is exact.status
    if exact.status is Status.OPTIMAL:
        assert special.objective == exact.objective


@pytest.mark.parametrize(("devices", "n"), [(1, 5), (2, 1), (2, 4), (3, 2), (3, 3), (4, 2)])
@pytest.mark.parametrize(("forward", "backward"), [(1, 2), (2, 1), (1, 1)])
def test_uniform_1f1b_equals_brute_force(devices, n, forward, backward):
    instance = generate_uniform(devices=devices, n=n, forward=forward, backward=backward)
    special = solve(instance, "uniform-1f1b", time_limit=30)
    assert special.status is Status.OPTIMAL
    assert special.objective == (n + devices - 1) * (forward + backward)
    exact = solve(instance, "brute-force", time_limit=60, stop_at_bound=False)
    assert exact.status is Status.OPTIMAL and exact.objective == special.objective


def test_uniform_1f1b_outside_its_class():
    cases = {
        "delay": generate_uniform(devices=2, n=2, delay=1),
        "split": generate_uniform(devices=2, n=2, weight=1),
        "limit": generate_uniform(devices=3, n=3, memory_limit=2),
        "period": generate_uniform(devices=2, objective="period"),
    }
    for what, instance in cases.items():
        assert solve(instance, "uniform-1f1b", time_limit=10).status is Status.NOT_APPLICABLE, what
    assert solve(generate_uniform(devices=2, n=2), "one-device", time_limit=10).status is Status.NOT_APPLICABLE


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(block_graphs(max_blocks=4, max_devices=3, max_micro=2, objective="period"))
def test_unlimited_period_equals_brute_force(instance):
    instance = _unlimited(instance)
    special = solve(instance, "unlimited-period", time_limit=30)
    if any(len(block.devices) > 1 for block in instance.blocks):
        assert special.status is Status.NOT_APPLICABLE
        return
    assert special.status is Status.OPTIMAL and special.objective == bounds.work_bound(instance)
    if instance.micro_batches * instance.n_blocks <= 6:
        exact = solve(instance, "brute-force", time_limit=60)
        assert exact.status is Status.OPTIMAL and exact.objective == special.objective
