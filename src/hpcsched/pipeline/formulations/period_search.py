"""Exhaustive search of periodic schedules of a fixed period (the period half of `brute_force`).

For a fixed P, the search gives every job ``(r, b)`` of the R micro-batches an
integer offset, one job at a time (micro-batch by micro-batch, each in a
topological order that lists the sources first), at or after its
predecessors' ends plus delays, and keeps a partial schedule only while no two
executions on a device overlap modulo P (each device's circle of P unit slots)
and each micro-batch fits the *period horizon* (docs/pipeline.md, "The period
horizon"): a source's start in [0, P) and its span at most
``sum_b (d_b + max out-delay_b) + (B - 1)(P - 1)``. Two dominance rules
(docs/pipeline.md, "Tight offsets") cut the offsets further: a block that
has predecessors and allocates nothing starts less than P after its
predecessors allow, and a block that allocates (or a source that holds
nothing) starts less than P before its successors require. By these theorems
a period-P schedule exists only if one of the schedules searched does. The
steady-state memory of a complete schedule is checked with the definition's
formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.deadline import Deadline
from ..model import Instance, Solution, steady_state_levels


def horizon_span(instance: Instance, period: int) -> int:
    """The longest span (last end - first start) a micro-batch needs in a period-``period`` schedule."""
    out_delay = [0] * instance.n_blocks
    for edge in instance.edges:
        out_delay[edge.source] = max(out_delay[edge.source], edge.delay)
    extent = sum(block.duration + out_delay[b] for b, block in enumerate(instance.blocks))
    return extent + (instance.n_blocks - 1) * (period - 1)


def _job_order(instance: Instance) -> list[int]:
    order = instance.topological_order()
    indegree = [0] * instance.n_blocks
    for edge in instance.edges:
        indegree[edge.target] += 1
    return [b for b in order if indegree[b] == 0] + [b for b in order if indegree[b] > 0]


@dataclass
class PeriodSearch:
    """The search for one period (module docstring); ``found`` holds the offsets of a feasible schedule."""

    instance: Instance
    period: int
    deadline: Deadline
    nodes: int = 0
    found: list[list[int]] | None = None
    _busy: list[list[bool]] = field(default_factory=list)

    def run(self) -> bool:
        """True when a feasible schedule of this period exists (it is in ``found``); raises at the deadline."""
        instance, period = self.instance, self.period
        if any(block.duration > period for block in instance.blocks):
            return False
        if any(instance.micro_batches * work > period for work in instance.work()):
            return False
        self._busy = [[False] * period for _ in range(instance.devices)]
        self._span = horizon_span(instance, period)
        self._order = _job_order(instance)
        self._predecessors = instance.predecessors()
        self._successors = instance.successors()
        position = {b: i for i, b in enumerate(self._order)}
        # blocks whose offset is tied to their successors (rule "late"), checked when their last successor is placed
        self._check_at: list[list[int]] = [[] for _ in instance.blocks]
        for b, block in enumerate(instance.blocks):
            late = block.memory > 0 or (block.memory == 0 and not self._predecessors[b])
            if late and self._successors[b]:
                last = max(self._successors[b], key=lambda pair: position[pair[0]])[0]
                self._check_at[last].append(b)
        self._offset = [[0] * instance.n_blocks for _ in range(instance.micro_batches)]
        self._placed = [[False] * instance.n_blocks for _ in range(instance.micro_batches)]
        return self._search(0)

    def _slots(self, b: int, offset: int) -> list[int]:
        return [(offset + k) % self.period for k in range(self.instance.blocks[b].duration)]

    def _free(self, b: int, offset: int) -> bool:
        # slot by slot, stopping at the first busy one: most offsets tried are refused by their first slots
        period, duration = self.period, self.instance.blocks[b].duration
        for d in self.instance.blocks[b].devices:
            busy = self._busy[d]
            for k in range(duration):
                if busy[(offset + k) % period]:
                    return False
        return True

    def _mark(self, b: int, offset: int, value: bool) -> None:
        for d in self.instance.blocks[b].devices:
            for t in self._slots(b, offset):
                self._busy[d][t] = value

    def _range(self, r: int, b: int) -> range:
        """The offsets job (r, b) may take given the placed jobs of its micro-batch."""
        blocks, row = self.instance.blocks, self._offset[r]
        placed = [(row[c], row[c] + blocks[c].duration) for c in range(len(row)) if self._placed[r][c]]
        if not placed:  # the micro-batch's first job (a source): shifted by a multiple of P into [0, P) ...
            return range(1 if r == 0 else self.period)  # ... and by a common shift to 0 in micro-batch 0
        first = min(s for s, _ in placed)
        last_end = max(e for _, e in placed)
        # span <= horizon: start >= last_end - span and end <= first + span
        high = first + self._span - blocks[b].duration
        if not self._predecessors[b]:
            return range(last_end - self._span, high + 1)
        ready = max(row[u] + blocks[u].duration + delay for u, delay in self._predecessors[b])
        if blocks[b].memory <= 0:  # rule "early": less than P after its predecessors allow
            high = min(high, ready + self.period - 1)
        return range(max(ready, last_end - self._span), high + 1)

    def _late_ones_tight(self, r: int, b: int) -> bool:
        """Rule "late": each block whose last successor is b starts less than P before its successors require."""
        blocks, row = self.instance.blocks, self._offset[r]
        for v in self._check_at[b]:
            required = min(row[w] - blocks[v].duration - delay for w, delay in self._successors[v])
            if row[v] <= required - self.period:
                return False
        return True

    def _search(self, position: int) -> bool:
        instance = self.instance
        count = instance.n_blocks
        if position == instance.micro_batches * count:
            return self._memory_fits()
        r, b = divmod(position, count)
        b = self._order[b]
        for offset in self._range(r, b):
            self.nodes += 1
            if self.nodes % 64 == 0:
                self.deadline.check("the period search")
            if not self._free(b, offset):
                continue
            self._offset[r][b] = offset
            if not self._late_ones_tight(r, b):
                continue
            self._placed[r][b] = True
            self._mark(b, offset, True)
            if self._search(position + 1):
                return True
            self._mark(b, offset, False)
            self._placed[r][b] = False
        return False

    def _memory_fits(self) -> bool:
        instance = self.instance
        lowest = min(s for row in self._offset for s in row)
        # a common shift keeps the pattern modulo P and the levels' maxima; it makes every offset >= 0
        offsets = [[s - lowest for s in row] for row in self._offset]
        solution = Solution.periodic(self.period, offsets)
        for device, limit in enumerate(instance.memory_limit):
            if limit is not None and any(level > limit for _, level in steady_state_levels(instance, solution, device)):
                return False
        self.found = offsets
        return True
