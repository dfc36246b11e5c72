"""Exhaustive search of per-device orders for the makespan (the core of `brute_force`).

Every schedule is matched by the semi-active schedule of its per-device orders
(memory-order lemma, docs/pipeline.md), and that schedule, listed by
``(start, block, micro-batch)``, is a sequence in which every job comes after
its predecessors and after the jobs before it on its devices. The search builds
exactly these sequences: it appends one job at a time at its earliest start
given the jobs placed so far (which is its semi-active start, since everything
before it in its orders is placed) and keeps a sequence only while the keys
``(start, block, micro-batch)`` increase, so each tuple of orders is built once.
Micro-batches are interchangeable: relabelling them by the start of their first
block (``b0``, whose jobs share a device and so start at distinct times) maps
every schedule to one whose ``b0`` jobs start in micro-batch order, so job
``(m, b0)`` may only be appended after ``(m - 1, b0)``. Memory is checked as
jobs are appended (the level of a device changes only at its own jobs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...core.deadline import Deadline, TimeLimitReached
from ..bounds import heads, tails
from ..model import Instance


@dataclass
class OrderSearch:
    """State of one exhaustive search (see the module docstring).

    Attributes
    ----------
    best_makespan, best_start
        The best complete schedule found (``inf`` / None before one is).
    nodes
        Jobs appended so far (for the tests and the notes).
    stop_at
        Stop as soon as a schedule of this makespan is found (a proven bound).
    """

    instance: Instance
    deadline: Deadline
    stop_at: float = -math.inf
    best_makespan: float = math.inf
    best_start: list[list[int]] | None = None
    nodes: int = 0
    stopped: bool = False
    timed_out: bool = False
    _saved: list[list[int]] = field(default_factory=list)

    def run(self) -> None:
        """Search every canonical sequence (raises `TimeLimitReached` at the deadline)."""
        instance = self.instance
        n, count = instance.micro_batches, instance.n_blocks
        self._tail = tails(instance)
        self._predecessors = instance.predecessors()
        self._first = instance.topological_order()[0]
        self._limit = [math.inf if m is None else m for m in instance.memory_limit]
        self._start = [[-1] * count for _ in range(n)]
        self._waiting = [[len(self._predecessors[b]) for b in range(count)] for _ in range(n)]
        self._free = [0] * instance.devices
        self._level = [0] * instance.devices
        self._left = [n * w for w in instance.work()]
        self._heads = heads(instance)
        self._successors = instance.successors()
        self._search((-1, -1, -1), 0, n * count)

    def _lower_bound(self, last_start: int, makespan: int) -> int:
        """A lower bound on any completion of the current sequence (every job left starts at >= last_start)."""
        bound = makespan
        blocks = self.instance.blocks
        for device, left in enumerate(self._left):
            if left:
                bound = max(bound, max(self._free[device], last_start) + left)
        for m, row in enumerate(self._start):
            for b, start in enumerate(row):
                if start < 0:
                    earliest = max(last_start, self._ready(m, b))
                    bound = max(bound, earliest + blocks[b].duration + self._tail[b])
        return bound

    def _ready(self, m: int, b: int) -> int:
        """Earliest start of job (m, b) given its placed predecessors (unplaced ones count at their heads)."""
        time = self._heads[b]
        blocks = self.instance.blocks
        for u, delay in self._predecessors[b]:
            if self._start[m][u] >= 0:
                time = max(time, self._start[m][u] + blocks[u].duration + delay)
        return time

    def _candidates(self, last: tuple[int, int, int]) -> list[tuple[int, int, int]]:
        blocks = self.instance.blocks
        found = []
        for m, row in enumerate(self._start):
            for b, start in enumerate(row):
                if start >= 0 or self._waiting[m][b]:
                    continue
                if b == self._first and m > 0 and self._start[m - 1][b] < 0:
                    continue
                time = max([self._ready(m, b)] + [self._free[d] for d in blocks[b].devices])
                if (time, b, m) > last:
                    found.append((time, b, m))
        return sorted(found)

    def _search(self, last: tuple[int, int, int], makespan: int, remaining: int) -> None:
        if remaining == 0:
            if makespan < self.best_makespan:
                self.best_makespan = makespan
                self.best_start = [list(row) for row in self._start]
                self.stopped = makespan <= self.stop_at
            return
        if self._lower_bound(max(last[0], 0), makespan) >= self.best_makespan:
            return
        for time, b, m in self._candidates(last):
            self.nodes += 1
            if self.nodes % 64 == 0:
                self.deadline.check("the order search")
            if self._place(m, b, time):
                end = time + self.instance.blocks[b].duration
                self._search((time, b, m), max(makespan, end), remaining - 1)
                self._unplace(m, b)
            if self.stopped:
                return

    def _place(self, m: int, b: int, time: int) -> bool:
        """Append job (m, b) at ``time``; False (nothing changed) when a device's memory would overflow."""
        block = self.instance.blocks[b]
        if any(self._level[d] + max(block.memory, 0) > self._limit[d] for d in block.devices):
            return False
        self._start[m][b] = time
        self._saved.append([self._free[d] for d in block.devices])
        for d in block.devices:
            self._free[d] = time + block.duration
            self._level[d] += block.memory
            self._left[d] -= block.duration
        for c, _ in self._successors[b]:
            self._waiting[m][c] -= 1
        return True

    def _unplace(self, m: int, b: int) -> None:
        block = self.instance.blocks[b]
        self._start[m][b] = -1
        for d, free in zip(block.devices, self._saved.pop(), strict=True):
            self._free[d] = free
            self._level[d] -= block.memory
            self._left[d] += block.duration
        for c, _ in self._successors[b]:
            self._waiting[m][c] += 1


def search_orders(instance: Instance, deadline: Deadline, stop_at: float = -math.inf) -> OrderSearch:
    """Run an `OrderSearch` to its end or to the deadline (then ``timed_out`` is True; the best so far is kept)."""
    search = OrderSearch(instance, deadline, stop_at)
    try:
        search.run()
    except TimeLimitReached:
        search.timed_out = True
    return search
