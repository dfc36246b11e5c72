"""Special cases, lower bounds and heuristics against the optimum (brute force)."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from hypothesis import given, settings
from reference import proven_optimum

from hpcsched import solve
from hpcsched.core.deadline import Deadline
from hpcsched.core.errors import OptionError
from hpcsched.core.result import Status
from hpcsched.transfers import HEURISTIC_METHODS, Instance, Simulator, bounds, generate_uniform
from hpcsched.transfers.heuristics import DYNAMIC_METHODS, dynamic_order, dynamic_priorities
from hpcsched.transfers.heuristics.search import _best_insertion

from .transfers_strategies import small_instances


@settings(max_examples=40, deadline=None)
@given(small_instances(max_n=5))
def test_johnson_is_optimal_whenever_its_schedule_fits(instance):
    johnson = solve(instance, "johnson")
    assert johnson.status in (Status.OPTIMAL, Status.FEASIBLE)
    optimum = proven_optimum(instance, "brute-force")
    assert johnson.objective >= optimum
    if johnson.status is Status.OPTIMAL:
        assert johnson.objective == optimum


@settings(max_examples=25, deadline=None)
@given(small_instances(max_n=5, capacity="unlimited"))
def test_johnson_with_unlimited_memory_is_optimal_and_agrees(instance):
    johnson = solve(instance, "johnson")
    assert johnson.status is Status.OPTIMAL
    assert johnson.objective == proven_optimum(instance, "brute-force")
    assert johnson.objective == proven_optimum(instance, "cpsat")


@settings(max_examples=25, deadline=None)
@given(small_instances(max_n=5, capacity="sequential"))
def test_sequential_case(instance):
    result = solve(instance, "sequential")
    assert result.status is Status.OPTIMAL
    assert result.objective == sum(t.transfer + t.compute for t in instance.tasks)
    assert result.objective == proven_optimum(instance, "brute-force")


def test_sequential_not_applicable():
    instance = Instance.create([1, 1], [1, 1], [5, 5], 10)
    assert solve(instance, "sequential").status is Status.NOT_APPLICABLE


@settings(max_examples=30, deadline=None)
@given(small_instances(max_n=5))
def test_heuristics_between_bound_and_optimum(instance):
    optimum = proven_optimum(instance, "brute-force")
    lower = bounds.best(instance)
    for name, value in bounds.all_bounds(instance).items():
        assert value <= optimum, name
    for method in HEURISTIC_METHODS:
        # the two searches get an iteration budget (they would otherwise run to the time limit)
        budget = {"ils": {"max_iterations": 300}, "iterated-greedy": {"max_iterations": 20}}.get(method, {})
        result = solve(instance, method, time_limit=1, **budget)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE), (method, result.notes)
        assert lower <= optimum <= result.objective, method
        assert result.bound == lower
        if result.status is Status.OPTIMAL:
            assert result.objective == optimum


@settings(max_examples=40, deadline=None)
@given(small_instances(max_n=6))
def test_clique_bound_matches_networkx(instance):
    graph = nx.Graph()
    for i, task in enumerate(instance.tasks):
        graph.add_node(i, weight=task.transfer + task.compute)
    for i, j in itertools.combinations(range(instance.n), 2):
        if instance.tasks[i].memory + instance.tasks[j].memory > instance.capacity:
            graph.add_edge(i, j)
    _, weight = nx.max_weight_clique(graph, weight="weight")
    assert bounds.clique_bound(instance) == weight


def test_bounds_by_hand():
    # c = (2, 3), p = (4, 1), m = (6, 4), M = 9: Johnson order a, b: link 0-2, 2-5; device 2-6, 6-7 -> 7.
    instance = Instance.create([2, 3], [4, 1], [6, 4], 9)
    assert bounds.johnson_bound(instance) == 7
    assert bounds.memory_bound(instance) == -(-(6 * 6 + 4 * 4) // 9)  # ceil(52 / 9) = 6
    assert bounds.clique_bound(instance) == 6 + 4  # 6 + 4 > 9: never together
    assert bounds.best(instance) == 10


def test_dynamic_rules_agree_with_the_simulator():
    instance = generate_uniform(seed=5, n=300, memory_factor=1.5)
    simulator = Simulator(instance)
    for name, priority in dynamic_priorities(instance).items():
        order = dynamic_order(instance, priority)
        assert sorted(order) == list(range(instance.n))
        assert solve(instance, name).objective == simulator.makespan(order)


def test_dynamic_rules_run_at_scale():
    # O(n log n): 20,000 tasks in well under a second each (no clock assert: the suite's time shows a regression)
    instance = generate_uniform(seed=1, n=20_000, memory_factor=3)
    for name in DYNAMIC_METHODS:
        result = solve(instance, name)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


def test_ils_is_seeded():
    instance = generate_uniform(seed=2, n=15, memory_factor=1.5)
    first = solve(instance, "ils", seed=4, max_iterations=500, time_limit=30)
    second = solve(instance, "ils", seed=4, max_iterations=500, time_limit=30)
    assert first.solution == second.solution


def test_iterated_greedy_is_seeded_and_reproducible_without_time_limit():
    instance = generate_uniform(seed=2, n=15, memory_factor=1.5)
    first = solve(instance, "iterated-greedy", seed=4, max_iterations=30)
    second = solve(instance, "iterated-greedy", seed=4, max_iterations=30)
    assert first.solution == second.solution
    assert "30 iterations" in first.notes[1]


@settings(max_examples=30, deadline=None)
@given(small_instances(max_n=8))
def test_iterated_greedy_never_worse_than_its_start(instance):
    neh = solve(instance, "neh")
    searched = solve(instance, "iterated-greedy", max_iterations=10)
    assert searched.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert bounds.best(instance) <= searched.objective <= neh.objective


def test_iterated_greedy_stops_at_the_bound():
    # Unlimited memory: Johnson's order meets Johnson's bound, so no iteration is needed.
    instance = generate_uniform(seed=1, n=12, memory_factor=100)
    result = solve(instance, "iterated-greedy", max_iterations=1000)
    assert result.status is Status.OPTIMAL
    assert result.objective == bounds.best(instance)
    assert "0 iterations" in result.notes[1]


def test_iterated_greedy_beats_ils_on_a_tight_n50_instance():
    # The regime the search was added for (benchmarks/transfers, section 9): n = 50, memory
    # 1.5x max m, the same number of simulations for both: 60 iterations x 4 reinsertions
    # x ~50 positions for iterated greedy, 12,000 moves for ILS.
    instance = generate_uniform(seed=1, n=50, memory_factor=1.5)
    greedy = solve(instance, "iterated-greedy", max_iterations=60)
    ils = solve(instance, "ils", max_iterations=12_000, time_limit=600)
    assert greedy.objective < ils.objective


def test_iterated_greedy_keeps_its_deadline_on_a_large_instance():
    # One best insertion at n = 3,000 scans 3,000 simulations (tens of seconds): the deadline
    # is checked inside it, not only between iterations, so a limit that has passed before the
    # first insertion ends the search with no iteration (without the clock: the count says it).
    instance = generate_uniform(seed=0, n=3000, memory_factor=1.5)
    result = solve(instance, "iterated-greedy", time_limit=1e-6)
    assert result.status is Status.FEASIBLE
    assert "; 0 iterations;" in result.notes[1], result.notes


def test_an_insertion_scan_stops_at_a_passed_deadline():
    # the check sits inside the scan of positions, so one insertion at n = 100,000 cannot outlast the limit
    instance = generate_uniform(seed=0, n=50, memory_factor=1.5)
    simulator = Simulator(instance)
    assert _best_insertion(simulator, list(range(49)), 49, Deadline(at=0.0)) is None
    assert _best_insertion(simulator, list(range(49)), 49, Deadline(at=None)) is not None


def test_iterated_greedy_refuses_an_empty_destruction():
    instance = generate_uniform(seed=0, n=5, memory_factor=1.5)
    with pytest.raises(OptionError, match=r"options\.destroy"):
        solve(instance, "iterated-greedy", destroy=0)


@pytest.mark.parametrize(
    ("method", "options", "field"),
    [
        ("ils", {"max_evaluations": 5}, "options.max_evaluations"),  # the old name: refused, not ignored
        ("ils", {"max_iterations": -1}, "options.max_iterations"),
        ("neh", {"max_iterations": 5}, "options.max_iterations"),
        ("iterated-greedy", {"temperature": -0.1}, "options.temperature"),
        ("milp", {"backend": "gurobi"}, "options.backend"),
        ("milp", {"threads": 2}, "options.threads"),
        ("cpsat", {"workers": 0}, "options.workers"),
        ("cpsat", {"parameters": {"no_such_field": 1}}, "options.parameters.no_such_field"),
        ("cpsat", {"parameters": {"max_deterministic_time": "soon"}}, "options.parameters.max_deterministic_time"),
        ("dp", {"max_labels": -1}, "options.max_labels"),
        ("brute-force", {"max_n": 0}, "options.max_n"),
    ],
)
def test_bad_options_fail_once_naming_the_option(method, options, field):
    instance = generate_uniform(seed=0, n=5, memory_factor=1.5)
    with pytest.raises(OptionError) as raised:
        solve(instance, method, **options)
    assert raised.value.field == field


def _overlap_bound_by_max_flow(instance):
    """LB_overlap recomputed with networkx max flow (computations -> compatible transfers)."""
    tasks, capacity = instance.tasks, instance.capacity
    graph = nx.DiGraph()
    for i, task in enumerate(tasks):
        graph.add_edge("source", ("p", i), capacity=task.compute)
        graph.add_edge(("c", i), "sink", capacity=task.transfer)
        for j, other in enumerate(tasks):
            if task.memory + other.memory <= capacity:
                graph.add_edge(("p", i), ("c", j))  # unlimited
    flow = nx.maximum_flow_value(graph, "source", "sink")
    total_c = sum(t.transfer for t in tasks)
    total_p = sum(t.compute for t in tasks)
    overlap = min(flow, total_c - min(t.transfer for t in tasks), total_p - min(t.compute for t in tasks))
    return total_c + total_p - overlap


@settings(max_examples=60, deadline=None)
@given(small_instances(max_n=8))
def test_overlap_bound_greedy_is_the_max_flow(instance):
    assert bounds.overlap_bound(instance) == _overlap_bound_by_max_flow(instance)


@settings(max_examples=60, deadline=None)
@given(small_instances(max_n=5, max_time=6))
def test_overlap_bound_never_above_brute_force(instance):
    optimum = proven_optimum(instance, "brute-force", stop_at_bound=False)
    assert bounds.overlap_bound(instance) <= optimum


def test_overlap_bound_by_hand():
    # M = 10, m = 6, 6, 3: the two big tasks never meet; c = (4, 4, 1), p = (4, 4, 1).
    # Link 9, device 9; computation of a big task overlaps only the small transfer (1 unit),
    # the small computation overlaps at most 1 unit: overlap <= 2, C >= 18 - 2 = 16.
    instance = Instance.create([4, 4, 1], [4, 4, 1], [6, 6, 3], 10)
    assert bounds.overlap_bound(instance) == 16
    assert bounds.johnson_bound(instance) == 13  # small task first: link 0-1-5-9, device 1-2, 5-9, 9-13
    assert proven_optimum(instance, "brute-force", stop_at_bound=False) >= 16
