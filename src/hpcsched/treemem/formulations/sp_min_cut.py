"""The edge-weighted series-parallel algorithm of Kayaaslan, Lambert, Marchal, Uçar (TCS 2018): `min_cut_order`.

Split from `series_parallel` (which maps treemem instances onto it and states the algorithm in its
module docstring): the TTSP decomposition by reductions, the minimum-cut split of each composition
and Liu's merge of independent sequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...core.deadline import Deadline

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
