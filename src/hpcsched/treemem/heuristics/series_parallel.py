"""``sp-ization``: series-parallel decomposition (forced where the DAG is not SP) + Liu's segment merging.

Kayaaslan, Lambert, Marchal and Uçar (TCS 2018) schedule series-parallel
graphs optimally: that algorithm is ``sp-exact``
(`hpcsched.treemem.formulations.series_parallel`), exact on the graphs its
edge-weight mapping covers and NOT_APPLICABLE elsewhere. This is *not* their
algorithm and claims no optimality: it runs on every DAG, named as a
heuristic (an upper bound, validated like every method):

1. **Decompose.** A node set S is split recursively: its weakly connected
   components are a *parallel* composition; a connected S is a *series*
   composition A ; B with A the nodes of S whose level (longest path from a
   source of S) is at most some ℓ. Every edge goes from a lower to a higher
   level, so running A before B is always allowed; where the DAG is not
   series-parallel this adds precedences (the SP-ization) and may cost memory.
   The level ℓ cut by the fewest edges is chosen (a true series node of an SP
   graph is cut by the edges into it only), ties to the middle.
2. **Merge like Liu 1987.** Each block becomes hill-valley segments (``dh``,
   ``dv`` relative to its start, `special_cases._push` keeps them canonical);
   a series composition concatenates them, a parallel one merges the
   branches' segments in non-increasing ``hill − valley``, which is Liu's
   optimal rule for independent subtrees. A node's ``dv`` is its kept output
   minus its share f_p / |succ(p)| of each input (the exact release depends on
   the global order: an estimate, used only to rank segments).

The order is then evaluated exactly (`simulate.peak`); the bound returned is
max MemReq. OPTIMAL only when the peak meets that bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from ..bounds import memreq
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak
from ..special_cases import _flatten, _push, segment_order
from .sequential import dfs_order


def _components(graph: Graph, nodes: Sequence[int]) -> list[list[int]]:
    """Weakly connected components of the subgraph induced by ``nodes`` (each in the given order)."""
    inside = set(nodes)
    seen: set[int] = set()
    parts = []
    for start in nodes:
        if start in seen:
            continue
        seen.add(start)
        stack, part = [start], []
        while stack:
            v = stack.pop()
            part.append(v)
            for w in (*graph.predecessors[v], *graph.successors[v]):
                if w in inside and w not in seen:
                    seen.add(w)
                    stack.append(w)
        order = {v: k for k, v in enumerate(nodes)}
        parts.append(sorted(part, key=order.__getitem__))
    return parts


def _series_split(graph: Graph, nodes: Sequence[int], deadline: Deadline | None = None) -> tuple[list[int], list[int]]:
    """Split a connected set at the level boundary crossed by the fewest edges (ties: the middle).

    An edge from level a to level b crosses the boundaries a..b-1: counted with
    a difference array in O(edges + levels), not O(edges x levels) (5.3 s on a
    dense 1,600-node DAG); the deadline is checked per node.
    """
    inside = set(nodes)  # ``nodes`` is topologically sorted
    level: dict[int, int] = {}
    for v in nodes:
        level[v] = max((level[p] + 1 for p in graph.predecessors[v] if p in inside), default=0)
    top = max(level.values())
    change = [0] * (top + 1)  # change[l]: edges starting to cross at boundary l minus those stopping
    for v in nodes:
        if deadline is not None:
            deadline.check("sp-ization (series split)")
        for w in graph.successors[v]:
            if w in inside:
                change[level[v]] += 1
                change[level[w]] -= 1
    crossing = list(itertools.accumulate(change[:top]))  # crossing[l]: edges from level <= l to level > l
    cut = min(range(top), key=lambda c: (crossing[c], abs(2 * c + 1 - top)))
    return [v for v in nodes if level[v] <= cut], [v for v in nodes if level[v] > cut]


def sp_order(graph: Graph, order: Sequence[int], deadline: Deadline | None = None) -> list[int]:
    """The sp-ization traversal; ``order`` is any topological order (it fixes the tie-breaks)."""
    share = [graph.output[p] / len(graph.successors[p]) if graph.successors[p] else 0.0 for p in range(graph.n)]
    delta = [graph.kept[v] - sum(share[p] for p in graph.predecessors[v]) for v in range(graph.n)]

    def segments(nodes: list[int]) -> list:
        if deadline is not None:
            deadline.check("sp-ization")
        if len(nodes) == 1:
            v = nodes[0]
            return [[graph.step[v], delta[v], v]]
        parts = _components(graph, nodes)
        merged: list = []
        if len(parts) > 1:  # parallel composition: Liu's merge of the branches
            for segment in sorted((s for part in parts for s in segments(part)), key=segment_order):
                _push(merged, segment)
            return merged
        first, second = _series_split(graph, nodes, deadline)  # series composition (forced where not SP)
        for segment in (*segments(first), *segments(second)):
            _push(merged, list(segment))
        return merged

    result: list[int] = []
    for segment in segments(list(order)):
        result.extend(_flatten(segment[2]))
    return result


def sp_ization(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """SP-ization + Liu's segment merging (heuristic upper bound; see the module docstring).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every node of the
        decomposition; when it passes, the DFS post-order (one linear pass)
        is returned instead, with a note.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    from ..simulate import topological_order

    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    note = "series-parallel decomposition with forced series cuts + Liu 1987 merging (heuristic)"
    try:
        order = sp_order(graph, topological_order(graph), deadline)
    except TimeLimitReached as stopped:
        order, note = dfs_order(graph), f"{stopped}: the DFS post-order instead"
    value, bound = peak(graph, order), memreq(instance)
    return Result(
        status=Status.OPTIMAL if value <= bound else Status.FEASIBLE,
        solution=Solution.from_indices(instance, order),
        bound=float(bound),
        notes=(note,),
    )
