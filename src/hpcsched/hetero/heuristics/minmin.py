"""MinMin in O(K·(n log n + e)): per machine class, the ready tasks in heaps keyed by their finish time there.

The rule (unchanged): among the ready tasks, place the one whose earliest
finish time is smallest, ties by the smaller index, at the engine's
`ListScheduler.best_placement`. The structure below finds that task without
re-evaluating the other ready tasks; the schedule is the one of the plain
rule, placement for placement. Why:

1. *What the engine computes.* Without insertion and without ``fits``, with
   the ``"class"`` delay rule, ``best_placement(t)`` examines, on each class
   c where t has a time p(t, c), only the earliest-free machine of c (free
   time F_c, smallest index on ties): start max(r(t, c), F_c), finish
   f(t, c) = max(r(t, c), F_c) + p(t, c), where r(t, c) is t's data-ready
   time on c (the latest end of a predecessor, plus c_uv when it ran on the
   other class). Its end is E(t) = min_c f(t, c).
2. *The task.* The plain rule takes min_t (E(t), t) = min_t min_c (f(t, c),
   t) = min_c min_t (f(t, c), t): minima of lexicographic pairs commute. So
   it is enough to know, for each class, the ready task of smallest (f(t, c),
   t); the smallest of these K pairs names the task, and ``best_placement``
   of that task (the same function on the same state) returns the plain
   rule's placement, class and machine ties included. By induction on the
   steps the state, hence every later choice, is the same.
3. *Per class.* r(t, c) and p(t, c) never change once t is ready (its
   predecessors' placements are final). F_c never decreases (a machine's
   free time only grows; F_c is their minimum). Split the ready tasks of c:
   those with r ≤ F_c finish at F_c + p, so their order is the order of
   (p, t), whatever F_c becomes (``machine_bound``, keyed (p, t)); those
   with r > F_c finish at r + p, independent of F_c (``data_bound``, keyed
   (r + p, t)). A task only ever moves from the second group to the first,
   when F_c reaches r; ``by_ready`` (keyed r) makes these moves in order
   before each query. At r = F_c both formulas give the same finish, so the
   boundary is immaterial. Entries of placed or moved tasks stay in the
   heaps and are dropped when they reach the top (lazy deletion): they are
   not ready tasks of that group, and dropping them changes no minimum.
   The smaller of the two groups' tops, (F_c + p, t) against (r + p, t),
   is min_t (f(t, c), t).

Cost: each task enters at most three heaps per class and leaves each once,
plus one data-ready computation per class and one ``best_placement`` per
task: O(K·(n log n + e)) for K classes. The previous MinMin (a cached best
placement per task, re-evaluated when its machine was taken) made 9.3 million
evaluations on the 10^5-task layered graph; it is kept as the tests' oracle
(``tests/hetero/reference_minmin.py``).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable

from ...core.deadline import Deadline
from ...taskgraph import ListScheduler, NoPlacementError, Placement, successors
from ..model import Instance


class _ClassQueue:
    """The ready tasks that can run on one machine class, by their finish time on its earliest-free machine."""

    def __init__(self, n: int) -> None:
        self.machine_bound: list[tuple[float, int]] = []  # (p, t): r <= F, finish F + p
        self.data_bound: list[tuple[float, int]] = []  # (r + p, t): r > F when pushed, finish r + p
        self.by_ready: list[tuple[float, int, float]] = []  # (r, t, p) of the data_bound entries
        self.moved = bytearray(n)  # moved[t]: t left data_bound for machine_bound

    def add(self, task: int, ready: float, length: float, free: float) -> None:
        """A task became ready: data-ready time ``ready`` on this class, time ``length``; ``free`` = F now."""
        if ready <= free:
            heapq.heappush(self.machine_bound, (length, task))
        else:
            heapq.heappush(self.data_bound, (ready + length, task))
            heapq.heappush(self.by_ready, (ready, task, length))

    def best(self, free: float, placed: bytearray) -> tuple[float, int] | None:
        """(finish, task) of the ready task finishing first here (ties: smaller index); None if none is ready."""
        by_ready, machine_bound, data_bound, moved = self.by_ready, self.machine_bound, self.data_bound, self.moved
        while by_ready and by_ready[0][0] <= free:
            _, task, length = heapq.heappop(by_ready)
            if not placed[task]:
                moved[task] = 1
                heapq.heappush(machine_bound, (length, task))
        while machine_bound and placed[machine_bound[0][1]]:
            heapq.heappop(machine_bound)
        while data_bound and (placed[data_bound[0][1]] or moved[data_bound[0][1]]):
            heapq.heappop(data_bound)
        best = None
        if machine_bound:
            best = (free + machine_bound[0][0], machine_bound[0][1])
        if data_bound and (best is None or data_bound[0] < best):
            best = data_bound[0]
        return best


def _ready_time(state: ListScheduler, task: int, machine_class: Hashable) -> float:
    """Data-ready time of a ready task on a class under the ``"class"`` rule (the engine's formula)."""
    ready: float = 0
    for edge in state.incoming[task]:
        placed = state.placements[edge.u]
        assert placed is not None, f"task {task} is not ready: {edge.u} is not placed"
        ready = max(ready, placed.end + (edge.delay if placed.machine_class != machine_class else 0))
    return ready


class _MinMin:
    """The state of one MinMin run: the engine, the per-class queues, the waiting predecessor counts."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.state = ListScheduler(instance.n, instance.edges, instance.machines, instance.time, rule="class")
        self.queues = {cls: _ClassQueue(instance.n) for cls in self.state.machines}
        self.placed = bytearray(instance.n)

    def make_ready(self, task: int) -> None:
        """Enter a task whose predecessors are all placed into the queue of every class it can run on."""
        runnable = False
        for cls, queue in self.queues.items():
            length = self.instance.time(task, cls)
            if length is not None:
                runnable = True
                queue.add(task, _ready_time(self.state, task, cls), length, self.state.earliest_free(cls)[0])
        if not runnable:
            raise NoPlacementError(f"task '{self.instance.tasks[task].name}' can run on no available machine")

    def place_next(self) -> int | None:
        """Place the ready task of smallest (earliest finish, index); return it, or None when none is ready."""
        best: tuple[float, int] | None = None
        for cls, queue in self.queues.items():
            candidate = queue.best(self.state.earliest_free(cls)[0], self.placed)
            if candidate is not None and (best is None or candidate < best):
                best = candidate
        if best is None:
            return None
        finish, task = best
        placement = self.state.best_placement(task)
        assert placement is not None and placement.end == finish, (task, placement, finish)
        self.state.place(task, placement)
        self.placed[task] = 1
        return task


def minmin_placements(instance: Instance, deadline: Deadline | None = None) -> tuple[Placement, ...]:
    """MinMin's schedule: repeatedly place the ready task whose earliest finish time is smallest (ties: smaller index).

    Each task goes where `ListScheduler.best_placement` puts it. The ready
    task to place is found by heaps per machine class (see the module
    docstring for why this is exactly the plain rule): O(K·(n log n + e))
    for K machine classes, one best-placement evaluation per task.

    Parameters
    ----------
    instance
        The hetero instance.
    deadline
        Checked before each placement; None: no limit.

    Returns
    -------
    tuple of Placement
        One per task, in task order.

    Raises
    ------
    NoPlacementError
        When a task that became ready can run on no available machine.
    """
    run = _MinMin(instance)
    outgoing = successors(instance.n, instance.edges)
    waiting = [len(edges) for edges in run.state.incoming]
    for j in range(instance.n):
        if waiting[j] == 0:
            run.make_ready(j)
    while True:
        if deadline is not None:
            deadline.check("placing tasks (MinMin)")
        task = run.place_next()
        if task is None:
            return run.state.schedule()
        for edge in outgoing[task]:
            waiting[edge.v] -= 1
            if waiting[edge.v] == 0:
                run.make_ready(edge.v)
