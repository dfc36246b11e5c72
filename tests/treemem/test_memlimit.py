"""ParInnerFirstMemLimit / ParDeepestFirstMemLimit (TOPC 2015 §5.3, Theorem 5): completion, 2M, refusals."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import Instance, as_parallel, generate_harpoon, generate_random_dag, validate
from hpcsched.treemem.bounds import parallel_lower_bound
from hpcsched.treemem.heuristics.memlimit import memlimit_schedule, reduction_tree
from hpcsched.treemem.heuristics.parallel import bottom_levels
from hpcsched.treemem.model import memory_levels
from hpcsched.treemem.simulate import Graph
from hpcsched.treemem.special_cases import best_postorder_order, forest_parent, liu_optimal_order

SOLVE = dict(problem="treemem", time_limit=60)
METHODS = {"inner-first": "par-inner-first-memlimit", "deepest-first": "par-deepest-first-memlimit"}


@st.composite
def forests(draw, max_n: int = 12, max_size: int = 9) -> Instance:
    """An in-forest: node k hangs under an earlier node or is a root; times 1..3 (the parallel question)."""
    n = draw(st.integers(1, max_n))
    parents = [draw(st.integers(-1, k - 1)) for k in range(1, n)]
    edges = [(k, p) for k, p in zip(range(1, n), parents, strict=True) if p >= 0]
    if draw(st.booleans()):  # a tree half of the time
        edges = [(k, max(p, 0)) for k, p in zip(range(1, n), parents, strict=True)]
    sizes = st.lists(st.integers(0, max_size), min_size=n, max_size=n)
    times = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    return Instance.create(draw(sizes), draw(sizes), edges, times=times, name="hypothesis-forest")


def reference_peak(instance: Instance, rule: str) -> int:
    """The reference order's sequential peak on the reduction tree, written again from the rules.

    One processor, no limit: a ready inner node (all children done) runs first
    (the smallest key), else the next leaf in key order; a step holds what is
    resident plus the node's output, and the children's outputs go after it.
    Keys: post-order rank (inner-first), (-bottom level, rank) (deepest-first).
    """
    graph = Graph.of(instance)
    tree = reduction_tree(instance, graph, forest_parent(graph))
    key = list(tree.rank) if rule == "inner-first" else [(-lv, r) for lv, r in zip(tree.level, tree.rank, strict=True)]
    leaves = sorted((j for j in range(tree.size) if not tree.children[j]), key=lambda j: key[j])
    done: set[int] = set()
    resident = best = 0
    while len(done) < tree.size:
        ready = [j for j in range(tree.size) if tree.children[j] and j not in done and set(tree.children[j]) <= done]
        j = min(ready, key=lambda j: key[j]) if ready else leaves.pop(0)
        best = max(best, resident + tree.output[j])
        resident += (tree.output[j] if tree.parent[j] >= 0 else 0) - sum(tree.output[c] for c in tree.children[j])
        done.add(j)
    return best


def postorder_reduction_peak(instance: Instance) -> int:
    """The same for inner-first, in closed form on the original post-order (n leaf, virtual leaf, node)."""
    graph = Graph.of(instance)
    resident = best = 0
    for i in best_postorder_order(graph, forest_parent(graph))[0]:
        node, below = instance.nodes[i], sum(graph.output[c] for c in graph.predecessors[i])
        inner = bool(graph.predecessors[i]) or node.exec > 0
        best = max(best, resident + (max(node.exec, node.output - below) if inner else 0) + node.output)
        resident += graph.kept[i] - below
    return best


def check_run(instance: Instance, rule: str, processors: int, memory: int, fraction: float = 1.0) -> None:
    """Theorem 5 at limit ⌊fraction·M⌋ ≥ the reference peak, and what `solve` makes of it under the hard M."""
    parallel = as_parallel(instance, processors=processors, memory=memory)
    limit = int(fraction * memory)
    run, completed, reference = memlimit_schedule(parallel, rule, limit)
    assert reference == reference_peak(instance, rule)
    assert completed and limit >= reference
    start = run.start[: instance.n]
    peak = max((held for _, held in memory_levels(parallel, start)), default=0)
    assert run.peak <= 2 * limit and peak <= run.peak
    makespan = max(s + v.time for s, v in zip(start, instance.nodes, strict=True))
    # The lower bound's memory-area term holds for schedules within the instance's M: a run whose peak
    # lands in (M, 2M] is bounded with M = its peak (found by hypothesis: M = 2, peak 3, makespan 2 < 3).
    assert makespan >= parallel_lower_bound(as_parallel(instance, processors=processors, memory=max(memory, peak)))
    result = hpcsched.solve(parallel, METHODS[rule], memory_fraction=fraction, **SOLVE)
    if peak <= memory:
        assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
        assert validate(parallel, result.solution) == []
        assert result.objective == makespan
    else:  # M is hard for the parallel question: a peak in (M, 2M] is refused, never returned
        assert result.status is Status.NOT_APPLICABLE and result.solution is None
        assert f"needs memory {peak} > M = {memory}" in result.notes[-1]


@settings(max_examples=60, deadline=None)
@given(forests(), st.integers(1, 4), st.integers(0, 20), st.sampled_from(sorted(METHODS)))
@example(  # a run whose peak exceeds M: the lower bound is taken at its peak (hypothesis 6.100 found it)
    Instance.create([0, 1, 0], [1, 1, 1], [(2, 0)], times=[1, 1, 1], name="hypothesis-forest"), 2, 0, "deepest-first"
)
def test_theorem5_at_the_reference_peak_and_above(instance, processors, extra, rule):
    reference = reference_peak(instance, rule)
    if rule == "inner-first":
        assert reference == postorder_reduction_peak(instance)
    check_run(instance, rule, processors, reference)
    check_run(instance, rule, processors, reference + extra)


@settings(max_examples=40, deadline=None)
@given(forests(), st.integers(1, 4), st.sampled_from(sorted(METHODS)))
def test_half_the_memory_always_fits_m(instance, processors, rule):
    memory = 2 * reference_peak(instance, rule)
    check_run(instance, rule, processors, memory, fraction=0.5)
    parallel = as_parallel(instance, processors=processors, memory=memory)
    result = hpcsched.solve(parallel, METHODS[rule], memory_fraction=0.5, **SOLVE)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)


@settings(max_examples=40, deadline=None)
@given(forests())
def test_reduction_property(instance):
    graph = Graph.of(instance)
    tree = reduction_tree(instance, graph, forest_parent(graph))
    for j in range(tree.size):
        if tree.children[j]:
            assert tree.output[j] <= sum(tree.output[c] for c in tree.children[j])
        if j >= instance.n:
            assert tree.time[j] == 0 and not tree.children[j] and tree.output[j] > 0
        else:
            assert tree.time[j] == instance.nodes[j].time and tree.output[j] == instance.nodes[j].output
    assert sorted(tree.rank) == list(range(tree.size))


@settings(max_examples=40, deadline=None)
@given(forests())
def test_one_processor_runs_the_reference_order(instance):
    graph = Graph.of(instance)
    postorder = best_postorder_order(graph, forest_parent(graph))[0]
    memory = postorder_reduction_peak(instance)
    run, completed, _ = memlimit_schedule(as_parallel(instance, processors=1, memory=memory), "inner-first", memory)
    assert completed
    assert sorted(range(instance.n), key=lambda i: run.start[i]) == postorder
    assert max(run.start[i] + v.time for i, v in enumerate(instance.nodes)) == sum(v.time for v in instance.nodes)
    level = bottom_levels(instance, graph)
    deep, completed, _ = memlimit_schedule(as_parallel(instance, processors=1, memory=10**9), "deepest-first", 10**9)
    order = sorted(range(instance.n), key=lambda i: deep.start[i])
    leaves = [i for i in order if not graph.predecessors[i]]
    assert completed and leaves == sorted(leaves, key=lambda i: (-level[i], postorder.index(i)))


def held_back_instance() -> Instance:
    # a (leaf, f 6, time 2) -> x (f 1); x and b (leaf, f 6) -> r (f 1); no execution files
    return Instance.create(
        [0, 0, 0, 0],
        [6, 1, 6, 1],
        [(0, 1), (1, 3), (2, 3)],
        times=[2, 1, 1, 1],
        names=["a", "x", "b", "r"],
        question="parallel",
        processors=2,
        memory=8,
    )


def test_a_leaf_is_held_back_by_hand():
    # Post-order a, x, b, r (x's subtree first: P - f = 7 - 1 > 6 - 6), reference peak 8 (r: 1 + 6 + 1).
    # At 0, a starts (6); b would make 12 > 8 and waits, processor 1 idle; x runs on [2, 3) and frees a's
    # 6; b starts at 3 (held 7), r at 4 (8): makespan 5, peak 8 = M. par-inner-first starts b at 0.
    # Lemma 1's memory bound is ⌈(6·2 + 7 + 6 + 8) / 8⌉ = 5, so the makespan is proven optimal.
    instance = held_back_instance()
    assert parallel_lower_bound(instance) == 5
    result = hpcsched.solve(instance, "par-inner-first-memlimit", **SOLVE)
    assert result.status is Status.OPTIMAL and validate(instance, result.solution) == []
    assert result.solution.start == {"a": 0, "x": 2, "b": 3, "r": 4} and result.objective == 5
    uncapped = hpcsched.solve(instance, "par-inner-first", **SOLVE)
    assert uncapped.status is Status.NOT_APPLICABLE  # b at 0 holds 12 > 8


def test_refusals():
    dag = as_parallel(generate_random_dag(seed=2, n=10, edge_probability=0.5), processors=2, memory=10_000)
    for method in METHODS.values():
        assert hpcsched.solve(dag, method, **SOLVE).status is Status.NOT_APPLICABLE
        assert hpcsched.solve(generate_harpoon(), method, **SOLVE).status is Status.NOT_APPLICABLE  # sequential
        tight = as_parallel(held_back_instance(), processors=2, memory=7)  # below the sequential optimum 8
        assert hpcsched.solve(tight, method, **SOLVE).status is Status.INFEASIBLE


def test_deadlock_below_the_reference_peak_is_reported_not_returned():
    # The harpoon's optimum runs every leaf first (big + k·small); the post-order needs about 2·big.
    harpoon = generate_harpoon(k=4, big=100, small=1)
    graph = Graph.of(harpoon)
    optimum = liu_optimal_order(graph, forest_parent(graph))[1]
    instance = as_parallel(harpoon, processors=2, memory=optimum)
    assert postorder_reduction_peak(harpoon) > optimum
    result = hpcsched.solve(instance, "par-inner-first-memlimit", **SOLVE)
    assert result.status is Status.NOT_APPLICABLE and result.solution is None
    assert "deadlocked" in result.notes[-1]


@settings(max_examples=60, deadline=None)
@given(forests(), st.integers(1, 4), st.integers(0, 40), st.sampled_from(sorted(METHODS)))
def test_the_over_m_note_suggests_half_the_memory_only_where_it_completes_within_m(instance, processors, extra, rule):
    memory = reference_peak(instance, rule) + extra
    parallel = as_parallel(instance, processors=processors, memory=memory)
    result = hpcsched.solve(parallel, METHODS[rule], **SOLVE)
    if result.status is not Status.NOT_APPLICABLE or "needs memory" not in result.notes[-1]:
        return
    suggested = "memory_fraction=0.5 completes within M" in result.notes[-1]
    assert suggested == (memory // 2 >= reference_peak(instance, rule))
    if suggested:  # Theorem 5 at limit ⌊M/2⌋ ≥ the reference peak: completes, peak ≤ 2⌊M/2⌋ ≤ M
        half = hpcsched.solve(parallel, METHODS[rule], memory_fraction=0.5, **SOLVE)
        assert half.status in (Status.FEASIBLE, Status.OPTIMAL), half.notes
