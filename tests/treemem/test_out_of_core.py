"""Out-of-core question (MinIO): validator from the definition, exact methods cross-checked, heuristics above them."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.deadline import Deadline
from hpcsched.core.errors import InvalidSolutionError
from hpcsched.core.result import Status
from hpcsched.treemem import (
    OUT_OF_CORE_EXACT,
    OUT_OF_CORE_HEURISTICS,
    Instance,
    Solution,
    as_out_of_core,
    evaluate,
    generate_harpoon,
    generate_random_tree,
    validate,
)
from hpcsched.treemem.formulations import cheapest_gaps
from hpcsched.treemem.heuristics import evict
from hpcsched.treemem.heuristics.out_of_core import solution_of, traversal_order
from hpcsched.treemem.simulate import Graph

from .treemem_strategies import io_dags, io_trees

SOLVE = dict(problem="treemem", time_limit=60)


def tight(instance: Instance, extra: int = 0) -> Instance:
    """The out-of-core question with M = max MemReq + extra (the least feasible memory when extra = 0)."""
    graph = Graph.of(instance)
    return as_out_of_core(instance, memory=max(graph.memreq(i) for i in range(graph.n)) + extra)


def small_tree() -> Instance:
    """r <- a, r <- b: a leaves 4 resident, b needs 6 + 1 while it runs."""
    return Instance.create(
        [0, 6, 0], [4, 1, 0], [(0, 2), (1, 2)], names=["a", "b", "r"], question="out-of-core", memory=7
    )


def test_hand_example_counts_written_bytes_and_checks_every_event():
    instance = small_tree()
    # a first: b's step needs 4 + 6 + 1 = 11 > 7 unless a is evicted around it
    assert [v.rule for v in validate(instance, Solution(("a", "b", "r"), io=()))] == ["memory"]
    evicted = Solution(("a", "b", "r"), io=(("evict", "a", 1), ("reload", "a", 2)))
    assert validate(instance, evicted) == []
    kpis = evaluate(instance, evicted)
    assert kpis["objective"] == 4 and kpis["bytes_read"] == 4 and kpis["io_volume"] == 8
    assert kpis["peak_memory"] == 7
    # b first needs no I/O: the optimum is 0
    assert validate(instance, Solution(("b", "a", "r"), io=())) == []
    for method in (*OUT_OF_CORE_EXACT, *OUT_OF_CORE_HEURISTICS):
        result = hpcsched.solve(instance, method, **SOLVE)
        assert result.status is Status.OPTIMAL and result.objective == 0, method


def test_each_rule_of_the_definition_is_enforced():
    instance = small_tree()
    kinds = lambda io: [v.rule for v in validate(instance, Solution(("a", "b", "r"), io=io))]  # noqa: E731
    assert "reload-not-evicted" in kinds((("reload", "a", 2),))
    assert "evict-not-resident" in kinds((("evict", "b", 1),))  # b is not produced yet at position 1
    assert "input-not-resident" in kinds((("evict", "a", 1),))  # never reloaded before r
    assert "io-position" in kinds((("evict", "a", 3), ("reload", "a", 2)))
    assert "io-kind" in kinds((("spill", "a", 1),))
    assert "unknown-node" in kinds((("evict", "zz", 1),))
    # a reload that does not fit is refused at the event, before the step runs
    tighter = Instance.create(
        [0, 0, 0], [4, 4, 0], [(0, 2), (1, 2)], names=["a", "b", "r"], question="out-of-core", memory=8
    )
    moved = Solution(("a", "b", "r"), io=(("evict", "a", 1), ("reload", "a", 1), ("evict", "a", 2), ("reload", "a", 2)))
    assert validate(tighter, moved) == []
    assert any(
        v.rule == "memory"
        for v in validate(
            Instance.create(
                [0, 0, 0], [4, 4, 0], [(0, 2), (1, 2)], names=["a", "b", "r"], question="out-of-core", memory=7
            ),
            moved,
        )
    )


def test_io_events_belong_to_the_out_of_core_question_and_files_round_trip():
    instance = small_tree()
    sequential = Instance.create([0, 6, 0], [4, 1, 0], [(0, 2), (1, 2)], names=["a", "b", "r"])
    assert [v.rule for v in validate(sequential, Solution(("a", "b", "r"), io=()))] == ["kind"]
    solution = Solution(("a", "b", "r"), io=(("evict", "a", 1), ("reload", "a", 2)))
    assert Solution.from_data(solution.to_data(), instance=instance) == solution
    with pytest.raises(InvalidSolutionError) as error:
        Solution.from_data({"order": ["a", "b", "r"], "io": [["evict", "a"]]}, instance=instance)
    assert "solution.io[0]" in str(error.value)
    with pytest.raises(InvalidSolutionError) as error:
        Solution.from_data({"order": ["a", "b", "r"], "io": [["evict", "q", 1]]}, instance=instance)
    assert "solution.io[0][1]" in str(error.value)


def test_sequential_methods_refuse_the_question_and_infeasible_memory_is_reported():
    instance = small_tree()
    assert hpcsched.solve(instance, "dp", **SOLVE).status is Status.NOT_APPLICABLE
    assert (
        hpcsched.solve(
            tight(small_tree().__class__.create([0, 6, 0], [4, 1, 0], [(0, 2), (1, 2)])), "liu-optimal", **SOLVE
        ).status
        is Status.NOT_APPLICABLE
    )
    starved = Instance.create([0, 6, 0], [4, 1, 0], [(0, 2), (1, 2)], question="out-of-core", memory=6)
    for method in (*OUT_OF_CORE_EXACT, *OUT_OF_CORE_HEURISTICS):
        result = hpcsched.solve(starved, method, **SOLVE)
        assert result.status is Status.INFEASIBLE and "needs 7" in result.notes[0], method


@settings(max_examples=40, deadline=None)
@given(io_trees(max_n=7))
def test_exact_methods_agree_and_heuristics_never_beat_them_on_trees(instance):
    optimum = hpcsched.solve(instance, "brute-force-io", **SOLVE)
    assert optimum.status is Status.OPTIMAL
    milp = hpcsched.solve(instance, "milp-io", **SOLVE)
    assert milp.status is Status.OPTIMAL and milp.objective == optimum.objective
    for method in OUT_OF_CORE_HEURISTICS:
        for traversal in ("liu-optimal", "best-postorder"):
            result = hpcsched.solve(instance, method, traversal=traversal, **SOLVE)
            assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
            assert result.objective >= optimum.objective, (method, traversal)
            assert result.bound <= optimum.objective


@settings(max_examples=30, deadline=None)
@given(io_dags(max_n=6))
def test_heuristics_never_beat_brute_force_on_dags(instance):
    optimum = hpcsched.solve(instance, "brute-force-io", **SOLVE)
    assert optimum.status is Status.OPTIMAL
    for method in OUT_OF_CORE_HEURISTICS:
        result = hpcsched.solve(instance, method, **SOLVE)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE) and result.objective >= optimum.objective
        # no bound is proven on a DAG that is not an in-forest: None, not a placeholder 0
        if result.objective > 0 and not instance.is_in_forest:
            assert result.bound is None and result.status is Status.FEASIBLE, method


def three_leaves(memory: int) -> Instance:
    """Three leaves (exec 10, output 5) under a root: whatever the order, the third leaf's step holds
    10 bytes of waiting outputs plus its own 15, so the in-core optimum is 25."""
    return Instance.create(
        [10, 10, 10, 0],
        [5, 5, 5, 0],
        [(0, 3), (1, 3), (2, 3)],
        names=["a", "b", "c", "r"],
        question="out-of-core",
        memory=memory,
    )


@pytest.mark.parametrize(("memory", "optimum"), [(15, 10), (20, 5), (25, 0)])
def test_heuristics_report_the_in_core_optimum_minus_m_as_their_bound(memory, optimum):
    # by hand: at M = 15 the second leaf's step needs 20 (evict the first output, 5 bytes) and the
    # third's 25 (evict both waiting outputs, 10 bytes in all); at M = 20 only the third's step is over
    # by 5; at M = 25 nothing. Every traversal is the same up to the leaf names, so each rule is optimal
    # and the bound max(0, 25 - M) meets it.
    instance = three_leaves(memory)
    assert hpcsched.solve(instance, "brute-force-io", **SOLVE).objective == optimum
    for method in OUT_OF_CORE_HEURISTICS:
        result = hpcsched.solve(instance, method, **SOLVE)
        assert (result.status, result.objective, result.bound) == (Status.OPTIMAL, optimum, optimum), method


@settings(max_examples=40, deadline=None)
@given(io_dags(max_n=8), st.sampled_from(["belady", "largest", "first-fit", "best-fit"]), st.data())
def test_validator_refuses_mutated_solutions(instance, policy, data):
    graph = Graph.of(instance)
    order = traversal_order(instance, graph, "greedy")
    solution = solution_of(instance, order, evict(graph, order, instance.memory, policy))
    assert validate(instance, solution) == []
    if solution.io:
        events = list(solution.io)
        k = data.draw(st.integers(0, len(events) - 1))
        mutation = data.draw(st.sampled_from(["drop", "duplicate", "late-reload"]))
        kind, name, position = events[k]
        if mutation == "drop":  # the partner event is left dangling, or the consumer finds its input on disk
            del events[k]
        elif mutation == "duplicate":  # a second evict of the same output / reload of a resident one
            events.insert(k + 1, events[k])
        else:  # every reload happens right before a consumer: one position later is too late
            assume(kind == "reload" and position + 1 < instance.n)
            events[k] = (kind, name, position + 1)
        assert validate(instance, Solution(solution.order, io=tuple(events))) != []
    # one byte less memory than the solution's peak is refused
    peak = int(evaluate(instance, solution)["peak_memory"])
    assume(peak >= 1)
    smaller = Instance.from_data({**instance.to_data(), "memory": peak - 1}, name="smaller")
    assert validate(smaller, solution) != []


@settings(max_examples=30, deadline=None)
@given(io_trees(max_n=8))
def test_cheapest_gaps_is_exact_on_a_fixed_order(instance):
    """On the fixed order, no heuristic eviction set is cheaper than the exact search's."""
    graph = Graph.of(instance)
    order = traversal_order(instance, graph, "best-postorder")
    exact = cheapest_gaps(graph, order, instance.memory)
    assert exact is not None
    for policy in ("belady", "largest", "first-fit", "best-fit"):
        assert sum(g.size for g in evict(graph, order, instance.memory, policy)) >= sum(g.size for g in exact)


def test_harpoon_needs_io_below_its_in_core_optimum():
    harpoon = as_out_of_core(generate_harpoon(k=3, big=30, small=1), fraction=0.9)
    result = hpcsched.solve(harpoon, "milp-io", **SOLVE)
    assert result.status is Status.OPTIMAL and result.objective > 0
    assert all(hpcsched.solve(harpoon, m, **SOLVE).objective >= result.objective for m in OUT_OF_CORE_HEURISTICS)


def test_tiny_time_limits_return_promptly_without_raising():
    instance = tight(generate_random_tree(seed=3, n=8))
    for method in (*OUT_OF_CORE_EXACT, *OUT_OF_CORE_HEURISTICS):
        result = hpcsched.solve(instance, method, problem="treemem", time_limit=1e-9)
        assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE, Status.OPTIMAL), method
    assert Deadline.after(1e-9).remaining() >= 0


def test_plot_draws_the_profile_with_evictions():
    import matplotlib.pyplot as plt

    from hpcsched.treemem import plot_solution

    instance = small_tree()
    ax = plot_solution(instance, Solution(("a", "b", "r"), io=(("evict", "a", 1), ("reload", "a", 2))))
    assert "4 bytes written" in ax.get_title() and len(ax.get_lines()) == 3
    plt.close(ax.figure)
