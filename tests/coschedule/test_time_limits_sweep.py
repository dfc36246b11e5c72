"""Time limits found overrun by the 2026-12-04 sweep of every coschedule method at growing sizes.

``matching-paired`` and ``matching-list`` ran networkx's maximum-weight matching (O(n^3), no stop
hook) to the end: on a 256-kernel uniform instance at a 0.5 s limit they took 6.8 s and 8.2 s. The
matching now runs in a forked child stopped at the deadline, and the greedy matching (largest
saving first) stands in, said in the notes.

No wall clock (tests/workclock.py): on 128 kernels (above `IN_PROCESS_MATCHING_NODES`, so the
saving graph is built and matched in a forked child) the methods read the deadline clock when they
make their deadline and when they start the child (after the greedy matching is ready); the deadline
passes at each of these readings, and after it the method only builds its schedule from the greedy
matching (the code before the fork ran the whole blossom algorithm in process: with the matching
made in process again, the deadline passing at the matching's start fails at 5 M lines inside
``max_weight_matching``).
"""

from __future__ import annotations

import functools

import networkx as nx
import pytest
from workclock import assert_stops_promptly, solve_past_deadline

import hpcsched
from hpcsched.core.result import Status
from hpcsched.coschedule import Instance, validate
from hpcsched.coschedule.generate import generate_uniform
from hpcsched.coschedule.special_cases import GREEDY_MATCHING_NOTE, greedy_matching, saving_graph

LIMIT = 0.5


@functools.cache
def _uniform(n: int) -> Instance:
    return generate_uniform(seed=0, n=n)


@pytest.mark.parametrize("reads", [0, 2, 3])
@pytest.mark.parametrize("method", ["matching-paired", "matching-list"])
def test_matching_methods_stop_at_the_limit(method, reads):
    # readings: the registry's 2, the method's deadline, the time left for the forked matching
    instance = _uniform(128)
    result, clock = solve_past_deadline(
        instance, method, reads=reads, budget=5_000_000, problem="coschedule", time_limit=LIMIT
    )
    assert result.status is Status.FEASIBLE, result.notes
    assert GREEDY_MATCHING_NOTE in result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)


def test_greedy_matching_takes_the_heaviest_free_edge_first():
    # Savings: (0, 1) 3, (1, 2) 5, (2, 3) 3 -> greedy takes (1, 2) alone; the optimum is (0, 1) + (2, 3).

    graph = nx.Graph()
    graph.add_weighted_edges_from([(0, 1, 3.0), (1, 2, 5.0), (2, 3, 3.0)])
    assert greedy_matching(graph) == {(1, 2)}


def test_small_instance_keeps_the_maximum_weight_matching():
    # 12 kernels: matched in-process, no cut; the paired makespan is Σp minus the matched savings.

    instance = _uniform(12)
    result = hpcsched.solve(instance, "matching-paired", problem="coschedule", time_limit=LIMIT)
    assert GREEDY_MATCHING_NOTE not in result.notes
    graph = saving_graph(instance)
    saved = sum(graph.edges[a, b]["weight"] for a, b in nx.max_weight_matching(graph))
    total = sum(kernel.duration for kernel in instance.kernels)
    assert result.objective == pytest.approx(total - saved)
