"""sp-exact (TCS 2018 on series-parallel DAGs): equal to the exact methods on its class, refuses outside it.

The method is called directly (it is registered by the lead in ``treemem/__init__``); every order it returns
goes through the package's own ``validate`` and ``evaluate``. Which instances are in its class is decided
here independently of the code under test: the graphs are built by series and parallel compositions, and
the forced-last-consumer condition is checked with networkx reachability.
"""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.result import Result, Status
from hpcsched.treemem import Instance, generate_harpoon, generate_random_tree
from hpcsched.treemem.formulations import sp_exact
from hpcsched.treemem.formulations.series_parallel import min_cut_order
from hpcsched.treemem.model import evaluate, validate

from .treemem_strategies import dags, trees

SOLVE = dict(problem="treemem", time_limit=60)


def run_sp_exact(instance: Instance) -> Result:
    return sp_exact(instance, time_limit=60, seed=0, params=None)


def checked_peak(instance: Instance, result: Result) -> float:
    """The peak of the returned order, after the validator accepted it."""
    assert result.status is Status.OPTIMAL, result.notes
    assert validate(instance, result.solution) == []
    value = evaluate(instance, result.solution)["objective"]
    assert result.bound == value  # an exact method's bound is its value
    return value


def unforced_outputs(n: int, edges: list[tuple[int, int]], outputs: list[int]) -> list[int]:
    """Nodes whose non-empty output has several consumers, none reachable from all the others."""
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(range(n))
    found = []
    for u in range(n):
        consumers = list(graph.successors(u))
        forced = any(all(v == z or nx.has_path(graph, v, z) for v in consumers) for z in consumers)
        if len(consumers) > 1 and outputs[u] > 0 and not forced:
            found.append(u)
    return found


@st.composite
def series_parallel(draw, max_n: int = 8) -> Instance:
    """A two-terminal series-parallel DAG built by compositions, in sp-exact's class.

    Series composition: a new junction node between the two parts; parallel: two branches between
    the same terminals (duplicate edges dropped); a skip edge source -> target is added at random
    (the residual-connection shape that gives a shared output a forced last consumer). Shared
    outputs without one are emptied.
    """
    counter = [2]
    edges: list[tuple[int, int]] = []

    def build(size: int, source: int, target: int) -> None:
        if size == 2:
            edges.append((source, target))
        elif size >= 4 and draw(st.booleans()):
            first = draw(st.integers(3, size - 1))
            build(first, source, target)
            build(size - first + 2, source, target)
        else:
            first = draw(st.integers(2, size - 1))
            junction = counter[0]
            counter[0] += 1
            build(first, source, junction)
            build(size - first + 1, junction, target)
        if size > 2 and draw(st.integers(0, 3)) == 0:
            edges.append((source, target))

    build(draw(st.integers(2, max_n)), 0, 1)
    n = counter[0]
    unique = sorted(set(edges))
    execs = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    outputs = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    for u in unforced_outputs(n, unique, outputs):
        outputs[u] = 0
    return Instance.create(execs, outputs, unique, name="hypothesis-ttsp")


@st.composite
def weighted_ttsp(draw, max_vertices: int = 8) -> tuple[int, list[tuple[int, int, int]]]:
    """The paper's own input: an edge-weighted two-terminal SP DAG (source 0, sink 1; parallel edges kept)."""
    counter = [2]
    edges: list[tuple[int, int, int]] = []

    def build(size: int, source: int, target: int) -> None:
        if size == 2:
            edges.append((source, target, draw(st.integers(0, 9))))
        elif size >= 4 and draw(st.booleans()):
            first = draw(st.integers(3, size - 1))
            build(first, source, target)
            build(size - first + 2, source, target)
        else:
            first = draw(st.integers(2, size - 1))
            junction = counter[0]
            counter[0] += 1
            build(first, source, junction)
            build(size - first + 1, junction, target)
        if size > 2 and draw(st.integers(0, 4)) == 0:
            edges.append((source, target, draw(st.integers(0, 9))))

    build(draw(st.integers(2, max_vertices)), 0, 1)
    return counter[0], edges


def largest_cut_by_brute_force(n_vertices: int, edges: list[tuple[int, int, int]]) -> int:
    """The least largest cut over every topological order (networkx enumerates them)."""
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(range(n_vertices))
    graph.add_edges_from((u, v) for u, v, _ in edges)
    best = None
    for order in nx.all_topological_sorts(graph):
        position = {v: k for k, v in enumerate(order)}
        largest = max(sum(w for u, v, w in edges if position[u] <= k < position[v]) for k in range(n_vertices))
        best = largest if best is None else min(best, largest)
    assert best is not None
    return best


@settings(max_examples=200, deadline=None)
@given(weighted_ttsp())
def test_the_paper_s_edge_weighted_problem_against_brute_force(case):
    # in treemem's class the branches of a parallel composition start with an empty cut, so this is
    # the test that exercises the out-tree half (the reversed merge of the parts before the minimum cuts)
    n_vertices, edges = case
    found = min_cut_order(n_vertices, edges, 0, 1)
    assert found is not None
    order, largest = found
    assert sorted(order) == list(range(n_vertices))
    position = {v: k for k, v in enumerate(order)}
    assert all(position[u] < position[v] for u, v, _ in edges)
    recomputed = max(sum(w for u, v, w in edges if position[u] <= k < position[v]) for k in range(n_vertices))
    assert largest == recomputed == largest_cut_by_brute_force(n_vertices, edges)


def test_the_edge_weighted_problem_refuses_a_graph_that_is_not_two_terminal_sp():
    # the bridge (Wheatstone): 0 -> 2, 0 -> 3, 2 -> 3, 2 -> 1, 3 -> 1
    assert min_cut_order(4, [(0, 2, 1), (0, 3, 1), (2, 3, 1), (2, 1, 1), (3, 1, 1)], 0, 1) is None


# 60 examples (150 took 3-8 s, brute force 30 ms each): the heaviest series piece first, Liu's merge
# ascending, or branches concatenated unmerged each fail within 40; the dp test below covers up to 20 nodes
@settings(max_examples=60, deadline=None)
@given(series_parallel(max_n=8))
def test_equals_brute_force_on_small_series_parallel_graphs(instance):
    optimum = hpcsched.solve(instance, "brute-force", **SOLVE)
    assert optimum.status is Status.OPTIMAL
    assert checked_peak(instance, run_sp_exact(instance)) == optimum.objective


@settings(max_examples=40, deadline=None)
@given(series_parallel(max_n=20))
def test_equals_dp_on_series_parallel_graphs_up_to_20_nodes(instance):
    optimum = hpcsched.solve(instance, "dp", **SOLVE)
    assert optimum.status is Status.OPTIMAL
    assert checked_peak(instance, run_sp_exact(instance)) == optimum.objective


@settings(max_examples=60, deadline=None)
@given(trees(max_n=30))
def test_equals_liu_on_in_trees(instance):
    # an in-tree with a virtual source before its leaves is series-parallel and shares no output
    assert checked_peak(instance, run_sp_exact(instance)) == hpcsched.solve(instance, "liu-optimal", **SOLVE).objective


@settings(max_examples=200, deadline=None)
@given(dags(max_n=8))
def test_on_random_dags_it_is_exact_where_it_answers_and_refuses_shared_outputs(instance):
    result = run_sp_exact(instance)
    n, edges = instance.n, list(instance.edges)
    if unforced_outputs(n, edges, list(instance.outputs)):
        assert result.status is Status.NOT_APPLICABLE
        assert "several consumers" in result.notes[0]
        return
    if result.status is Status.NOT_APPLICABLE:
        assert "not series-parallel" in result.notes[0]
        return
    assert checked_peak(instance, result) == hpcsched.solve(instance, "brute-force", **SOLVE).objective


def test_a_graph_that_is_not_series_parallel_is_refused():
    # the N: a -> c, b -> c, b -> d (b's output empty, so only the shape is at fault)
    instance = Instance.create([1, 2, 3, 1], [5, 0, 6, 2], [(0, 2), (1, 2), (1, 3)])
    result = run_sp_exact(instance)
    assert result.status is Status.NOT_APPLICABLE
    assert result.solution is None
    assert "not series-parallel" in result.notes[0]


def test_a_shared_output_without_a_forced_last_consumer_is_refused():
    # diamond u -> {a, b} -> t: u's output is freed after a or after b, whichever ends last
    diamond = [(0, 1), (0, 2), (1, 3), (2, 3)]
    result = run_sp_exact(Instance.create([1, 2, 3, 1], [5, 4, 6, 2], diamond))
    assert result.status is Status.NOT_APPLICABLE
    assert "'v0'" in result.notes[0]
    # with a skip edge u -> t, t is always the last consumer: in the class
    with_skip = Instance.create([1, 2, 3, 1], [5, 4, 6, 2], [*diamond, (0, 3)])
    assert (
        checked_peak(with_skip, run_sp_exact(with_skip)) == hpcsched.solve(with_skip, "brute-force", **SOLVE).objective
    )
    # an empty shared output is in the class too
    empty = Instance.create([1, 2, 3, 1], [0, 4, 6, 2], diamond)
    assert checked_peak(empty, run_sp_exact(empty)) == hpcsched.solve(empty, "brute-force", **SOLVE).objective


def test_other_questions_are_refused():
    instance = Instance.create([1], [1], [], question="out-of-core", memory=5)
    assert run_sp_exact(instance).status is Status.NOT_APPLICABLE


def test_harpoon_and_a_large_tree_match_liu():
    for instance in (generate_harpoon(k=10, big=1000), generate_random_tree(seed=7, n=3000)):
        expected = hpcsched.solve(instance, "liu-optimal", **SOLVE).objective
        assert checked_peak(instance, run_sp_exact(instance)) == expected


def test_deep_nesting_needs_no_recursion():
    # level k: s_k -> s_{k-1} ... t_{k-1} -> t_k in parallel with a skip edge s_k -> t_k, 1500 levels
    # deep (3000 alternating series and parallel compositions: far past Python's recursion limit)
    depth = 1500
    edges = [(0, 1)]  # level 0: s_0 = 0, t_0 = 1; level k: s_k = 2k, t_k = 2k + 1
    for k in range(1, depth + 1):
        edges += [(2 * k, 2 * k - 2), (2 * k - 1, 2 * k + 1), (2 * k, 2 * k + 1)]
    n = 2 * depth + 2
    instance = Instance.create([k % 5 for k in range(n)], [1 + k % 7 for k in range(n)], edges)
    value = checked_peak(instance, run_sp_exact(instance))
    assert value >= hpcsched.treemem.lower_bound(instance)
