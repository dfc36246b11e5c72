"""``sp-exact``: optimal traversals of series-parallel DAGs (Kayaaslan, Lambert, Marchal, Uçar, TCS 2018).

Sources
-------
E. Kayaaslan, T. Lambert, L. Marchal, B. Uçar, "Scheduling series-parallel
task graphs to minimize peak memory", Theoretical Computer Science 707
(2018) 1-23 (research report Inria RR-8975, hal-01397299). Only the
abstract and the problem statement of the paper could be read here (the
stored copies give the first page); the recursion below follows the
``compute_optimal_SP_traversal`` routine of memDAG (``sp-traversals.c``,
the traversal library of the paper's third author), read as reference and
written anew. Its optimality on our model is checked against brute force and
the exact ``dp`` in ``tests/treemem/test_series_parallel_exact.py``, not
taken on trust.

The paper's model and ours
--------------------------
The paper schedules a *two-terminal series-parallel* (TTSP) DAG whose edges
carry data of a given weight; the memory after a prefix of the order is the
weight of the edges it cuts (produced, not yet consumed), and the peak is the
largest such cut. Ours has node outputs f shared by all successors (freed
when the *last* one ends), temporaries n, and several sources and sinks. The
mapping, exact on the class stated below:

* every node i becomes two vertices ``i_in -> i_out`` joined by an edge of
  weight ``n_i + f_i + Σ_{j : last(j) = i} f_j``: the cut just after
  ``i_in`` is then exactly our memory during the step of i (the inputs whose
  last consumer is i are no longer cut, its temporary, its output and every
  other held output are);
* an edge u -> v becomes ``u_out -> v_in`` of weight f_u when v is the
  *forced last consumer* of u (every other successor of u has a path to v,
  so v ends last in every topological order), else 0; a sink's output lives
  in its split edge only (freed at its own end, the validator's convention);
* a virtual source feeds every source and a virtual sink drains every sink
  (weight 0).

The cut after ``i_out`` (the resident memory after i) never exceeds the next
step's memory, so the largest cut of the split graph is our peak. A
schedule of the split graph may run other vertices between ``i_in`` and
``i_out``; moving ``i_out`` up to just after ``i_in`` lowers the cuts in
between by ``weight(i_in, i_out) − f_i ≥ 0``, so the order of the ``i_in``
is a traversal of ours whose peak is at most the split schedule's (checked
on every call). Where the split graph is not TTSP, or some output
``f_u > 0`` has two or more consumers none of which is forced last (its
release then depends on the order: no edge weighting represents it), the
method answers NOT_APPLICABLE and says which.

The recursion (on the TTSP decomposition of the split graph)
------------------------------------------------------------
For a subgraph G with terminals s and t it returns the order of the
vertices strictly between them, cut in two at a *minimum topological cut*
of G: ``before`` (s's side) and ``after``, with the cut's weight.

* An edge: nothing to order; its cut is its weight.
* A series composition G_0 ; j_1 ; G_1 ; ... ; G_k (junction vertices j):
  the orders are concatenated; the minimum cut is the lightest of the
  parts' (the first one on ties), which splits the concatenation.
* A parallel composition of branches with the same terminals: a minimum cut
  is the union of the branches' minimum cuts. From that cut onwards the
  branches' ``after`` parts are independent sequences that start at their
  lightest cut; they are merged by Liu's rule (1987) for independent
  sequences: cut each into hill-valley segments (the highest cut, last
  occurrence; then the lowest one after it, last occurrence; repeat on the
  rest) and run the segments in non-increasing ``hill − valley``. The
  ``before`` parts are merged the same way on the reversed graph (read
  backwards from the minimum cut, a ``before`` part is such a sequence),
  then reversed back.

The order of the whole graph is ``before`` then ``after``. A vertex's
change of the cut when it runs, Σ out-weights − Σ in-weights, is the same in
every subgraph that holds it (all its edges lie in the innermost composition
that holds it as an inner vertex), so it is computed once.

The TTSP decomposition is found by the classical reductions (Valdes,
Tarjan, Lawler 1982): merge parallel edges, contract an inner vertex with one
edge in and one out; the graph is TTSP exactly when one edge from the
virtual source to the virtual sink remains.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak, topological_order
from .sp_min_cut import min_cut_order


def _reaches(graph: Graph, start: int, goal: int, position: Sequence[int]) -> bool:
    """Whether ``goal`` is reachable from ``start`` (searching only vertices ordered before ``goal``)."""
    seen = {start}
    stack = [start]
    while stack:
        v = stack.pop()
        for w in graph.successors[v]:
            if w == goal:
                return True
            if w not in seen and position[w] < position[goal]:
                seen.add(w)
                stack.append(w)
    return False


def last_consumers(graph: Graph, deadline: Deadline | None = None) -> tuple[list[int], int | None]:
    """The forced last consumer of every output (-1 for sinks and empty shared outputs).

    Parameters
    ----------
    graph : Graph
        The instance's index arrays.
    deadline : Deadline | None
        Checked before each reachability search.

    Returns
    -------
    tuple[list[int], int | None]
        ``last[u]``: the successor of u that every other successor of u
        reaches (it ends last in every order), -1 where none is needed (a
        sink, an output of size 0 with several consumers); and the first node
        whose non-empty output has several consumers but no forced last one
        (None when there is none).
    """
    order = topological_order(graph)
    position = [0] * graph.n
    for k, v in enumerate(order):
        position[v] = k
    last = [-1] * graph.n
    for u in range(graph.n):
        consumers = graph.successors[u]
        if len(consumers) == 1:
            last[u] = consumers[0]
        elif len(consumers) > 1 and graph.output[u] > 0:
            if deadline is not None:
                deadline.check("sp-exact: finding the last consumers")
            candidate = max(consumers, key=position.__getitem__)  # the only one that can be reached by all
            if not all(v == candidate or _reaches(graph, v, candidate, position) for v in consumers):
                return last, u
            last[u] = candidate
    return last, None


def split_graph(graph: Graph, last: Sequence[int]) -> tuple[int, list[tuple[int, int, int]]]:
    """The paper's edge-weighted graph of our instance (module docstring): vertex count and weighted edges.

    Parameters
    ----------
    graph : Graph
        The instance's index arrays.
    last : Sequence[int]
        Each node's forced last consumer, or -1 (`last_consumers`).

    Returns
    -------
    tuple[int, list[tuple[int, int, int]]]
        The vertex count and the ``(tail, head, weight)`` edges. Node i becomes ``2i`` (in) and
        ``2i + 1`` (out); ``2n`` is the virtual source and ``2n + 1`` the virtual sink.
    """
    n = graph.n
    freed_by = [0] * n  # Σ f_j over the j whose forced last consumer is i
    for j, consumer in enumerate(last):
        freed_by[consumer] += graph.output[j] if consumer >= 0 else 0
    edges = [(2 * i, 2 * i + 1, graph.step[i] + freed_by[i]) for i in range(n)]
    for u in range(n):
        edges.extend((2 * u + 1, 2 * v, graph.output[u] if v == last[u] else 0) for v in graph.successors[u])
    return 2 * n + 2, edges + _terminal_edges(graph)


def _terminal_edges(graph: Graph) -> list[tuple[int, int, int]]:
    """Weight-0 edges from the virtual source ``2n`` to every source, from every sink to the virtual sink."""
    n = graph.n
    edges = [(2 * n, 2 * i, 0) for i in range(n) if not graph.predecessors[i]]
    return edges + [(2 * i + 1, 2 * n + 1, 0) for i in range(n) if not graph.successors[i]]


def _not_applicable(reason: str) -> Result:
    return Result(status=Status.NOT_APPLICABLE, notes=(reason,))


def sp_exact(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """The TCS 2018 optimal traversal of a series-parallel DAG (see the module docstring), O(n · nesting).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE)
        whose graph, with a virtual source and sink, is two-terminal series-parallel and whose
        shared non-empty outputs each have a forced last consumer (else NOT_APPLICABLE, saying which).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The traversal order and its peak memory (also the bound: the order is optimal);
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL (FEASIBLE only if the check of the optimality
        argument on this instance fails, with a note).
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    last, unforced = last_consumers(graph, deadline)
    if unforced is not None:
        return _not_applicable(
            f"the output of {instance.nodes[unforced].name!r} (size {graph.output[unforced]}) has several "
            "consumers and none of them is reached from all the others: when it is freed depends on the "
            "order, which the TCS 2018 edge-weighted model cannot express"
        )
    deadline.check("sp-exact: splitting the graph")
    n_vertices, edges = split_graph(graph, last)
    found = min_cut_order(n_vertices, edges, 2 * graph.n, 2 * graph.n + 1, deadline)
    if found is None:
        return _not_applicable(
            "the graph is not series-parallel: with a virtual source before its sources and a virtual sink "
            "after its sinks it is not two-terminal series-parallel (the series and parallel reductions stop "
            "before one edge is left)"
        )
    vertices, split_peak = found
    order = [v // 2 for v in vertices if v % 2 == 0 and v < 2 * graph.n]  # the i_in vertices
    value = peak(graph, order)
    solution = Solution.from_indices(instance, order)
    if value != split_peak:  # the contraction argument says value <= split_peak, optimality says ==
        return Result(
            status=Status.FEASIBLE,
            solution=solution,
            notes=(f"the split schedule's peak {split_peak} differs from its traversal's {value}: not proven",),
        )
    return Result(
        status=Status.OPTIMAL,
        solution=solution,
        bound=float(value),
        notes=(f"TTSP decomposition of the {n_vertices}-vertex split graph; Liu merges at parallel compositions",),
    )
