"""A list-scheduling engine for task graphs on machines of several classes.

`ListScheduler` places tasks one at a time, each at its *earliest finish
time* over all machines it can run on (HEFT's rule), given

* the DAG (task count and `Edge` list with delays, charged per `DelayRule`);
* ``machines``: class -> number of identical machines;
* ``duration(task, machine_class)``: the task's time on that class, or None
  when it cannot run there (machines of one class are identical);
* ``insertion``: whether a task may fill an idle gap between two tasks
  already placed on a machine (HEFT with insertion) or only go after the
  last one (no insertion);
* ``fits(task, (machine_class, machine), start) -> bool``: an optional hook
  (partition's memory check): a machine where the task does not fit at its
  earliest start is skipped.

`list_schedule` drives it with a ready queue: among the tasks whose
predecessors are all placed, the one with the smallest ``priority`` goes
next (ties by task index). A topological order given as priorities
(``priority[j]`` = position of j) is followed exactly: when every task
before the next one is placed, the next one is ready and has the smallest
key among the ready tasks.

Determinism and ties: among machines with the same finish time the engine
takes the earliest start, then the class in the order of ``machines``, then
the machine whose last task ends first, then the smallest index (the heap
below makes the same choice).

Cost. Data-ready times cost O(deg(v)) per task and class with the
``"class"`` rule, O(deg(v) + K) with the ``"machine"`` rule (best and
second-best arrival from another machine). Without insertion and without
``fits``, the machine of a class is the one free the earliest (a heap per
class: finish = max(ready, free) + p is smallest there), so a whole schedule
costs O(n log n + e) for a fixed number of classes. With insertion or
``fits`` every machine of every class is examined: O(n·M) gap searches,
each O(B + log(t/B)) on a machine holding t tasks (`BusyIntervals`: blocks
of B = 32 to 64 intervals with their largest gap, a max segment tree over
the blocks; the answer is the linear scan's, `earliest_start_linear`, which
the tests keep as the oracle). Before it, the scan was O(t) per machine:
HEFT with insertion took minutes at 10^5 tasks.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from ..core.errors import HpcschedError
from .schedule import DelayRule, Edge, Placement

#: ``duration(task, machine_class)``: time of the task on one machine of that class, None = cannot run there.
DurationFunction = Callable[[int, Hashable], "float | None"]
#: ``fits(task, (machine_class, machine), start)``: may the task start there then (memory checks)?
FitsFunction = Callable[[int, tuple[Hashable, int], float], bool]


class NoPlacementError(HpcschedError):
    """A task can run on no machine (no class where its duration is defined, or ``fits`` refused them all)."""


class CycleError(HpcschedError, ValueError):
    """The edges contain a cycle (the message names a task on it)."""


def predecessors(n: int, edges: Sequence[Edge]) -> list[list[Edge]]:
    """The incoming edges of every task."""
    incoming: list[list[Edge]] = [[] for _ in range(n)]
    for edge in edges:
        incoming[edge.v].append(edge)
    return incoming


def successors(n: int, edges: Sequence[Edge]) -> list[list[Edge]]:
    """The outgoing edges of every task."""
    outgoing: list[list[Edge]] = [[] for _ in range(n)]
    for edge in edges:
        outgoing[edge.u].append(edge)
    return outgoing


def topological_order(n: int, edges: Sequence[Edge]) -> list[int]:
    """Kahn's order (smallest ready index first); raises `CycleError` on a cycle."""
    indegree = [0] * n
    outgoing = successors(n, edges)
    for edge in edges:
        indegree[edge.v] += 1
    ready = [j for j in range(n) if indegree[j] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for edge in outgoing[u]:
            indegree[edge.v] -= 1
            if indegree[edge.v] == 0:
                heapq.heappush(ready, edge.v)
    if len(order) < n:
        stuck = next(j for j in range(n) if indegree[j] > 0)
        raise CycleError(f"the task graph has a cycle through task {stuck}")
    return order


def upward_ranks(n: int, edges: Sequence[Edge], cost: Sequence[float], *, with_delays: bool = True) -> list[float]:
    """HEFT's upward rank: ``rank(u) = cost[u] + max over edges (u, v) of (delay + rank(v))``.

    ``rank(u)`` is the length of the longest path from ``u`` to an exit task
    with the given task costs (and edge delays when ``with_delays``).
    """
    outgoing = successors(n, edges)
    rank = [0.0] * n
    for u in reversed(topological_order(n, edges)):
        tail = 0.0
        for edge in outgoing[u]:
            tail = max(tail, (edge.delay if with_delays else 0) + rank[edge.v])
        rank[u] = cost[u] + tail
    return rank


def earliest_start_linear(intervals: Sequence[tuple[float, float]], ready: float, length: float) -> float:
    """The reference first-fit scan: earliest start >= ready of a task of ``length`` between ``intervals``.

    ``intervals`` are disjoint non-empty busy intervals sorted by start. The
    candidates are ``ready`` and the ends of the intervals after it, tried in
    order; the first one whose task ends by the next interval's start wins
    (``start + length <= begin``), else the last end. O(number of intervals):
    kept as the test oracle of `BusyIntervals.earliest_start`.
    """
    position = bisect.bisect_left(intervals, (ready, ready))
    start = ready
    if position > 0:
        start = max(start, intervals[position - 1][1])
    for index in range(position, len(intervals)):
        begin, end = intervals[index]
        if start + length <= begin:
            return start
        start = max(start, end)
    return start


class BusyIntervals:
    """The busy intervals of one machine with a sub-linear first-fit query (HEFT's insertion).

    The intervals (disjoint, non-empty, sorted by start) are kept in blocks
    of at most ``2 * block`` consecutive intervals. For each block we keep
    the largest *gap* ``begin_i - end_{i-1}`` that ends in it (the gap before
    its first interval is measured from the previous block's last end), and
    a max segment tree over the blocks. `earliest_start` returns exactly what
    `earliest_start_linear` returns on the same intervals:

    * after the interval that precedes ``ready`` every candidate start is the
      end of an interval, and it fits iff ``end_{i-1} + length <= begin_i``
      (the same float comparison as the scan, so the same answer);
    * a block whose largest gap is below ``length`` minus a margin far above
      the rounding error of ``begin - end`` cannot contain a fitting gap, so
      the segment tree skips it; the blocks it does not skip are scanned
      with the exact comparison, in order.

    Cost: O(block + log(n / block)) per query, O(block) per insertion plus
    O(n / block) when a block splits (every ``block`` insertions at most).
    """

    def __init__(self, block: int = 32):
        self.block = block
        self.blocks: list[list[tuple[float, float]]] = []
        self.firsts: list[tuple[float, float]] = []
        self.largest_gap: list[float] = []
        self.tree: list[float] = []
        self.leaves = 1
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        for block in self.blocks:
            yield from block

    # -- segment tree over the blocks' largest gaps ---------------------------------------------
    def _rebuild(self) -> None:
        leaves = 1
        while leaves < len(self.blocks):
            leaves *= 2
        self.leaves = leaves
        tree = [-math.inf] * (2 * leaves)
        tree[leaves : leaves + len(self.largest_gap)] = self.largest_gap
        for node in range(leaves - 1, 0, -1):
            tree[node] = max(tree[2 * node], tree[2 * node + 1])
        self.tree = tree

    def _set_gap(self, index: int) -> None:
        block = self.blocks[index]
        previous_end = self.blocks[index - 1][-1][1] if index > 0 else None
        largest = -math.inf
        for begin, end in block:
            if previous_end is not None and begin - previous_end > largest:
                largest = begin - previous_end
            previous_end = end
        self.largest_gap[index] = largest
        node = self.leaves + index
        self.tree[node] = largest
        node //= 2
        while node:
            self.tree[node] = max(self.tree[2 * node], self.tree[2 * node + 1])
            node //= 2

    def _first_block_at_least(self, first: int, threshold: float) -> int | None:
        """The smallest block index >= first whose largest gap is >= threshold (None if none)."""
        if first >= len(self.blocks):
            return None
        tree, leaves = self.tree, self.leaves
        node = leaves + first
        if tree[node] >= threshold:
            return first
        # climb until a right sibling holds a candidate, then descend to its leftmost candidate
        while True:
            if node % 2 == 0 and tree[node + 1] >= threshold:
                node += 1
                break
            node //= 2
            if node <= 1:
                return None
        while node < leaves:
            node = 2 * node if tree[2 * node] >= threshold else 2 * node + 1
        index = node - leaves
        return index if index < len(self.blocks) else None

    # -- updates and queries --------------------------------------------------------------------
    def insert(self, interval: tuple[float, float]) -> None:
        """Add a non-empty busy interval (disjoint from the others)."""
        self.count += 1
        if not self.blocks:
            self.blocks.append([interval])
            self.firsts.append(interval)
            self.largest_gap.append(-math.inf)
            self._rebuild()
            return
        index = max(0, bisect.bisect_right(self.firsts, interval) - 1)
        block = self.blocks[index]
        bisect.insort(block, interval)
        self.firsts[index] = block[0]
        touched = 2  # this block, and the next one (the gap before its first interval may have changed)
        if len(block) > 2 * self.block:
            half = len(block) // 2
            self.blocks[index : index + 1] = [block[:half], block[half:]]
            self.firsts[index : index + 1] = [block[0], block[half]]
            self.largest_gap[index : index + 1] = [-math.inf, -math.inf]
            self._rebuild()
            touched = 3
        for changed in range(index, min(index + touched, len(self.blocks))):
            self._set_gap(changed)

    def last_end(self) -> float:
        return self.blocks[-1][-1][1]

    def earliest_start(self, ready: float, length: float) -> float:
        """What `earliest_start_linear` returns on these intervals, in O(block + log n)."""
        blocks = self.blocks
        if not blocks:
            return ready
        last_end = blocks[-1][-1][1]
        if ready >= last_end:
            return ready  # the scan: start = max(ready, last end) and nothing after
        key = (ready, ready)
        index = max(0, bisect.bisect_right(self.firsts, key) - 1)
        block = blocks[index]
        local = bisect.bisect_left(block, key)
        if local == len(block):  # the position is the first interval of the next block
            if index + 1 == len(blocks):
                return last_end  # ready falls inside the last interval: the scan returns its end
            index, local = index + 1, 0
            block = blocks[index]
        # the interval before the position (within the block or the previous block's last)
        if local > 0:
            previous_end = block[local - 1][1]
        elif index > 0:
            previous_end = blocks[index - 1][-1][1]
        else:
            previous_end = None
        start = ready if previous_end is None else max(ready, previous_end)
        begin, end = block[local]
        if start + length <= begin:
            return start
        previous_end = end  # from here on every candidate is an interval's end
        for begin, end in block[local + 1 :]:
            if previous_end + length <= begin:
                return previous_end
            previous_end = end
        # skip whole blocks whose largest gap cannot hold the task; the margin dwarfs rounding
        margin = 1e-9 * (abs(length) + abs(last_end) + abs(blocks[0][0][0]))
        threshold = length - margin
        following = index + 1
        while True:
            found = self._first_block_at_least(following, threshold)
            if found is None:
                return last_end
            previous_end = blocks[found - 1][-1][1]
            for begin, end in blocks[found]:
                if previous_end + length <= begin:
                    return previous_end
                previous_end = end
            following = found + 1


@dataclass(frozen=True)
class _Choice:
    finish: float
    start: float
    class_rank: int
    machine: int
    machine_class: Hashable
    duration: float


class ListScheduler:
    """The state of a partial schedule: placed tasks, machines' busy intervals.

    Use `best_placement` to ask where a task would finish earliest and
    `place` to commit it (heuristics such as MinMin compare several tasks'
    best placements before committing one). `list_schedule` is the usual
    driver. Every method is deterministic.
    """

    def __init__(
        self,
        n: int,
        edges: Sequence[Edge],
        machines: Mapping[Hashable, int],
        duration: DurationFunction,
        *,
        rule: DelayRule,
        insertion: bool = False,
        fits: FitsFunction | None = None,
    ):
        self.n = n
        self.edges = tuple(edges)
        self.machines = {cls: int(count) for cls, count in machines.items() if count > 0}
        self.class_rank = {cls: r for r, cls in enumerate(self.machines)}
        self.duration = duration
        self.rule = rule
        self.insertion = insertion
        self.fits = fits
        self.incoming = predecessors(n, edges)
        self.placements: list[Placement | None] = [None] * n
        # Busy intervals per machine, sorted by start (only their ends are needed without insertion).
        self.busy: dict[Hashable, list[BusyIntervals]] = {
            cls: [BusyIntervals() for _ in range(count)] for cls, count in self.machines.items()
        }
        self.free: dict[Hashable, list[float]] = {cls: [0] * count for cls, count in self.machines.items()}
        self.heaps: dict[Hashable, list[tuple[float, int]]] = {
            cls: [(0, i) for i in range(count)] for cls, count in self.machines.items()
        }

    # -- queries --------------------------------------------------------------------------------
    def is_ready(self, task: int) -> bool:
        """All predecessors placed."""
        return all(self.placements[e.u] is not None for e in self.incoming[task])

    def _arrivals(self, task: int, machine_class: Hashable) -> tuple[float, dict[int, float] | None]:
        """Data-ready time on ``machine_class``; with the ``"machine"`` rule also per machine."""
        if self.rule == "class":
            ready: float = 0
            for edge in self.incoming[task]:
                placed = self.placements[edge.u]
                assert placed is not None, f"task {task} is not ready: {edge.u} is not placed"
                arrival = placed.end + (edge.delay if placed.machine_class != machine_class else 0)
                ready = max(ready, arrival)
            return ready, None
        # "machine" rule: on machine m, an arrival is end (same machine) or end + delay.
        local: dict[int, float] = {}  # machine index of this class -> latest local end
        # the two largest end + delay from different machines, with the (class, machine) they come from
        best_apart: list[tuple[float, tuple[Hashable, int] | None]] = [(0.0, None), (0.0, None)]
        per_machine_apart: dict[tuple[Hashable, int], float] = {}
        for edge in self.incoming[task]:
            placed = self.placements[edge.u]
            assert placed is not None, f"task {task} is not ready: {edge.u} is not placed"
            key = (placed.machine_class, placed.machine)
            per_machine_apart[key] = max(per_machine_apart.get(key, 0.0), placed.end + edge.delay)
            if placed.machine_class == machine_class:
                local[placed.machine] = max(local.get(placed.machine, 0.0), placed.end)
        for key, value in per_machine_apart.items():
            if value > best_apart[0][0]:
                best_apart = [(value, key), best_apart[0]]
            elif value > best_apart[1][0]:
                best_apart[1] = (value, key)
        ready_elsewhere = best_apart[0][0]
        per_machine = {}
        for machine, local_end in local.items():
            key = (machine_class, machine)
            apart = best_apart[1][0] if best_apart[0][1] == key else best_apart[0][0]
            per_machine[machine] = max(apart, local_end)
        return ready_elsewhere, per_machine

    def _earliest_start(self, machine_class: Hashable, machine: int, ready: float, length: float) -> float:
        """Earliest start >= ready on the machine (in a gap when inserting, after its last task otherwise).

        A task of length 0 occupies nothing (the validator's empty interval), so with insertion it
        starts at its data-ready time.
        """
        if not self.insertion:
            return max(ready, self.free[machine_class][machine])
        if length == 0:
            return ready
        # disjoint non-empty intervals sorted by start; the same answer as earliest_start_linear
        return self.busy[machine_class][machine].earliest_start(ready, length)

    def best_placement(self, task: int) -> Placement | None:
        """Where ``task`` finishes earliest (ties: see the module docstring); None if it can run nowhere."""
        best: _Choice | None = None
        best_key: tuple = ()
        for machine_class, count in self.machines.items():
            length = self.duration(task, machine_class)
            if length is None:
                continue
            ready, per_machine = self._arrivals(task, machine_class)
            if not self.insertion and self.fits is None and per_machine is None:
                free, machine = self.earliest_free(machine_class)
                start = max(ready, free)
                candidates = [(start, machine)]
            else:
                candidates = []
                for machine in range(count):
                    machine_ready = per_machine.get(machine, ready) if per_machine is not None else ready
                    start = self._earliest_start(machine_class, machine, machine_ready, length)
                    if self.fits is not None and not self.fits(task, (machine_class, machine), start):
                        continue
                    candidates.append((start, machine))
            for start, machine in candidates:
                key = (
                    start + length,
                    start,
                    self.class_rank[machine_class],
                    self.free[machine_class][machine],
                    machine,
                )
                if best is None or key < best_key:
                    best, best_key = _Choice(*key[:3], machine, machine_class, length), key
        if best is None:
            return None
        return Placement(best.machine_class, best.machine, best.start, best.duration)

    # -- updates --------------------------------------------------------------------------------
    def place(self, task: int, placement: Placement) -> None:
        """Commit ``placement`` of ``task`` (the caller chose a feasible one, e.g. `best_placement`)."""
        self.placements[task] = placement
        machine_class, machine = placement.machine_class, placement.machine
        if placement.duration > 0:
            self.busy[machine_class][machine].insert((placement.start, placement.end))
        if placement.end > self.free[machine_class][machine]:
            self.free[machine_class][machine] = placement.end
            # Lazy heap: the old entry of this machine becomes stale (its time is below the
            # machine's free time, which only grows) and is dropped when it reaches the top.
            heapq.heappush(self.heaps[machine_class], (placement.end, machine))

    def earliest_free(self, machine_class: Hashable) -> tuple[float, int]:
        """``(free time, index)`` of the machine of the class that is free the earliest (smallest index on ties)."""
        heap = self.heaps[machine_class]
        while heap[0][0] != self.free[machine_class][heap[0][1]]:
            heapq.heappop(heap)
        return heap[0]

    def schedule(self) -> tuple[Placement, ...]:
        """The placements once every task is placed."""
        missing = [j for j, p in enumerate(self.placements) if p is None]
        if missing:
            raise ValueError(f"tasks {missing[:5]} are not placed")
        return tuple(p for p in self.placements if p is not None)


def list_schedule(
    n: int,
    edges: Sequence[Edge],
    machines: Mapping[Hashable, int],
    duration: DurationFunction,
    priority: Sequence[float],
    *,
    rule: DelayRule,
    insertion: bool = False,
    fits: FitsFunction | None = None,
    names: Sequence[str] | None = None,
    on_place: Callable[[int, Placement], None] | None = None,
) -> tuple[Placement, ...]:
    """List scheduling: take the ready task of smallest ``priority``, place it at its earliest finish.

    Parameters
    ----------
    n, edges
        The DAG (task indices ``0..n-1``).
    machines
        Class -> number of identical machines.
    duration
        ``duration(task, machine_class)`` or None where the task cannot run.
    priority
        Key per task; smaller goes first among ready tasks (ties by index).
        HEFT passes ``-upward_rank``.
    rule, insertion, fits
        See `ListScheduler`.
    names
        Task names for error messages.
    on_place
        Called as ``on_place(task, placement)`` after each task is committed,
        so that a stateful ``fits`` (partition's memory reservations) learns
        where the task went. None: nothing is called.

    Returns
    -------
    tuple of Placement
        One per task, in task order.

    Raises
    ------
    NoPlacementError
        A task has no machine to run on.
    CycleError
        The edges contain a cycle.
    """
    state = ListScheduler(n, edges, machines, duration, rule=rule, insertion=insertion, fits=fits)
    waiting = [0] * n
    outgoing = successors(n, edges)
    for edge in edges:
        waiting[edge.v] += 1
    ready = [(priority[j], j) for j in range(n) if waiting[j] == 0]
    heapq.heapify(ready)
    placed = 0
    while ready:
        _, task = heapq.heappop(ready)
        placement = state.best_placement(task)
        if placement is None:
            name = f" '{names[task]}'" if names is not None else ""
            raise NoPlacementError(f"task {task}{name} can run on no available machine")
        state.place(task, placement)
        if on_place is not None:
            on_place(task, placement)
        placed += 1
        for edge in outgoing[task]:
            waiting[edge.v] -= 1
            if waiting[edge.v] == 0:
                heapq.heappush(ready, (priority[edge.v], edge.v))
    if placed < n:
        topological_order(n, edges)  # raises CycleError naming a task
    return state.schedule()
