"""sp-ization: a valid traversal, never below the exact optimum (it is a heuristic upper bound)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import Instance, generate_harpoon

from .treemem_strategies import trees

SOLVE = dict(problem="treemem", time_limit=60)


@st.composite
def series_parallel(draw, max_n: int = 9) -> Instance:
    """A vertex series-parallel DAG: series joins every sink of A to every source of B; parallel is a disjoint union."""

    def build(budget: int, first: int) -> tuple[list[int], list[tuple[int, int]]]:
        if budget == 1:
            return [first], []
        left = draw(st.integers(1, budget - 1))
        a_nodes, a_edges = build(left, first)
        b_nodes, b_edges = build(budget - left, first + left)
        edges = a_edges + b_edges
        if draw(st.booleans()):  # series
            a_sinks = [u for u in a_nodes if all(e[0] != u for e in a_edges)]
            b_sources = [v for v in b_nodes if all(e[1] != v for e in b_edges)]
            edges += [(u, v) for u in a_sinks for v in b_sources]
        return a_nodes + b_nodes, edges

    n = draw(st.integers(1, max_n))
    _, edges = build(n, 0)
    execs = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    outputs = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    return Instance.create(execs, outputs, edges, name="hypothesis-sp")


@settings(max_examples=40, deadline=None)
@given(series_parallel())
def test_never_below_the_exact_dp_on_series_parallel_graphs(instance):
    optimum = hpcsched.solve(instance, "dp", **SOLVE)
    result = hpcsched.solve(instance, "sp-ization", **SOLVE)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert result.objective >= optimum.objective >= result.bound


@settings(max_examples=40, deadline=None)
@given(trees(max_n=12))
def test_never_below_liu_on_trees(instance):
    assert (
        hpcsched.solve(instance, "sp-ization", **SOLVE).objective
        >= hpcsched.solve(instance, "liu-optimal", **SOLVE).objective
    )


def test_harpoon_is_solved_where_post_orders_fail():
    # measured: sp-ization finds M + k on the harpoons, every post-order needs about 2M
    harpoon = generate_harpoon(k=10, big=1000)
    assert (
        hpcsched.solve(harpoon, "sp-ization", **SOLVE).objective
        == hpcsched.solve(harpoon, "liu-optimal", **SOLVE).objective
    )
    assert hpcsched.solve(harpoon, "best-postorder", **SOLVE).objective > 1.8 * 1000


def test_other_questions_are_refused():
    instance = Instance.create([1], [1], [], question="out-of-core", memory=5)
    assert hpcsched.solve(instance, "sp-ization", **SOLVE).status is Status.NOT_APPLICABLE
