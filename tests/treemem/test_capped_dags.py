"""The capped list schedules on DAGs: a valid schedule or an honest status, never a false "time limit".

When the capped rule deadlocks (every processor idle, nothing ready fits M), a
sequential order whose peak fits M is a valid schedule on one processor. On
in-forests it is Liu's; on other DAGs the first that fits of the spanning-forest,
DFS and greedy orders, and NOT_APPLICABLE (saying so) when none does.
TIME_LIMIT_NO_SOLUTION only when the limit was reached.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import Instance, as_parallel, generate_random_dag
from hpcsched.treemem.heuristics import dfs_order, forest_order, greedy_order
from hpcsched.treemem.simulate import Graph, peak

CAPPED = ("par-inner-first-capped", "par-deepest-first-capped")
SOLVE = dict(problem="treemem", time_limit=600)


def _deadlocking_dag() -> Instance:
    """Six nodes, two processors, M = the least peak of the three sequential orders: both rules deadlock."""
    edges = [(0, 1), (0, 2), (0, 4), (1, 2), (1, 3), (1, 4), (2, 4), (2, 5), (3, 5), (4, 5)]
    dag = Instance.create([0, 3, 1, 1, 3, 2], [3, 3, 4, 3, 3, 2], edges, times=[2, 2, 2, 1, 1, 1], name="deadlock")
    return as_parallel(dag, processors=2, memory=16)


def _sequential_peaks(instance: Instance) -> list[int]:
    graph = Graph.of(instance)
    return [peak(graph, order(graph)) for order in (forest_order, dfs_order, greedy_order)]


@pytest.mark.parametrize("method", CAPPED)
def test_a_deadlock_on_a_dag_falls_back_to_a_sequential_order_that_fits(method):
    instance = _deadlocking_dag()
    assert min(_sequential_peaks(instance)) <= instance.memory
    result = hpcsched.solve(instance, method, **SOLVE)
    # was TIME_LIMIT_NO_SOLUTION in 0.0 s ("deadlocked ... no fallback order")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert "deadlocked under M" in result.notes[0]
    assert result.objective >= result.bound


def test_auto_answers_a_parallel_dag_above_30_nodes_whose_capped_rule_deadlocks():
    dag = generate_random_dag(seed=0, n=40, edge_probability=0.1)
    instance = as_parallel(dag, processors=3, memory=min(_sequential_peaks(dag)))
    result = hpcsched.solve(instance, "auto", **SOLVE)
    assert result.status is Status.FEASIBLE, result.notes  # was TIME_LIMIT_NO_SOLUTION
    assert result.notes[-1] == "auto ran par-inner-first-capped"


@st.composite
def parallel_dags(draw) -> Instance:
    """A DAG of 2-9 nodes, 1-3 processors, M between the largest MemReq and the least sequential peak + 2."""
    n = draw(st.integers(2, 9))
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if draw(st.integers(0, 2)) == 0]
    sizes = st.lists(st.integers(0, 6), min_size=n, max_size=n)
    times = st.lists(st.integers(1, 3), min_size=n, max_size=n)
    dag = Instance.create(draw(sizes), draw(sizes), edges, times=draw(times), name="hypothesis-parallel-dag")
    graph = Graph.of(dag)
    memreq = max(graph.memreq(i) for i in range(n))
    least = min(_sequential_peaks(dag))
    memory = draw(st.integers(memreq, max(memreq, least + 2)))
    return as_parallel(dag, processors=draw(st.integers(1, 3)), memory=memory)


@settings(max_examples=150, deadline=None)
@given(parallel_dags())
def test_capped_rules_give_a_valid_schedule_or_an_honest_status(instance):
    fits = min(_sequential_peaks(instance)) <= instance.memory
    for method in CAPPED:
        result = hpcsched.solve(instance, method, **SOLVE)  # the registry validates every schedule (ERROR if not)
        if fits:  # a sequential order the fallback tries fits M: a schedule is always returned
            assert result.status in (Status.FEASIBLE, Status.OPTIMAL), (method, result.notes)
        elif instance.is_in_forest:  # Liu's optimum > M: proven infeasible
            assert result.status is Status.INFEASIBLE, (method, result.notes)
        else:
            assert result.status in (Status.FEASIBLE, Status.OPTIMAL, Status.NOT_APPLICABLE), (method, result.notes)
        if result.status is Status.NOT_APPLICABLE:
            assert "no sequential order found fits" in result.notes[0]
        if result.solution is not None:
            assert result.objective >= result.bound
