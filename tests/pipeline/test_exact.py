"""Brute force against the bounds and against independent enumerations; the simulator and the baseline."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched import solve
from hpcsched.core.result import Status
from hpcsched.pipeline import Solution, bounds, evaluate, generate_uniform, validate
from hpcsched.pipeline.formulations import horizon_span
from hpcsched.pipeline.simulate import order_peaks, orders_fit, orders_from_sequence, semi_active, timing

from .pipeline_strategies import block_graphs, instances


def _topological_sequences(instance):
    """Every sequence of all jobs in which each job follows its predecessors in its micro-batch."""
    jobs = [(m, b) for m in range(instance.micro_batches) for b in range(instance.n_blocks)]
    predecessors = instance.predecessors()
    for sequence in itertools.permutations(jobs):
        position = {job: i for i, job in enumerate(sequence)}
        if all(position[(m, u)] < position[(m, b)] for m, b in jobs for u, _ in predecessors[b]):
            yield sequence


def _enumerated_makespan(instance):
    """The optimum over every global sequence (hence every tuple of orders), by plain enumeration."""
    best = math.inf
    for sequence in _topological_sequences(instance):
        solution = timing(instance, orders_from_sequence(instance, sequence))
        if solution is not None:
            best = min(
                best, max(s + b.duration for row in solution.start for s, b in zip(row, instance.blocks, strict=True))
            )
    return best


@settings(max_examples=60, deadline=None)
@given(instance=instances(max_jobs=6))
def test_brute_force_matches_plain_enumeration_and_the_bounds(instance):
    result = solve(instance, "brute-force", time_limit=60, stop_at_bound=False)
    expected = _enumerated_makespan(instance)
    if expected == math.inf:
        assert result.status is Status.INFEASIBLE
        return
    assert result.status is Status.OPTIMAL
    assert result.objective == expected
    assert bounds.best(instance) <= expected
    for name, value in bounds.all_bounds(instance).items():
        assert value <= expected, name
    stopped = solve(instance, "brute-force", time_limit=60)
    assert stopped.objective == expected


@settings(max_examples=60, deadline=None)
@given(instance=instances(max_jobs=9), data=st.data())
def test_semi_active_timing_of_random_orders_is_valid(instance, data):
    jobs = [(m, b) for m in range(instance.micro_batches) for b in instance.topological_order()]
    # a random sequence consistent with the edges: repeatedly take any job whose predecessors are done
    done, sequence, predecessors = set(), [], instance.predecessors()
    while len(sequence) < len(jobs):
        ready = [job for job in jobs if job not in done and all((job[0], u) in done for u, _ in predecessors[job[1]])]
        job = data.draw(st.sampled_from(ready))
        done.add(job)
        sequence.append(job)
    orders = orders_from_sequence(instance, sequence)
    start = semi_active(instance, orders)
    assert start is not None
    unlimited = replace(instance, memory_limit=(None,) * instance.devices)
    assert validate(unlimited, Solution.makespan(start)) == []
    solution = timing(instance, orders)
    assert (solution is not None) == orders_fit(instance, orders)
    if solution is not None:
        assert validate(instance, solution) == []
        peaks = [max([0] + [lvl for _, lvl in _levels(instance, solution, d)]) for d in range(instance.devices)]
        assert peaks == order_peaks(instance, orders)  # the memory-order lemma


def _levels(instance, solution, device):
    from hpcsched.pipeline.model import makespan_levels

    return makespan_levels(instance, solution, device)


def test_orders_against_the_edges_have_no_timing():
    instance = generate_uniform(devices=2, n=1)
    backwards = (((0, 3), (0, 0)), ((0, 1), (0, 2)))  # B0 before F0 on device 0
    assert semi_active(instance, backwards) is None


@settings(max_examples=40, deadline=None)
@given(instance=instances())
def test_sequential_is_valid_and_never_below_the_bounds(instance):
    result = solve(instance, "sequential", time_limit=10)
    if result.status is Status.INFEASIBLE:
        return
    if result.status is Status.NOT_APPLICABLE:
        assert "does not fit" in result.notes[0]
        return
    assert result.status is Status.FEASIBLE
    assert result.objective >= bounds.best(instance)


def _overlaps_modulo(instance, period, rows):
    """True when two executions on a device share a unit slot modulo ``period`` (the definition, slot by slot)."""
    busy = set()
    for row in rows:
        for b, block in enumerate(instance.blocks):
            for t in range(row[b], row[b] + block.duration):
                for device in block.devices:
                    if (device, t % period) in busy:
                        return True
                    busy.add((device, t % period))
    return False


def _period_by_enumeration(instance, upper):
    """The least period <= upper with a schedule whose offsets lie in [0, P + horizon): plain enumeration."""
    count = instance.n_blocks
    jobs = instance.micro_batches * count
    edges = [(e.source, e.target, instance.blocks[e.source].duration + e.delay) for e in instance.edges]
    for period in range(1, upper + 1):
        for flat in itertools.product(range(period + horizon_span(instance, period)), repeat=jobs):
            rows = [flat[r * count : (r + 1) * count] for r in range(instance.micro_batches)]
            # quick filters (precedence, then overlap modulo P: validate costs ~0.3 ms, 95% of the run); validate decides
            if any(row[v] < row[u] + gap for row in rows for u, v, gap in edges) or _overlaps_modulo(
                instance, period, rows
            ):
                continue
            if validate(instance, Solution.periodic(period, rows)) == []:
                return period
    return None


@settings(max_examples=40, deadline=None)
@given(instance=block_graphs(max_blocks=3, max_devices=2, objective="period", max_micro=1) | instances("period", 3))
def test_period_brute_force_matches_plain_enumeration(instance):
    result = solve(instance, "brute-force", time_limit=60)
    if result.status is Status.INFEASIBLE:
        return
    assert result.status is Status.OPTIMAL
    assert bounds.best(instance) <= result.objective
    assert _period_by_enumeration(instance, int(result.objective)) == result.objective


@pytest.mark.parametrize(("devices", "peaks"), [(2, [2, 1]), (3, [3, 2, 1]), (4, [4, 3, 2, 1])])
def test_tessel_vshape_repetend_is_found(devices, peaks):
    """Tessel's vshape (F 1, +1; B 3, -1; memory = devices): a 0-bubble repetend, peaks D, ..., 1."""
    instance = generate_uniform(devices=devices, forward=1, backward=3, memory_limit=devices, objective="period")
    result = solve(instance, "brute-force", time_limit=60, max_period_jobs=8)
    assert result.status is Status.OPTIMAL and result.objective == 4
    kpis = evaluate(instance, result.solution)
    assert kpis["bubble"] == 0
    assert [kpis[f"peak_memory_{d}"] for d in range(devices)] == peaks
