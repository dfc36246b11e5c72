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
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak, topological_order

_EDGE, _SERIES, _PARALLEL = 0, 1, 2
_CHECK_EVERY = 4096  # deadline checks inside the linear passes


@dataclass
class _Part:
    """What the recursion knows about one composition: its inner vertices split at a minimum cut."""

    before: list[int]
    after: list[int]
    min_cut: int


class _Decomposition:
    """A binary TTSP decomposition tree built by series and parallel reductions.

    Tree nodes are indices: ``kind[k]`` is an edge (``weight[k]``), a series
    node (``left``, ``junction``, ``right``) or a parallel node (``left``,
    ``right``). ``root`` is None when the graph is not TTSP.
    """

    def __init__(self, n_vertices: int, edges: Sequence[tuple[int, int, int]], source: int, sink: int) -> None:
        self.kind: list[int] = []
        self.weight: list[int] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.junction: list[int] = []
        self.outgoing: list[dict[int, int]] = [{} for _ in range(n_vertices)]  # tail -> {head: tree node}
        self.incoming: list[dict[int, int]] = [{} for _ in range(n_vertices)]
        self.pending: list[int] = []
        for tail, head, weight in edges:
            self._add_edge(tail, head, self._new(_EDGE, weight=weight))
        self.pending.extend(range(n_vertices))
        self._reduce(source, sink)
        only = self.outgoing[source]
        alone = len(only) == 1 and sink in only and all(not self.outgoing[v] for v in range(n_vertices) if v != source)
        self.root: int | None = only[sink] if alone else None

    def _new(self, kind: int, *, weight: int = 0, left: int = -1, right: int = -1, junction: int = -1) -> int:
        self.kind.append(kind)
        self.weight.append(weight)
        self.left.append(left)
        self.right.append(right)
        self.junction.append(junction)
        return len(self.kind) - 1

    def _add_edge(self, tail: int, head: int, node: int) -> None:
        """Add tail -> head, merging it with an existing tail -> head edge (a parallel reduction)."""
        existing = self.outgoing[tail].get(head)
        if existing is not None:
            node = self._new(_PARALLEL, left=existing, right=node)
            self.pending.extend((tail, head))  # their degrees dropped: maybe series-reducible now
        self.outgoing[tail][head] = node
        self.incoming[head][tail] = node

    def _reduce(self, source: int, sink: int) -> None:
        """Series-reduce every inner vertex with one edge in and one out, until none is left."""
        while self.pending:
            v = self.pending.pop()
            if v in (source, sink) or len(self.incoming[v]) != 1 or len(self.outgoing[v]) != 1:
                continue
            ((tail, first),) = self.incoming[v].items()
            ((head, second),) = self.outgoing[v].items()
            self.incoming[v].clear()
            self.outgoing[v].clear()
            del self.outgoing[tail][v]
            del self.incoming[head][v]
            self._add_edge(tail, head, self._new(_SERIES, left=first, right=second, junction=v))

    def operands(self, node: int) -> list[int]:
        """The flattened operands of the maximal cluster of ``node``'s kind below it.

        Series: ``[part, junction, part, ..., junction, part]`` in path order
        (parts are tree nodes, junctions vertices); parallel: the branches.
        """
        kind = self.kind[node]
        found: list[int] = []
        stack = [(node, False)]
        while stack:
            top, is_vertex = stack.pop()
            if is_vertex or self.kind[top] != kind:
                found.append(top)
            elif kind == _SERIES:  # in order: left, junction, right
                stack.extend(((self.right[top], False), (self.junction[top], True), (self.left[top], False)))
            else:
                stack.extend(((self.right[top], False), (self.left[top], False)))
        return found


def _segments(sequence: Sequence[int], increment: Sequence[int], sign: int) -> list[tuple[int, int, int]]:
    """Liu's hill-valley segments of a vertex sequence: ``(hill − valley, first, last)`` positions.

    The level after position k is ``sign`` times the sum of the increments up
    to k (the level before the sequence is 0 and is no candidate). A segment
    runs from the end of the previous one to the last lowest level after the
    last highest level of what remains.
    """
    m = len(sequence)
    level = [0] * m
    running = 0
    for k, v in enumerate(sequence):
        running += sign * increment[v]
        level[k] = running
    highest = [0] * m  # highest[k]: last position of the highest level in k..m-1
    lowest = [0] * m
    highest[m - 1] = lowest[m - 1] = m - 1
    for k in range(m - 2, -1, -1):
        highest[k] = k if level[k] > level[highest[k + 1]] else highest[k + 1]
        lowest[k] = k if level[k] < level[lowest[k + 1]] else lowest[k + 1]
    found = []
    start = 0
    while start < m:
        hill = highest[start]
        valley = lowest[hill]
        found.append((level[hill] - level[valley], start, valley))
        start = valley + 1
    return found


def _liu_merge(sequences: Sequence[list[int]], increment: Sequence[int], sign: int) -> list[int]:
    """Interleave independent sequences by Liu's rule: segments in non-increasing hill − valley.

    A sequence's own segments have strictly decreasing keys (each hill is
    below the previous one, each valley above), and the sort is stable, so
    each sequence keeps its order.
    """
    keyed: list[tuple[int, int, int, int]] = []
    for index, sequence in enumerate(sequences):
        if sequence:
            keyed.extend((-key, index, first, last) for key, first, last in _segments(sequence, increment, sign))
    keyed.sort(key=lambda item: item[0])
    merged: list[int] = []
    for _, index, first, last in keyed:
        merged.extend(sequences[index][first : last + 1])
    return merged


def _combine(decomposition: _Decomposition, node: int, parts: dict[int, _Part], increment: Sequence[int]) -> _Part:
    """The part of a series or parallel cluster from the parts of its operands (which it consumes)."""
    operands = decomposition.operands(node)
    if decomposition.kind[node] == _SERIES:
        pieces = operands[0::2]
        lightest = min(range(len(pieces)), key=lambda k: parts[pieces[k]].min_cut)  # the first on ties
        min_cut = parts[pieces[lightest]].min_cut
        before: list[int] = []
        after: list[int] = []
        for k, operand in enumerate(operands):
            target = before if k < 2 * lightest else after
            if k % 2:  # a junction vertex
                target.append(operand)
                continue
            part = parts.pop(operand)
            if k == 2 * lightest:
                before.extend(part.before)
                after.extend(part.after)
            else:
                target.extend(part.before)
                target.extend(part.after)
        return _Part(before, after, min_cut)
    branches = [parts.pop(operand) for operand in operands]
    backwards = _liu_merge([branch.before[::-1] for branch in branches], increment, -1)
    return _Part(
        before=backwards[::-1],
        after=_liu_merge([branch.after for branch in branches], increment, 1),
        min_cut=sum(branch.min_cut for branch in branches),
    )


def _traverse(decomposition: _Decomposition, root: int, increment: Sequence[int], deadline: Deadline) -> list[int]:
    """The inner vertices of the whole graph in the recursion's order (bottom-up, without recursion)."""
    parts: dict[int, _Part] = {}
    stack = [(root, False)]
    done = 0
    while stack:
        node, operands_done = stack.pop()
        done += 1
        if done % _CHECK_EVERY == 0:
            deadline.check("sp-exact: combining the compositions")
        if decomposition.kind[node] == _EDGE:
            parts[node] = _Part([], [], decomposition.weight[node])
        elif operands_done:
            parts[node] = _combine(decomposition, node, parts, increment)
        else:
            stack.append((node, True))
            operands = decomposition.operands(node)
            step = 2 if decomposition.kind[node] == _SERIES else 1  # skip the junction vertices
            stack.extend((operand, False) for operand in operands[::step])
    whole = parts.pop(root)
    return whole.before + whole.after


def min_cut_order(
    n_vertices: int, edges: Sequence[tuple[int, int, int]], source: int, sink: int, deadline: Deadline | None = None
) -> tuple[list[int], int] | None:
    """The paper's problem itself: an order of an edge-weighted TTSP DAG whose largest cut is least.

    Parameters
    ----------
    n_vertices : int
        Vertices ``0 .. n_vertices − 1``.
    edges : Sequence[tuple[int, int, int]]
        ``(tail, head, weight)``, weights >= 0 (parallel edges allowed).
    source, sink : int
        The two terminals.
    deadline : Deadline | None
        Checked between phases and inside the combining pass.

    Returns
    -------
    tuple[list[int], int] | None
        Every vertex in a topological order (``source`` first, ``sink`` last) and its largest cut
        (the weight of the edges from a prefix to the rest, over all prefixes); None when the graph
        is not two-terminal series-parallel with these terminals.
    """
    deadline = deadline or Deadline.after(None)
    decomposition = _Decomposition(n_vertices, edges, source=source, sink=sink)
    if decomposition.root is None:
        return None
    deadline.check("sp-exact: decomposed")
    increment = [0] * n_vertices  # the change of the cut when a vertex runs: Σ out-weights − Σ in-weights
    for tail, head, weight in edges:
        increment[tail] += weight
        increment[head] -= weight
    vertices = [source, *_traverse(decomposition, decomposition.root, increment, deadline), sink]
    largest, level = 0, 0
    for v in vertices:
        level += increment[v]
        largest = max(largest, level)
    return vertices, largest


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
