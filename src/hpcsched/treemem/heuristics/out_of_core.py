"""Eviction heuristics for the out-of-core question (MinIO) on a given traversal.

A traversal is fixed first (``traversal``: Liu's optimal order on in-forests,
Liu's best post-order, or the greedy order on any DAG); then the steps are
visited in order and, while a step needs more than M, one output not used
at that step is evicted for its whole unused interval (a `Gap`), chosen by a
rule:

* ``belady``: the output whose next use is furthest (Belady's rule for
  paging, optimal for unit sizes, a heuristic for sizes);
* ``largest``: the largest output (ties: furthest next use);
* ``first-fit``: the first output, in the order the outputs were last used,
  at least as large as the memory still missing; if none is, the largest,
  and repeat;
* ``best-fit``: the smallest output at least as large as the memory still
  missing; if none is, the largest, and repeat.

The names follow the spec ("evict largest first, first fit, best fit"); the
rules are stated here as implemented, not copied from Jacquelin, Marchal,
Robert and Uçar (IPDPS 2011), whose text we could not consult. After the
pass, evictions that turned out unnecessary are undone (latest choice first)
while every step still fits: this only lowers the I/O volume. One sweep does
it in O((n + gaps) log gaps) (see `evict_until`). When the time limit passes
during the sweep, every output unused at the steps left is evicted there
(each such step then holds its MemReq <= M), so the answer stays valid, and
a note says at which step.

Every rule finds a feasible solution whenever M >= max MemReq (at a step,
evicting every output not used there leaves exactly MemReq); below that the
instance is infeasible and the methods raise `InfeasibleError`.

The bound they report is `io_lower_bound`: on an in-forest, the capped
eviction-set search of ``io_bounds`` (at least max(0, P* - M) with P* Liu's
optimal in-core peak); on other DAGs none (None), unless nothing is written
(0, optimal).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...core.deadline import Deadline
from ...core.errors import InfeasibleError
from ...core.result import Result, Status
from ..io_bounds import io_bound
from ..model import Instance, Solution, other_question
from ..simulate import Gap, Graph, excess, gaps, io_events, peak
from ..special_cases import best_postorder_order, forest_parent, liu_optimal_order
from .sequential import orders_in_time

POLICIES = ("belady", "largest", "first-fit", "best-fit")
Traversal = Literal["auto", "liu-optimal", "best-postorder", "greedy"]


@dataclass(frozen=True)
class EvictionParams:
    """Options of the eviction heuristics.

    Attributes
    ----------
    traversal
        The order the evictions are chosen on: ``liu-optimal`` (in-forests:
        least in-core peak), ``best-postorder`` (in-forests), ``greedy`` (any
        DAG: the better of the greedy and spanning-forest orders), ``auto``
        (liu-optimal on in-forests, else greedy).
    """

    traversal: Traversal = "auto"


def require_feasible(instance: Instance, graph: Graph) -> None:
    """Raise `InfeasibleError` when some node alone needs more than M (then no solution exists)."""
    memory = instance.memory or 0
    worst = max(range(graph.n), key=graph.memreq)
    if graph.memreq(worst) > memory:
        raise InfeasibleError(
            f"node '{instance.nodes[worst].name}' needs {graph.memreq(worst)} while it runs "
            f"(its inputs, exec and output must all be resident), memory is {memory}"
        )


def traversal_order(instance: Instance, graph: Graph, traversal: str, deadline: Deadline | None = None) -> list[int]:
    """The traversal named by ``traversal`` (tree orders need an in-forest)."""
    if traversal == "auto":
        traversal = "liu-optimal" if instance.is_in_forest else "greedy"
    if traversal in ("liu-optimal", "best-postorder"):
        parent = forest_parent(graph)
        if parent is None:
            raise ValueError(f"traversal '{traversal}' needs an in-forest")  # the methods refuse it earlier
        if traversal == "liu-optimal":
            return liu_optimal_order(graph, parent, deadline)[0]
        return best_postorder_order(graph, parent)[0]
    return min(orders_in_time(graph, deadline), key=lambda order: peak(graph, order))


def io_lower_bound(instance: Instance, graph: Graph, deadline: Deadline | None = None) -> int | None:
    """A proven lower bound on the bytes written on an in-forest (`io_bounds.io_bound`); None on other DAGs.

    At least max(0, P* − M), P* Liu's optimal in-core peak (every traversal
    reaches P* at some step, and the gaps evicted over that step are written),
    raised by the capped best-first search over eviction sets of ``io_bounds``
    (often to the optimum). On a DAG no bound is claimed: see ``io_bounds``.

    Parameters
    ----------
    instance : Instance
        An out-of-core treemem instance (M = ``instance.memory``).
    graph : Graph
        Its graph (`Graph.of`).
    deadline : Deadline | None
        Stops the search; the bound reached so far is kept (None if Liu's first run is cut).

    Returns
    -------
    int | None
        The bound in bytes, or None when none is proven.
    """
    found = io_bound(instance, graph, deadline=deadline)
    return None if found is None else found.bound


class _FitTree:
    """Gaps in order of (size, after, node), a segment tree keeping the least key of the candidates below.

    The key of a candidate gap is the rule's: its position in that order
    (best-fit: the least position at or after the first gap of size >= the
    bytes missing is the smallest fitting gap) or ``after · n + node``
    (first-fit: the first fitting gap in the order outputs were last used).
    A gap leaves when evicted, or once it is found expired at the top.
    """

    def __init__(self, all_gaps: Sequence[Gap], policy: str) -> None:
        self.by_size = sorted(
            range(len(all_gaps)), key=lambda k: (all_gaps[k].size, all_gaps[k].after, all_gaps[k].node)
        )
        self.sizes = [all_gaps[k].size for k in self.by_size]
        self.position = [0] * len(all_gaps)
        for position, k in enumerate(self.by_size):
            self.position[k] = position
        nodes = 1 + max((gap.node for gap in all_gaps), default=0)
        if policy == "best-fit":
            self.key = list(range(len(all_gaps)))
        else:
            self.key = [all_gaps[k].after * nodes + all_gaps[k].node for k in self.by_size]
        self.size = 1 << max(0, len(all_gaps) - 1).bit_length()
        self.none = 1 << 62 if not all_gaps else max(self.key) + 1
        self.tree = [self.none] * (2 * self.size)

    def set(self, k: int, present: bool) -> None:
        tree, i = self.tree, self.position[k] + self.size
        tree[i] = self.key[i - self.size] if present else self.none
        i >>= 1
        while i:
            low, high = tree[2 * i], tree[2 * i + 1]
            tree[i] = low if low < high else high
            i >>= 1

    def least_fitting(self, missing: int) -> int | None:
        """The candidate of least key among those of size >= ``missing`` (its gap index), or None."""
        tree, best, where = self.tree, self.none, -1
        low, high = self.size + bisect_left(self.sizes, missing), 2 * self.size
        while low < high:
            if low & 1:
                if tree[low] < best:
                    best, where = tree[low], low
                low += 1
            if high & 1:
                high -= 1
                if tree[high] < best:
                    best, where = tree[high], high
            low >>= 1
            high >>= 1
        if where < 0:
            return None
        while where < self.size:  # down to the leaf holding the least key
            where = 2 * where if tree[2 * where] == best else 2 * where + 1
        return self.by_size[where - self.size]


class _Candidates:
    """The gaps spanning the current step and not evicted yet, as one rule needs them.

    ``belady`` and ``largest`` keep a heap by their key; ``first-fit`` and
    ``best-fit`` a `_FitTree`, with a ``largest`` heap for when nothing
    fits. A gap joins at its first spanned step (``after + 1``) and leaves
    when evicted or, lazily, once it is seen with ``before`` <= the step.
    Every rule's key is unique (a node's gaps differ in ``after`` and
    ``before``), so the choice is the rule's whatever the structure.
    """

    def __init__(self, all_gaps: Sequence[Gap], policy: str) -> None:
        self.gaps, self.policy = all_gaps, policy
        self.heap: list[tuple[int, int, int, int]] = []
        self.largest: list[tuple[int, int, int, int]] = []
        self.fit = _FitTree(all_gaps, policy) if policy in ("first-fit", "best-fit") else None
        self.taken = [False] * len(all_gaps)

    def add(self, k: int) -> None:
        gap = self.gaps[k]
        largest_key = (-gap.size, -gap.before, gap.node, k)
        if self.policy == "belady":
            heapq.heappush(self.heap, (-gap.before, -gap.size, gap.node, k))
        elif self.policy == "largest":
            heapq.heappush(self.heap, largest_key)
        else:
            heapq.heappush(self.largest, largest_key)
            assert self.fit is not None
            self.fit.set(k, True)

    def _top(self, heap: list[tuple[int, int, int, int]], t: int) -> int:
        while self.taken[heap[0][3]] or self.gaps[heap[0][3]].before <= t:
            heapq.heappop(heap)
        return heap[0][3]

    def pick(self, t: int, missing: int) -> int:
        """The gap the rule evicts at step t while ``missing`` bytes are still over M (there is one: M >= MemReq)."""
        k = self._top(self.heap, t) if self.fit is None else self._fit(t, missing)
        self.taken[k] = True
        if self.fit is not None:
            self.fit.set(k, False)
        return k

    def _fit(self, t: int, missing: int) -> int:
        assert self.fit is not None
        while True:
            k = self.fit.least_fitting(missing)
            if k is None:
                return self._top(self.largest, t)
            if self.gaps[k].before > t:
                return k
            self.fit.set(k, False)  # expired: it spans no step from t on


def evict(graph: Graph, order: Sequence[int], memory: int, policy: str, deadline: Deadline | None = None) -> list[Gap]:
    """The gaps the rule ``policy`` evicts on ``order`` (assumes M >= max MemReq); see `evict_until`."""
    return evict_until(graph, order, memory, policy, deadline)[0]


def evict_until(
    graph: Graph, order: Sequence[int], memory: int, policy: str, deadline: Deadline | None = None
) -> tuple[list[Gap], int | None]:
    """The gaps the rule ``policy`` evicts on ``order``, and the step where the deadline cut the rule (or None).

    One sweep over the steps: the bytes freed by the gaps evicted so far are
    a running sum (each gap's size leaves it at its ``before``), so a step
    costs its candidates' changes, not the length of the gaps. When the
    deadline passes at step t, every gap not evicted that spans a step >= t
    is evicted: each such step then holds only its own inputs, n and f (its
    MemReq <= M), so the answer stays valid; it writes more. Then evictions
    that turned out unnecessary are undone, latest first (skipped once the
    deadline has passed: undoing only lowers the volume).
    """
    all_gaps = gaps(graph, order)
    n = len(order)
    over = excess(graph, order, memory, [])
    starting: list[list[int]] = [[] for _ in range(n + 1)]
    for k, gap in enumerate(all_gaps):
        starting[gap.after + 1].append(k)
    candidates = _Candidates(all_gaps, policy)
    chosen: list[int] = []
    relief = [0] * (n + 1)  # relief[t]: change at step t of the bytes freed by the evicted gaps
    freed, cut = 0, None
    for t in range(n):
        if deadline is not None and t % 256 == 0 and deadline.expired():
            cut = t
            break
        freed += relief[t]
        for k in starting[t]:
            candidates.add(k)
        while over[t] - freed > 0:
            k = candidates.pick(t, over[t] - freed)
            chosen.append(k)
            freed += all_gaps[k].size
            relief[all_gaps[k].before] -= all_gaps[k].size
    if cut is not None:
        chosen += [k for k, gap in enumerate(all_gaps) if gap.before > cut and not candidates.taken[k]]
        return [all_gaps[k] for k in chosen], cut
    return _undo_unneeded(all_gaps, chosen, over, deadline), None


def _undo_unneeded(all_gaps: Sequence[Gap], chosen: list[int], over: list[int], deadline: Deadline | None) -> list[Gap]:
    """Drop the evictions no step needs any more, latest first, while the deadline allows.

    The excess per step is a numpy array (int64 unless the sizes could
    overflow it), so a gap's test and update are slices, not Python loops.
    """
    change = [0] * (len(over) + 1)  # the evicted gaps' sizes, as a difference array over the steps
    for k in chosen:
        change[all_gaps[k].after + 1] -= all_gaps[k].size
        change[all_gaps[k].before] += all_gaps[k].size
    wide = sum(gap.size for gap in all_gaps) + max((abs(x) for x in over), default=0) >= 1 << 62
    level = np.cumsum(np.array(change[:-1], dtype=object if wide else np.int64))
    excess_now = np.array(over, dtype=object if wide else np.int64) + level
    dropped = set()
    for k in reversed(chosen):
        if deadline is not None and deadline.expired():
            break
        gap = all_gaps[k]
        span = excess_now[gap.after + 1 : gap.before]
        if span.max() + gap.size <= 0:
            dropped.add(k)
            span += gap.size
    return [all_gaps[k] for k in chosen if k not in dropped]


def solution_of(instance: Instance, order: Sequence[int], chosen: Sequence[Gap]) -> Solution:
    """The out-of-core solution: ``order`` and the events of the evicted gaps."""
    names = [node.name for node in instance.nodes]
    return Solution(
        tuple(names[i] for i in order),
        io=tuple((kind, names[node], position) for kind, node, position in io_events(chosen)),
    )


def _eviction_method(policy: str):
    def method(instance: Instance, /, *, time_limit: float, seed: int, params: EvictionParams | None) -> Result:
        refused = other_question(instance, "out-of-core")
        if refused is not None:
            return refused
        params = params or EvictionParams()
        if params.traversal in ("liu-optimal", "best-postorder") and not instance.is_in_forest:
            return Result(
                status=Status.NOT_APPLICABLE,
                notes=(f"traversal '{params.traversal}' needs an in-forest; use greedy or auto",),
            )
        deadline = Deadline.after(time_limit)
        graph = Graph.of(instance)
        require_feasible(instance, graph)
        order = traversal_order(instance, graph, params.traversal, deadline)
        chosen, cut = evict_until(graph, order, instance.memory or 0, policy, deadline)
        written = sum(gap.size for gap in chosen)
        # writing nothing is optimal whatever the bound; otherwise only a proven bound is reported
        bound = 0 if written == 0 else io_lower_bound(instance, graph, deadline)
        notes = [f"{policy} evictions on the {params.traversal} traversal: {len(chosen)} outputs evicted"]
        if cut is not None:
            notes.append(f"time limit reached at step {cut} of {graph.n}: every output unused from there on evicted")
        if written > 0:
            notes.append(
                "no lower bound on a DAG (the optimal in-core peak is not computed)"
                if bound is None
                else f"bound {bound}: eviction-set search with Liu's algorithm (>= Liu's in-core optimum - M)"
            )
        return Result(
            status=Status.OPTIMAL if bound is not None and written <= bound else Status.FEASIBLE,
            solution=solution_of(instance, order, chosen),
            bound=None if bound is None else float(bound),
            notes=tuple(notes),
        )

    method.__name__ = f"io_{policy.replace('-', '_')}"
    method.__doc__ = f"""Out-of-core: the {policy} eviction rule on a fixed traversal (heuristic).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the out-of-core question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds (traversal and eviction scan).
    seed : int
        Unused: the method is deterministic.
    params : EvictionParams | None
        The traversal to evict on; None takes the defaults of ``EvictionParams``.

    Returns
    -------
    Result
        The traversal order with its I/O events and the volume written, with the bound of
        `io_lower_bound` (None on a DAG); OPTIMAL when nothing is written or the volume meets the
        bound, else FEASIBLE; NOT_APPLICABLE for another question or an in-forest
        traversal on a DAG. Raises the infeasibility error of ``require_feasible`` when some node
        alone exceeds M.
    """
    return method


io_belady = _eviction_method("belady")
io_largest = _eviction_method("largest")
io_first_fit = _eviction_method("first-fit")
io_best_fit = _eviction_method("best-fit")
