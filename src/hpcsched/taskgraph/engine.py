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

import heapq
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..core.errors import HpcschedError
from .gaps import BusyIntervals, earliest_start_linear
from .graph import CycleError, predecessors, successors, topological_order, upward_ranks
from .schedule import DelayRule, Edge, Placement

# The graph functions and the gap search lived here; this module still exports them (tests and callers
# import them from hpcsched.taskgraph.engine).
__all__ = [
    "BusyIntervals",
    "ClassT",
    "CycleError",
    "DurationFunction",
    "FitsFunction",
    "ListScheduler",
    "NoPlacementError",
    "earliest_start_linear",
    "list_schedule",
    "predecessors",
    "successors",
    "topological_order",
    "upward_ranks",
]

#: The type of a machine class (``"cpu"``/``"gpu"`` in hetero, any hashable in partition). Generic so that a
#: caller's ``dict[str, int]`` of machines and ``(int, str)`` duration function type-check as they are
#: (``Mapping`` is invariant in its key and a ``Callable`` contravariant in its arguments).
ClassT = TypeVar("ClassT", bound=Hashable)

#: ``duration(task, machine_class)``: time of the task on one machine of that class, None = cannot run there.
DurationFunction = Callable[[int, ClassT], "float | None"]
#: ``fits(task, (machine_class, machine), start)``: may the task start there then (memory checks)?
FitsFunction = Callable[[int, tuple[ClassT, int], float], bool]


class NoPlacementError(HpcschedError):
    """A task can run on no machine (no class where its duration is defined, or ``fits`` refused them all)."""


@dataclass(frozen=True)
class _Choice:
    finish: float
    start: float
    class_rank: int
    machine: int
    machine_class: Hashable
    duration: float


class ListScheduler(Generic[ClassT]):
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
        machines: Mapping[ClassT, int],
        duration: DurationFunction[ClassT],
        *,
        rule: DelayRule,
        insertion: bool = False,
        fits: FitsFunction[ClassT] | None = None,
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

    def _arrivals(self, task: int, machine_class: ClassT) -> tuple[float, dict[int, float] | None]:
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

    def _earliest_start(self, machine_class: ClassT, machine: int, ready: float, length: float) -> float:
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

    def earliest_free(self, machine_class: ClassT) -> tuple[float, int]:
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
    machines: Mapping[ClassT, int],
    duration: DurationFunction[ClassT],
    priority: Sequence[float],
    *,
    rule: DelayRule,
    insertion: bool = False,
    fits: FitsFunction[ClassT] | None = None,
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
    waiting = [len(incoming) for incoming in state.incoming]
    outgoing = successors(n, edges)
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
