"""Exact methods for the sequential question on any DAG: brute force and DP (MILP, CP-SAT: ``slot_models``).

Why the DP over done sets is exact
----------------------------------
The memory at the step of node i with done set S is ``R(S) + n_i + f_i``,
with ``R(S) = Σ_{j ∈ S, succ(j) ⊄ S} f_j``: it depends on S and i only, not
on the order in which S was done (an output is held exactly while its
producer is done and some consumer is not). The peak of an order is the
largest step cost along its chain of done sets ∅ ⊂ S_1 ⊂ ... ⊂ V, so the best
peak to reach S, ``g(S) = min over ready i ∈ S of max(g(S − i), R(S − i) +
n_i + f_i)``, is a bottleneck shortest path over the lattice of done sets,
and the optimum is g(V). The search pops states by ``max(g(S), h(S))`` with
``h(S) = max_{i ∉ S} MemReq(i)`` (every remaining step costs at least its
MemReq), which never overestimates and satisfies h(S) ≤ max(step, h(S + i)):
the first time V is popped its g is optimal, and the popped key is at any
moment a lower bound on the optimum (returned when the search stops early).

Dominance (free moves): if a ready node i costs no more than the peak so far
(``R(S) + n_i + f_i <= g``) and does not raise the resident memory
(``R(S + i) <= R(S)``), some optimal completion runs i first, so the search
runs it at once and does not branch. Proof: move i to the front of any
completion. Its own step costs at most g. Every step run before i's old
position now sees ``R(T + i)`` instead of ``R(T)`` for a done set T ⊇ S not
holding i, and ``R(T + i) − R(T) = f_i − Σ_{p ∈ pred(i), succ(p) ⊆ T + i} f_p``
(i's successors are not in T) only decreases as T grows, so it is ≤ its
value at S, which is ≤ 0. Steps after i's old position see the same sets.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ..bounds import memreq
from ..heuristics import orders_in_time
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak

BRUTE_FORCE_MAX_N = 8
#: Nodes above which `dp` does not search: its done sets are n-bit integers (n²/4 bytes of masks, 25 MB at
#: 10^4) and one expansion costs O(n²/64) word operations; it returns the incumbent with the MemReq bound.
DP_MAX_N = 10_000


class _OutOfTime(Exception):
    """Raised inside a search step when the deadline has passed (caught by ``_DoneSetSearch.search``)."""


def heuristic_incumbent(graph: Graph, deadline: Deadline) -> list[int]:
    """The better of the greedy and spanning-forest orders (upper bound and hint) made before the deadline;
    the DFS post-order when the deadline allows neither (`heuristics.orders_in_time`)."""
    return min(orders_in_time(graph, deadline), key=lambda order: peak(graph, order))


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Every topological order, n <= 8: the reference the other exact methods are checked against.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    if instance.n > BRUTE_FORCE_MAX_N:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"brute force is limited to n <= {BRUTE_FORCE_MAX_N}",))
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    best_order: list[int] | None = None
    best_peak = math.inf
    for permutation in itertools.permutations(range(graph.n)):
        deadline.check("enumerating orders")
        position = {node: k for k, node in enumerate(permutation)}
        if any(position[u] > position[v] for u, v in instance.edges):
            continue
        value = peak(graph, permutation)
        if value < best_peak:
            best_peak, best_order = value, list(permutation)
    assert best_order is not None  # an acyclic graph has a topological order
    return Result(status=Status.OPTIMAL, solution=Solution.from_indices(instance, best_order), bound=float(best_peak))


@dataclass(frozen=True)
class DpParams:
    """Options of ``dp``.

    Attributes
    ----------
    max_states
        Done sets stored at most (memory guard); when reached, the best
        heuristic order is returned FEASIBLE with the search's lower bound.
    """

    max_states: int = 500_000

    def __post_init__(self) -> None:
        at_least("max_states", self.max_states, 1)


class _DoneSetSearch:
    """The best-first search of `dp` over sets of done nodes (bit masks), with free-move closure.

    Parameters
    ----------
    graph
        The instance's graph.
    upper
        Peak of the heuristic incumbent (states that cannot beat it are pruned).
    """

    def __init__(self, graph: Graph, upper: int, deadline: Deadline) -> None:
        n = graph.n
        self.graph, self.n, self.upper, self.deadline = graph, n, upper, deadline
        self.pred_mask, self.succ_mask = [], []
        for i in range(n):  # n-bit integers: O(n² / 64) words in all, so the deadline is checked
            if i % 1024 == 0:
                deadline.check("building the DP's masks")
            self.pred_mask.append(sum(1 << p for p in graph.predecessors[i]))
            self.succ_mask.append(sum(1 << s for s in graph.successors[i]))
        self.need = [graph.memreq(i) for i in range(n)]
        self.by_need = sorted(range(n), key=lambda i: -self.need[i])
        self.best: dict[int, int] = {}
        self.resident_of: dict[int, int] = {}
        self.came_from: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.heap: list[tuple[int, int, int]] = []
        self.lower = 0
        self.pops = 0
        self.stop_reason: str | None = None

    def rest_bound(self, done: int) -> int:
        """The largest memory requirement of a node not yet done."""
        for i in self.by_need:
            if not done >> i & 1:
                return self.need[i]
        return 0

    def ready(self, done: int, i: int) -> bool:
        """Whether node i is not done and all its predecessors are."""
        return not done >> i & 1 and self.pred_mask[i] & done == self.pred_mask[i]

    def run(self, done: int, resident: int, i: int) -> tuple[int, int]:
        """Done set and resident memory after running ready node i."""
        graph = self.graph
        done |= 1 << i
        resident += graph.kept[i]
        for p in graph.predecessors[i]:
            if self.succ_mask[p] & done == self.succ_mask[p]:
                resident -= graph.output[p]
        return done, resident

    def close(self, done: int, resident: int, worst: int, path: list[int]) -> tuple[int, int]:
        """Apply free moves (see the module docstring) until none is left."""
        moved = True
        while moved:
            self._tick()
            moved = False
            for i in range(self.n):
                if i % 1024 == 1023:
                    self._tick()
                if not self.ready(done, i) or resident + self.graph.step[i] > worst:
                    continue
                after_done, after_resident = self.run(done, resident, i)
                if after_resident <= resident:
                    done, resident = after_done, after_resident
                    path.append(i)
                    moved = True
        return done, resident

    def _tick(self) -> None:
        """Raise `_OutOfTime` once the deadline has passed (a clock read: cheap enough for every step)."""
        if self.deadline.expired():
            raise _OutOfTime

    def search(self, max_states: int) -> int | None:
        """The full done set when reached below ``upper`` (None: pruned out, or stopped: see ``stop_reason``)."""
        try:
            return self._search(max_states)
        except _OutOfTime:
            self.stop_reason = "time limit"
            return None

    def _search(self, max_states: int) -> int | None:
        """`search` without the time-limit handling.

        The deadline is checked at every pop, every successor and every free-move sweep:
        one step costs O(n²) on large graphs.
        """
        full = (1 << self.n) - 1
        start_path: list[int] = []
        start, start_resident = self.close(0, 0, 0, start_path)
        self.best = {start: 0}
        self.resident_of = {start: start_resident}
        self.came_from = {start: (-1, tuple(start_path))}
        self.heap = [(self.rest_bound(start), 0, start)]
        while self.heap:
            key, worst, done = heapq.heappop(self.heap)
            if worst > self.best.get(done, math.inf):
                continue  # stale entry
            self.lower = max(self.lower, key)
            if self.lower >= self.upper:
                return None  # nothing better than the incumbent exists
            if done == full:
                return done
            self.pops += 1
            self._tick()
            if len(self.best) > max_states:
                self.stop_reason = f"{max_states} states"
                return None
            self._expand(done, worst)
        return None

    def _expand(self, done: int, worst: int) -> None:
        """Push every successor state: run a ready node, then close under free moves."""
        resident = self.resident_of[done]
        for i in range(self.n):
            if i % 1024 == 1023:
                self._tick()
            if not self.ready(done, i):
                continue
            self._tick()
            step_worst = max(worst, resident + self.graph.step[i])
            path = [i]
            after, after_resident = self.run(done, resident, i)
            after, after_resident = self.close(after, after_resident, step_worst, path)
            after_key = max(step_worst, self.rest_bound(after))
            if step_worst < self.best.get(after, math.inf) and after_key < self.upper:
                self.best[after] = step_worst
                self.resident_of[after] = after_resident
                self.came_from[after] = (done, tuple(path))
                heapq.heappush(self.heap, (after_key, step_worst, after))

    def order(self, final: int) -> list[int]:
        """The node order that reaches ``final``."""
        order: list[int] = []
        state = final
        while state != -1:
            previous, path = self.came_from[state]
            order[:0] = path
            state = previous
        return order


def dp(instance: Instance, /, *, time_limit: float, seed: int, params: DpParams | None) -> Result:
    """Exact best-first DP over the sets of done nodes with free-move dominance (n up to ~25).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Unused: the method is deterministic.
    params : DpParams | None
        Options; None takes the defaults of ``DpParams``.

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
    params = params or DpParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    incumbent = heuristic_incumbent(graph, deadline)
    upper = peak(graph, incumbent)
    if graph.n > DP_MAX_N:
        return _incumbent_result(instance, incumbent, upper, f"the search is not run above {DP_MAX_N:,} nodes")
    try:
        search = _DoneSetSearch(graph, upper, deadline)
    except TimeLimitReached as stopped:
        return _incumbent_result(instance, incumbent, upper, str(stopped))
    final = search.search(params.max_states)
    notes = [f"{len(search.best)} done sets stored, {search.pops} expanded"]
    if final is None:
        if search.stop_reason is None:  # the incumbent met the search's lower bound: it is optimal
            return Result(
                status=Status.OPTIMAL,
                solution=Solution.from_indices(instance, incumbent),
                bound=float(upper),
                notes=(*notes, "the heuristic incumbent is optimal"),
            )
        bound = min(search.lower, upper)
        return Result(
            status=Status.FEASIBLE,
            solution=Solution.from_indices(instance, incumbent),
            bound=float(bound),
            notes=(*notes, f"stopped at {search.stop_reason}; incumbent from heuristics"),
        )
    return Result(
        status=Status.OPTIMAL,
        solution=Solution.from_indices(instance, search.order(final)),
        bound=float(search.best[final]),
        notes=tuple(notes),
    )


def _incumbent_result(instance: Instance, incumbent: list[int], upper: int, why: str) -> Result:
    """The heuristic order with the MemReq bound (OPTIMAL when it meets it) when the search does not run."""
    lower = memreq(instance)
    return Result(
        status=Status.OPTIMAL if upper <= lower else Status.FEASIBLE,
        solution=Solution.from_indices(instance, incumbent),
        bound=float(min(lower, upper)),
        notes=(f"{why}; incumbent from heuristics, bound: the largest MemReq",),
    )
