"""The list-scheduling machinery of the parallel heuristics: memory check, event-driven list
schedule, sequential fallback and the check of a finished schedule (see the package docstring)."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ....core.deadline import Deadline
from ....core.errors import InfeasibleError
from ....core.result import Result, Status
from ...bounds import parallel_lower_bound
from ...model import Instance, Solution, memory_levels
from ...simulate import Graph, peak, topological_order
from ...special_cases import forest_parent, liu_optimal_order
from ..sequential import dfs_order, greedy_order


def require_memory(instance: Instance, graph: Graph, deadline: Deadline | None = None) -> list[int] | None:
    """Raise InfeasibleError when no schedule fits M; return Liu's order on in-forests.

    Proof: listing the nodes of a parallel schedule by start time gives a
    sequential order whose step memory at node i is at most the schedule's
    memory just after s_i (everything the order holds, the schedule holds
    too), so the schedule's peak is at least the sequential optimum; and every
    step holds at least MemReq(i).
    """
    memory = instance.memory or 0
    for i in range(graph.n):
        if graph.memreq(i) > memory:
            raise InfeasibleError(
                f"node '{instance.nodes[i].name}' alone needs MemReq {graph.memreq(i)} > M = {memory}"
            )
    parent = forest_parent(graph)
    if parent is None:
        return None
    order, best = liu_optimal_order(graph, parent, deadline)
    if best > memory:
        raise InfeasibleError(f"the sequential optimum of the tree is {best} > M = {memory}: no schedule fits")
    return order


def bottom_levels(instance: Instance, graph: Graph) -> list[int]:
    """Longest path in time from each node to a sink, the node itself included."""
    level = [0] * graph.n
    for i in reversed(topological_order(graph)):  # any topological order, reversed (Kahn's is the cheapest)
        level[i] = instance.nodes[i].time + max((level[s] for s in graph.successors[i]), default=0)
    return level


class _ListRun:
    """The state of one event-driven list-scheduling run (see :func:`list_schedule`).

    The ready nodes sit in a heap by priority (priorities are distinct: they end
    with a rank), and in a second heap by step so that "nothing fits" is seen
    at once; both drop nodes lazily once started.
    """

    def __init__(self, instance: Instance, graph: Graph, priority: Sequence, capped: bool) -> None:
        self.instance, self.graph, self.priority, self.capped = instance, graph, priority, capped
        self.memory = instance.memory or 0
        self.times = [node.time for node in instance.nodes]
        self.missing = [len(pr) for pr in graph.predecessors]
        self.remaining = [len(s) for s in graph.successors]
        self.ready: list[tuple[object, int]] = []
        self.by_step: list[tuple[int, int]] = []
        self.started = [False] * graph.n
        for i in range(graph.n):
            if self.missing[i] == 0:
                self._make_ready(i)
        self.free = list(range(instance.processors or 1))
        self.running: list[tuple[int, int, int]] = []  # (end, node, processor)
        self.start, self.processor = [0] * graph.n, [0] * graph.n
        self.held, self.now, self.done = 0, 0, 0

    def _make_ready(self, i: int) -> None:
        heapq.heappush(self.ready, (self.priority[i], i))
        if self.capped:
            heapq.heappush(self.by_step, (self.graph.step[i], i))

    def _least_ready_step(self) -> int | None:
        by_step = self.by_step
        while by_step and self.started[by_step[0][1]]:
            heapq.heappop(by_step)
        return by_step[0][0] if by_step else None

    def _begin(self, i: int) -> None:
        proc = heapq.heappop(self.free)
        self.started[i] = True
        self.start[i], self.processor[i] = self.now, proc
        self.held += self.graph.step[i]
        heapq.heappush(self.running, (self.now + self.times[i], i, proc))

    def start_ready(self, deadline: Deadline | None = None) -> None:
        """Start ready nodes by priority while a processor is free, each only if its step fits (capped).

        One pass in priority order is the rule "start the first ready node that
        fits, again": the memory held only grows while nodes start, so a node
        that did not fit does not fit later in the same instant.
        """
        skipped: list[tuple[object, int]] = []
        ready, step = self.ready, self.graph.step
        while self.free and ready:
            if self.capped:
                least = self._least_ready_step()
                if least is None or self.held + least > self.memory:
                    break  # nothing ready fits
            entry = heapq.heappop(ready)
            i = entry[1]
            if self.capped and self.held + step[i] > self.memory:
                skipped.append(entry)
                if deadline is not None and len(skipped) % 4096 == 0:
                    deadline.check("list scheduling")
                continue
            self._begin(i)
        for entry in skipped:
            heapq.heappush(ready, entry)

    def finish_schedule(self, i: int, proc: int) -> None:
        """Free node i's processor and memory; consumed inputs go, successors may become ready."""
        graph = self.graph
        self.done += 1
        heapq.heappush(self.free, proc)
        self.held -= self.instance.nodes[i].exec + (0 if graph.successors[i] else graph.output[i])
        for pr in graph.predecessors[i]:
            self.remaining[pr] -= 1
            if self.remaining[pr] == 0:
                self.held -= graph.output[pr]
        for s in graph.successors[i]:
            self.missing[s] -= 1
            if self.missing[s] == 0:
                self._make_ready(s)

    def finish_next_instant(self) -> None:
        """Advance to the next end; every end at this instant frees before any start."""
        self.now = self.running[0][0]
        while self.running and self.running[0][0] == self.now:
            _, i, proc = heapq.heappop(self.running)
            self.finish_schedule(i, proc)


def list_schedule(
    instance: Instance, graph: Graph, priority: Sequence, capped: bool, deadline: Deadline | None = None
) -> tuple[list[int], list[int]] | None:
    """Event-driven list scheduling on p processors; None when the capped run deadlocks.

    Raises `TimeLimitReached` (TIME_LIMIT_NO_SOLUTION) at ``deadline``, checked at every event.
    """
    run = _ListRun(instance, graph, priority, capped)
    while run.done < graph.n:
        if deadline is not None:
            deadline.check("list scheduling")
        run.start_ready(deadline)
        if not run.running:
            return None  # capped and nothing fits: deadlock
        run.finish_next_instant()
    return run.start, run.processor


def sequential_schedule(instance: Instance, order: Sequence[int]) -> tuple[list[int], list[int]]:
    start, now = [0] * instance.n, 0
    for i in order:
        start[i] = now
        now += instance.nodes[i].time
    return start, [0] * instance.n


def finish_schedule(instance: Instance, start: Sequence[int], processor: Sequence[int], *notes: str) -> Result:
    peak = max((held for _, held in memory_levels(instance, start)), default=0)
    if peak > (instance.memory or 0):
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(*notes, f"the schedule needs memory {peak} > M = {instance.memory}; use a capped variant"),
        )
    bound = parallel_lower_bound(instance)
    makespan = max(s + node.time for s, node in zip(start, instance.nodes, strict=False))
    return Result(
        status=Status.OPTIMAL if makespan <= bound else Status.FEASIBLE,
        solution=Solution.schedule(instance, start, processor),
        bound=float(bound),
        notes=(*notes, f"peak memory {peak} of M = {instance.memory}"),
    )


def sequential_fallback(
    instance: Instance, graph: Graph, liu: list[int] | None, forest: list[int] | None, deadline: Deadline
) -> tuple[list[int] | None, str]:
    """A topological order whose sequential peak fits M, and what it is: (None, why) when none tried fits.

    On in-forests Liu's optimal order (``liu``; it fits whenever any schedule
    does, see `require_memory`). On other DAGs, where the sequential optimum is
    NP-hard, the first that fits of: the spanning-forest order (``forest``, the
    list schedule's ranks), the DFS post-order (both linear, tried whatever the
    deadline), the greedy order (under the deadline). Raises `TimeLimitReached`
    when neither linear order fits and the deadline stops the greedy. Every
    sequential order has the same makespan, Σ w.
    """
    if liu is not None:
        return liu, "Liu's optimal sequential order"
    memory = instance.memory or 0
    least = None
    for label, make in (
        ("the spanning-forest order", lambda: forest),
        ("the DFS post-order", lambda: dfs_order(graph)),
        ("the greedy order", lambda: greedy_order(graph, deadline)),
    ):
        order = make()
        if order is None:  # the deadline cut the spanning-forest order before the list schedule
            continue
        value = peak(graph, order)
        if value <= memory:
            return order, label
        least = value if least is None else min(least, value)
    return None, (
        f"no sequential order found fits either (the spanning-forest, DFS and greedy orders need {least} or more "
        f"> M = {memory}; the graph is not a tree, so whether a schedule fits M is not known)"
    )
