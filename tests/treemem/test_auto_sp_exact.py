"""``auto`` runs sp-exact on sequential series-parallel DAGs of its class beyond dp's 25 nodes, and only there."""

from __future__ import annotations

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import Instance

SOLVE = dict(problem="treemem", time_limit=60)


def residual_chain(blocks: int, cross: bool = False) -> Instance:
    """x0 -> a_k -> b_k -> x_{k+1} and the skip x_k -> x_{k+1}: x_k's output is shared by a_k and x_{k+1},
    and x_{k+1} is reached from a_k, so it is the forced last consumer (sp-exact's class). ``cross`` adds
    a_0 -> b_1, which makes the graph not series-parallel."""
    names, execs, outputs, edges = ["x0"], [3], [7], []
    for k in range(blocks):
        a, b, x = 3 * k + 1, 3 * k + 2, 3 * k + 3
        names += [f"a{k}", f"b{k}", f"x{k + 1}"]
        execs += [(5 * k) % 11, (3 * k) % 7 + 1, 2]
        outputs += [(7 * k) % 13 + 1, (4 * k) % 9 + 1, (k % 5) + 2]
        edges += [(a - 1, a), (a, b), (b, x), (a - 1, x)]
    if cross:
        edges.append((1, 5))  # a0 -> b1
    return Instance.create(execs, outputs, edges, names=names)


def test_auto_runs_sp_exact_on_a_series_parallel_dag_and_matches_dp():
    instance = residual_chain(10)  # 31 nodes: beyond dp's 25 in auto
    assert instance.n == 31 and not instance.is_in_forest
    result = hpcsched.solve(instance, "auto", **SOLVE)
    assert "auto ran sp-exact" in result.notes
    assert result.status is Status.OPTIMAL
    exact = hpcsched.solve(instance, "dp", **SOLVE)  # an independent proof of the optimum
    assert exact.status is Status.OPTIMAL and result.objective == exact.objective


def test_auto_keeps_local_search_outside_the_class_and_dp_on_small_dags():
    not_sp = residual_chain(10, cross=True)
    assert hpcsched.solve(not_sp, "sp-exact", **SOLVE).status is Status.NOT_APPLICABLE
    assert "auto ran local-search" in hpcsched.solve(not_sp, "auto", **SOLVE).notes
    # x0's output feeds two sinks, neither reaching the other: no forced last consumer
    unforced = residual_chain(10)
    unforced = Instance.create(
        [node.exec for node in unforced.nodes] + [1],
        [node.output for node in unforced.nodes] + [1],
        [*unforced.edges, (0, unforced.n)],
    )
    assert hpcsched.solve(unforced, "sp-exact", **SOLVE).status is Status.NOT_APPLICABLE
    assert "auto ran local-search" in hpcsched.solve(unforced, "auto", **SOLVE).notes
    small = residual_chain(5)  # 16 nodes
    assert "auto ran dp" in hpcsched.solve(small, "auto", **SOLVE).notes
