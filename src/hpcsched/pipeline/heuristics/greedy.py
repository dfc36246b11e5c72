"""Memory-aware list schedules: one priority rule per function, and `greedy`, the best of them.

The engine builds a schedule job by job (Giffler and Thompson's active
schedules, Operations Research 1960): among the *candidates* (for each
block, the next micro-batch that has not run it, once its predecessors in
that micro-batch have run; micro-batches run each block in order, as every
pipeline schedule does), take the one that would end first, j*, and the
candidates sharing a device with j* that could start before j* ends; the
rule picks one of those. A job is a candidate only if its allocation fits
(level + δ <= M on each of its devices) and it leaves the state *safe*
(banker's algorithm, Dijkstra 1965): the micro-batches in flight, oldest
first, can each be completed alone in the frees-first order with the memory
left plus what the older ones give back. From a safe state the oldest
micro-batch's next job in that order keeps it safe, so the engine never
deadlocks; without memory limits safety is not checked.

Rules (the key among the conflicting jobs):

* `greedy_backward_first`: B, then W, then F (unlabelled blocks: frees,
  neutral, allocations), oldest micro-batch first: 1F1B's instinct,
  memory back as early as possible.
* `greedy_critical_path`: the longest remaining path (duration + tail) first
  (Hu's level rule, Operations Research 1961), oldest first.
* `greedy_memory_tight`: forward first (GPipe's instinct) while the device
  could still take its largest allocation after the job, backward first
  once memory is tight.

Period: the modulo schedule (`periodic.repetend`) with the rule's static
order (micro-batch, then kind or remaining path). The orders are timed
semi-actively at the end (the engine's starts are already semi-active).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from ..bounds import tails
from ..model import Instance, require_fits
from ..simulate import Job, orders_from_sequence, single_micro_batch_order
from .common import not_applicable, timed
from .periodic import repetend

_BACKWARD_RANK = {"B": 0, "W": 1, "F": 2}
_FORWARD_RANK = {"F": 0, "B": 1, "W": 2}


def _rank(instance: Instance, b: int, ranks: dict[str, int]) -> int:
    block = instance.blocks[b]
    if block.kind is not None:
        return ranks[block.kind]
    sign = (block.memory > 0) - (block.memory < 0)  # frees -1, neutral 0, allocations 1
    return sign + 1 if ranks is _BACKWARD_RANK else 1 - sign


class _Engine:
    """State of one list schedule (module docstring)."""

    def __init__(self, instance: Instance, rule: str, deadline: Deadline):
        self.instance, self.rule, self.deadline = instance, rule, deadline
        n, blocks = instance.micro_batches, instance.blocks
        self.predecessors, self.successors = instance.predecessors(), instance.successors()
        self.limit = [math.inf if m is None else m for m in instance.memory_limit]
        self.limited = any(m is not None for m in instance.memory_limit)
        self.largest = [max([b.memory for b in blocks if d in b.devices] + [0]) for d in range(instance.devices)]
        self.tail = tails(instance)
        self.alone = single_micro_batch_order(instance)
        self.end: list[list[int | None]] = [[None] * len(blocks) for _ in range(n)]
        self.next = [0] * len(blocks)
        self.free_at = [0] * instance.devices
        self.level = [0] * instance.devices
        self.held: dict[int, list[int]] = {}
        self.need: dict[int, list[int]] = {}
        self.left = [len(blocks)] * n
        self.sequence: list[Job] = []
        self.ready = {b for b in range(len(blocks)) if self._is_ready(b)}

    def _is_ready(self, b: int) -> bool:
        m = self.next[b]
        return m < self.instance.micro_batches and all(self.end[m][u] is not None for u, _ in self.predecessors[b])

    def _est(self, b: int) -> int:
        m, block = self.next[b], self.instance.blocks[b]
        ready = max((self.end[m][u] + delay for u, delay in self.predecessors[b]), default=0)  # type: ignore[operator]
        return max(ready, *(self.free_at[d] for d in block.devices))

    def _fits(self, b: int) -> bool:
        block = self.instance.blocks[b]
        return all(self.level[d] + max(block.memory, 0) <= self.limit[d] for d in block.devices)

    def _need(self, m: int, skip: int | None = None) -> list[int]:
        """Per device, how far above its present level micro-batch m rises if it finishes alone (frees-first)."""
        need, relative = [0] * self.instance.devices, [0] * self.instance.devices
        for b in self.alone:
            if b == skip or self.end[m][b] is not None:
                continue
            block = self.instance.blocks[b]
            for d in block.devices:
                need[d] = max(need[d], relative[d] + max(block.memory, 0))
                relative[d] += block.memory
        return need

    def _safe(self, b: int) -> bool:
        """True when running job (next[b], b) leaves a state whose in-flight micro-batches can all finish."""
        m, block = self.next[b], self.instance.blocks[b]
        available = [limit - level for limit, level in zip(self.limit, self.level, strict=True)]
        for d in block.devices:
            available[d] -= block.memory
        for other in sorted({*self.held, m}):
            need = self._need(m, skip=b) if other == m else self.need[other]
            if any(need[d] > available[d] for d in range(len(available))):
                return False
            held = self.held.get(other, [0] * len(available))
            for d in range(len(available)):
                available[d] += held[d] + (block.memory if other == m and d in block.devices else 0)
        return True

    def _key(self, b: int, est: int, device: int) -> Hashable:
        m, block = self.next[b], self.instance.blocks[b]
        if self.rule == "critical-path":
            return (-(block.duration + self.tail[b]), m, est)
        ranks = _BACKWARD_RANK
        if self.rule == "memory-tight" and self.level[device] + self.largest[device] <= self.limit[device]:
            ranks = _FORWARD_RANK
        return (_rank(self.instance, b, ranks), m, est)

    def _choose(self) -> int | None:
        pool = {b for b in self.ready if self._fits(b)}
        while pool:
            est = {b: self._est(b) for b in pool}
            first = min(pool, key=lambda b: (est[b] + self.instance.blocks[b].duration, b))
            window, devices = (
                est[first] + self.instance.blocks[first].duration,
                set(self.instance.blocks[first].devices),
            )
            conflict = [b for b in pool if est[b] < window and devices & set(self.instance.blocks[b].devices)]
            conflict.sort(key=lambda b: (self._key(b, est[b], self.instance.blocks[first].device), b))
            for b in conflict:
                if not self.limited or self._safe(b):
                    return b
            pool -= set(conflict)
        return None

    def _run(self, b: int) -> None:
        m, block = self.next[b], self.instance.blocks[b]
        start = self._est(b)
        self.end[m][b] = start + block.duration
        for d in block.devices:
            self.free_at[d] = start + block.duration
            self.level[d] += block.memory
        self.sequence.append((m, b))
        self.left[m] -= 1
        held = self.held.setdefault(m, [0] * self.instance.devices)
        for d in block.devices:
            held[d] += block.memory
        if self.left[m] == 0:
            del self.held[m]
            self.need.pop(m, None)
        elif self.limited:
            self.need[m] = self._need(m)
        self.next[b] += 1
        for c in {b, *(c for c, _ in self.successors[b])}:
            if self._is_ready(c):
                self.ready.add(c)
            else:
                self.ready.discard(c)

    def schedule(self) -> list[Job] | None:
        """The job sequence, or None on a deadlock (only when one micro-batch alone overflows)."""
        total = self.instance.micro_batches * self.instance.n_blocks
        while len(self.sequence) < total:
            if len(self.sequence) % 128 == 0:
                self.deadline.check(f"list scheduling ({self.rule})")
            b = self._choose()
            if b is None:
                return None
            self._run(b)
        return self.sequence


def _period_key(instance: Instance, rule: str) -> Callable[[int, int], Hashable]:
    position = {b: i for i, b in enumerate(instance.topological_order())}
    if rule == "critical-path":
        tail = tails(instance)
        return lambda r, b: (r, -(instance.blocks[b].duration + tail[b]), position[b])
    if rule == "backward-first":
        return lambda r, b: (r, _rank(instance, b, _BACKWARD_RANK), position[b])
    return lambda r, b: (r, position[b])


def _list_schedule(instance: Instance, rule: str, deadline: Deadline) -> Result:
    name = f"greedy-{rule}"
    if instance.is_period:
        return repetend(instance, _period_key(instance, rule), deadline, f"the {name} repetend")
    sequence = _Engine(instance, rule, deadline).schedule()
    if sequence is None:
        return not_applicable(f"{name}: one micro-batch alone does not fit in the frees-first order")
    return timed(instance, orders_from_sequence(instance, sequence), name, deadline, (f"rule {rule}",))


def greedy_backward_first(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """List schedule, backward first (B, W, then F; oldest micro-batch first); memory-aware (module docstring)."""
    require_fits(instance)
    return _list_schedule(instance, "backward-first", Deadline.after(time_limit))


def greedy_critical_path(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """List schedule, longest remaining path first (Hu 1961); memory-aware (module docstring)."""
    require_fits(instance)
    return _list_schedule(instance, "critical-path", Deadline.after(time_limit))


def greedy_memory_tight(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """List schedule, forward first while memory is loose, backward first once tight; memory-aware."""
    require_fits(instance)
    return _list_schedule(instance, "memory-tight", Deadline.after(time_limit))


#: The rules `greedy` tries, in order.
RULES = ("backward-first", "critical-path", "memory-tight")


def greedy(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """The best of the list schedules of `RULES` (each run in what the others left of the time limit)."""
    require_fits(instance)
    deadline = Deadline.after(time_limit)
    best: Result | None = None
    for rule in RULES:
        try:
            result = _list_schedule(instance, rule, deadline)
        except TimeLimitReached:
            if best is None:
                raise
            best = best.replace(notes=(*best.notes, f"time limit reached during rule {rule}"))
            break
        if result.solution is None:
            continue
        value = result.solution.period if instance.is_period else _makespan(instance, result)
        if best is None or value < _value(instance, best):
            best = result.replace(notes=(f"best rule: {rule}",))
        if best.status is Status.OPTIMAL:
            break
    return best if best is not None else not_applicable("no rule found a schedule that fits in memory")


def _makespan(instance: Instance, result: Result) -> int:
    return max(s + blk.duration for row in result.solution.start for s, blk in zip(row, instance.blocks, strict=True))


def _value(instance: Instance, result: Result) -> int:
    return result.solution.period if instance.is_period else _makespan(instance, result)
