"""The sequential orders the heuristics and exact methods share: DFS, greedy, spanning forest.

Each is a topological order of any DAG. `orders_in_time` makes those the
deadline allows (the DFS post-order always: one O(n + m) pass), for the
incumbents of the exact methods and the starts of the local search.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Sequence

from ....core.deadline import Deadline, TimeLimitReached
from ...simulate import Graph, topological_by_priority
from ...special_cases import best_postorder_order, liu_optimal_order


def dfs_order(graph: Graph) -> list[int]:
    """Post-order of a depth-first search from the sinks along predecessors.

    A node is listed once all its predecessors are listed, so the order is
    topological; on an in-tree it is a post-order (children in index order).
    """
    done = [False] * graph.n
    order: list[int] = []
    for sink in (i for i in range(graph.n) if not graph.successors[i]):
        stack = [(sink, 0)]
        while stack:
            node, k = stack.pop()
            if done[node]:
                continue
            preds = graph.predecessors[node]
            while k < len(preds) and done[preds[k]]:
                k += 1
            if k < len(preds):
                stack.append((node, k + 1))
                stack.append((preds[k], 0))
            else:
                done[node] = True
                order.append(node)
    return order


class _ReadyByStep:
    """The ready nodes in buckets of equal step, for the greedy's query in O(log #steps).

    The greedy runs, among the ready nodes whose step fits under the peak so
    far (step <= slack), the one of least (left, step, index); when none fits,
    the one of least (step, left, index). Bucket b holds the nodes of the b-th
    smallest step in a heap by (left, index); a segment tree over the buckets
    keeps each bucket's least (left, step, index), so the first query is a
    prefix minimum and the second the first non-empty bucket. Heap entries
    whose node has run or whose ``left`` has changed are dropped lazily.
    """

    _EMPTY = (float("inf"), 0, -1)

    def __init__(self, steps: Sequence[int], ready: list[bool], left: list[int]) -> None:
        self.steps, self.ready, self.left = steps, ready, left
        self.values = sorted(set(steps))
        self.bucket_of = {value: b for b, value in enumerate(self.values)}
        self.size = 1 << max(0, len(self.values) - 1).bit_length()
        self.tree: list[tuple] = [self._EMPTY] * (2 * self.size)
        self.heaps: list[list[tuple[int, int]]] = [[] for _ in self.values]

    def empty(self) -> bool:
        return self.tree[1] is self._EMPTY

    def refresh(self, j: int) -> None:
        """Re-read the bucket of node j's step after j ran or changed (drop stale heap tops, update the tree)."""
        b = self.bucket_of[self.steps[j]]
        heap, ready, left, tree = self.heaps[b], self.ready, self.left, self.tree
        while heap and (not ready[heap[0][1]] or heap[0][0] != left[heap[0][1]]):
            heapq.heappop(heap)
        k = b + self.size
        tree[k] = (heap[0][0], self.values[b], heap[0][1]) if heap else self._EMPTY
        k >>= 1
        while k:
            low, high = tree[2 * k], tree[2 * k + 1]
            tree[k] = low if low <= high else high
            k >>= 1

    def push(self, j: int) -> None:
        """Node j is ready, or its ``left`` changed."""
        heap = self.heaps[self.bucket_of[self.steps[j]]]
        heapq.heappush(heap, (self.left[j], j))
        if heap[0][1] == j:
            self.refresh(j)

    def best(self, slack: int) -> int:
        """The ready node the greedy runs when ``slack`` bytes fit under the peak."""
        tree, best = self.tree, self._EMPTY
        low, high = self.size, self.size + bisect_right(self.values, slack)
        while low < high:  # least (left, step, index) over the buckets of step <= slack
            if low & 1:
                best = min(best, tree[low])
                low += 1
            if high & 1:
                high -= 1
                best = min(best, tree[high])
            low >>= 1
            high >>= 1
        if best is self._EMPTY:  # nothing fits: the first non-empty bucket, the least step
            k = 1
            while k < self.size:
                k = 2 * k if tree[2 * k] is not self._EMPTY else 2 * k + 1
            best = tree[k]
        return int(best[2])


def greedy_order(graph: Graph, deadline: Deadline | None = None) -> list[int]:
    """Run, at each step, the ready node that raises the peak so far least.

    Ties (typically: several nodes fit under the current peak) go to the node
    that leaves least resident memory (frees the most), then to the cheaper
    step, then to the smaller index. O((n + m) log n) with `_ReadyByStep`
    (what a node leaves, ``left``, changes when it becomes the last consumer
    of an input). Raises `TimeLimitReached` at ``deadline`` (checked every
    256 steps).
    """
    order, cut = greedy_until(graph, deadline, complete=False)
    if cut is not None:
        raise TimeLimitReached("time limit reached while running the greedy")
    return order


def greedy_until(graph: Graph, deadline: Deadline | None, *, complete: bool = True) -> tuple[list[int], int | None]:
    """The greedy order (`greedy_order`), and the step at which ``deadline`` cut it (None: it was not cut).

    When the deadline passes, the order so far is kept and, with
    ``complete``, the nodes left follow in Kahn's order from the ready
    ones (one O(n + m) pass): a topological order whose first steps are
    the greedy's.
    """
    missing = [len(p) for p in graph.predecessors]
    remaining = [len(s) for s in graph.successors]
    ready, left = [False] * graph.n, [0] * graph.n
    buckets = _ReadyByStep(graph.step, ready, left)

    def make_ready(j: int) -> None:  # left: the change of the resident memory when j ends
        ready[j] = True
        left[j] = graph.kept[j] - sum(graph.output[p] for p in graph.predecessors[j] if remaining[p] == 1)
        buckets.push(j)

    for j in range(graph.n):
        if missing[j] == 0:
            make_ready(j)
    order: list[int] = []
    resident = top = 0
    while not buckets.empty():
        if deadline is not None and len(order) % 256 == 0 and deadline.expired():
            cut = len(order)
            if complete:
                order += _kahn_from([j for j in range(graph.n) if ready[j]], missing, graph)
            return order, cut
        i = buckets.best(top - resident)
        ready[i] = False
        buckets.refresh(i)
        order.append(i)
        top = max(top, resident + graph.step[i])
        resident += left[i]
        for p in graph.predecessors[i]:
            remaining[p] -= 1
            if remaining[p] == 1:  # p's last consumer now frees it when it ends
                for s in graph.successors[p]:
                    if ready[s]:
                        left[s] -= graph.output[p]
                        buckets.push(s)
        for s in graph.successors[i]:
            missing[s] -= 1
            if missing[s] == 0:
                make_ready(s)
    return order, None


def greedy_if_in_time(graph: Graph, deadline: Deadline | None) -> list[list[int]]:
    """``[greedy_order]``, or ``[]`` when the deadline cuts it (O((n + m) log n): ~0.6 s on a 10^5-node tree).

    The starts and incumbents of the other methods then come from the linear-time orders alone.
    """
    try:
        return [greedy_order(graph, deadline)]
    except TimeLimitReached:
        return []


def spanning_in_forest(graph: Graph, deadline: Deadline | None = None) -> list[int]:
    """Keep, for every node, one successor: the one deepest from the sources (its latest consumer, likely)."""
    depth = [0] * graph.n
    for count, i in enumerate(_kahn(graph)):
        if deadline is not None and count % 65536 == 0:
            deadline.check("choosing a spanning in-forest")
        for s in graph.successors[i]:
            depth[s] = max(depth[s], depth[i] + 1)
    return [max(succ, key=lambda s: (depth[s], s)) if succ else -1 for succ in graph.successors]


def _kahn(graph: Graph) -> list[int]:
    """Some topological order (Kahn's, first in first out: no heap)."""
    missing = [len(p) for p in graph.predecessors]
    return _kahn_from([i for i in range(graph.n) if missing[i] == 0], missing, graph)


def _kahn_from(ready: list[int], missing: list[int], graph: Graph) -> list[int]:
    """Kahn's order of the nodes not run yet: ``ready`` first, ``missing`` counts their unrun predecessors."""
    order = list(ready)
    for i in order:  # grows while it is read
        for s in graph.successors[i]:
            missing[s] -= 1
            if missing[s] == 0:
                order.append(s)
    return order


def forest_order(graph: Graph, traversal: str = "postorder", deadline: Deadline | None = None) -> list[int]:
    """Traverse a spanning in-forest, then repair: run ready nodes in that rank (a topological order).

    Raises `TimeLimitReached` at ``deadline``, checked between the phases
    (each O(n log n)) and every 65,536 nodes of the first.
    """
    parent = spanning_in_forest(graph, deadline)
    if deadline is not None:
        deadline.check("traversing the spanning in-forest")
    # in the forest a node that keeps a successor leaves its output resident until that successor ends
    kept = [graph.output[i] if parent[i] >= 0 else 0 for i in range(graph.n)]
    if traversal == "liu":
        forest_graph = Graph(
            graph.n,
            graph.step,
            tuple(kept),
            graph.output,
            _forest_predecessors(parent),
            tuple((p,) if p >= 0 else () for p in parent),
        )
        ranked, _ = liu_optimal_order(forest_graph, parent, deadline)
    else:
        ranked, _ = best_postorder_order(graph, parent, kept)
    if deadline is not None:
        deadline.check("repairing the spanning in-forest's order")
    rank = [0] * graph.n
    for position, node in enumerate(ranked):
        rank[node] = position
    if all(rank[p] < rank[i] for i in range(graph.n) for p in graph.predecessors[i]):
        return ranked  # already topological (an in-forest's): the repair would return it unchanged
    return topological_by_priority(graph, rank)


def orders_in_time(graph: Graph, deadline: Deadline | None) -> list[list[int]]:
    """The greedy and spanning-forest orders made before ``deadline``, else the DFS post-order alone.

    The incumbents of the exact methods: the better of the first two, as
    long as the deadline allows either (the greedy first); the DFS post-order
    (one O(n + m) pass, made even past the deadline) when it allows neither.
    """
    orders = greedy_if_in_time(graph, deadline)
    try:
        orders.append(forest_order(graph, deadline=deadline))
    except TimeLimitReached:
        pass
    return orders or [dfs_order(graph)]


def _forest_predecessors(parent: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    preds: list[list[int]] = [[] for _ in parent]
    for i, p in enumerate(parent):
        if p >= 0:
            preds[p].append(i)
    return tuple(tuple(p) for p in preds)
