"""The CP-SAT models of `cpsat`: an interval model of the makespan, and a fixed-period model of the steady state.

Models and proofs: docs/pipeline.md, "cpsat".
"""

from __future__ import annotations

from typing import Any

from ...core.deadline import Deadline
from ...solvers import cpsat as cpsat_backend
from ..bounds import heads, tails
from ..model import Instance, Solution
from .common import first_block
from .period_search import horizon_span


class MakespanModel:
    """Interval model of the makespan: one fixed-size interval per job ``(m, b)``, starts in ``[head, H - tail]``.

    * NoOverlap per device over the intervals of its jobs (a job of a block
      on several devices is in each of their NoOverlaps);
    * edges with delays inside each micro-batch;
    * memory: per device with a limit, a reservoir with ``+delta`` at the
      start of each allocating job and ``delta`` at the end of each freeing
      one, level in ``[0, M_d]`` (the reservoir sums the events at times
      <= t, exactly the definition's level; it is >= 0 in every schedule that
      respects the edges, rule 3);
    * micro-batch m's job of `first_block` ends before micro-batch m + 1's
      starts (micro-batches are interchangeable: relabel them by those starts);
    * minimise the makespan, in ``[lower, H]``.
    """

    def __init__(self, instance: Instance, horizon: int, lower: int, deadline: Deadline) -> None:
        self.instance = instance
        self.model = model = cpsat_backend.new_model()
        head, tail = heads(instance), tails(instance)
        blocks = instance.blocks
        self.start: list[list[Any]] = []
        intervals: list[list[Any]] = [[] for _ in range(instance.devices)]
        events: list[tuple[list[Any], list[int]]] = [([], []) for _ in range(instance.devices)]
        limits = instance.memory_limit
        for m in range(instance.micro_batches):
            deadline.check("building the CP-SAT model")
            row = []
            for b, block in enumerate(blocks):
                s = model.new_int_var(head[b], max(head[b], horizon - block.duration - tail[b]), f"s{m}_{b}")
                interval = model.new_fixed_size_interval_var(s, block.duration, f"i{m}_{b}")
                for d in block.devices:
                    intervals[d].append(interval)
                    if limits[d] is not None and block.memory:
                        events[d][0].append(s if block.memory > 0 else s + block.duration)
                        events[d][1].append(block.memory)
                row.append(s)
            self.start.append(row)
            for edge in instance.edges:
                model.add(row[edge.target] >= row[edge.source] + blocks[edge.source].duration + edge.delay)
        for d in range(instance.devices):
            if len(intervals[d]) > 1:
                model.add_no_overlap(intervals[d])
            limit = limits[d]
            if limit is not None and _may_exceed(events[d][1], limit):
                model.add_reservoir_constraint(events[d][0], events[d][1], 0, limit)
        b0 = first_block(instance)
        for m in range(instance.micro_batches - 1):
            model.add(self.start[m + 1][b0] >= self.start[m][b0] + blocks[b0].duration)
        sinks = [b for b, after in enumerate(instance.successors()) if not after]
        self.makespan = model.new_int_var(lower, max(lower, horizon), "makespan")
        model.add_max_equality(self.makespan, [row[b] + blocks[b].duration for row in self.start for b in sinks])
        model.minimize(self.makespan)

    def hint(self, solution: Solution, value: int) -> None:
        self.model.add_hint(self.makespan, value)
        for row, values in zip(self.start, solution.start, strict=True):
            for s, value in zip(row, values, strict=True):
                self.model.add_hint(s, value)

    def solution(self, outcome: Any) -> Solution:
        return Solution.makespan([[int(outcome.value(s)) for s in row] for row in self.start])


def _may_exceed(deltas: list[int], limit: int) -> bool:
    """False when even every allocation held at once fits: the memory constraint cannot bind."""
    return sum(delta for delta in deltas if delta > 0) > limit


class PeriodModel:
    """Feasibility of period P: offsets ``o = q P + rho`` (``0 <= rho < P``) of the R micro-batches of the pattern.

    * normalisation (period horizon and tight offsets, docs/pipeline.md): the
      pattern's rows sorted by the phase of `first_block` b0, ``o[0][b0] = 0 <
      o[1][b0] < ... < P``; each micro-batch within a window of length
      `horizon_span`; the early/late rules on single blocks;
    * no overlap modulo P: per device, a NoOverlap over the intervals
      ``[rho, rho + d)`` and ``[rho + P, rho + P + d)`` of its jobs (two arcs
      of a circle of length P meet iff one interval meets the other or its
      copy shifted by P, when every ``d <= P``);
    * steady-state memory by the floor formula: with the event of a job at
      ``e = q P + rho`` (its start for an allocation, its end for a free), the
      level at phase t in ``[0, P)`` is ``K + sum_{rho_e <= t} delta_e`` with
      ``K = -sum_e delta_e q_e``; its maximum is reached at the phase of an
      allocation, so ``K + sum_e delta_e [rho_e <= rho_j] <= M_d`` for every
      allocation j, with one order literal per pair of events.
    """

    def __init__(self, instance: Instance, period: int, deadline: Deadline, tight: bool = True) -> None:
        self.instance, self.period = instance, period
        self.model = model = cpsat_backend.new_model()
        span = horizon_span(instance, period)
        self.span = span
        blocks = instance.blocks
        b0 = first_block(instance)
        self.offset: list[list[Any]] = []
        self.phase: list[list[Any]] = []
        self.turn: list[list[Any]] = []
        self.ends: dict[tuple[int, int], tuple[Any, Any]] = {}  # end phase and turn of a freeing job
        for r in range(instance.micro_batches):
            deadline.check("building the CP-SAT model")
            low = model.new_int_var(-span, period - 1, f"lo{r}")
            offsets, phases, turns = [], [], []
            for b, block in enumerate(blocks):
                o = model.new_int_var(-span, period + span, f"o{r}_{b}")
                phase, turn = self._split(o, f"{r}_{b}")
                model.add(o >= low)
                model.add(o + block.duration <= low + span)
                offsets.append(o)
                phases.append(phase)
                turns.append(turn)
            self.offset.append(offsets)
            self.phase.append(phases)
            self.turn.append(turns)
            for edge in instance.edges:
                model.add(offsets[edge.target] >= offsets[edge.source] + blocks[edge.source].duration + edge.delay)
            if tight:
                self._tight(offsets)
        model.add(self.offset[0][b0] == 0)
        for r in range(1, instance.micro_batches):
            model.add(self.offset[r][b0] >= self.offset[r - 1][b0] + 1)
            model.add(self.offset[r][b0] <= period - 1)
        self._no_overlap()
        for d, limit in enumerate(instance.memory_limit):
            if limit is not None:
                deadline.check("building the CP-SAT model")
                self._memory(d, limit)

    def _split(self, expression: Any, name: str) -> tuple[Any, Any]:
        """``expression = q P + rho`` with ``0 <= rho < P``: the phase rho and the turn q."""
        period, span = self.period, self.span
        phase = self.model.new_int_var(0, period - 1, f"rho{name}")
        turn = self.model.new_int_var(-(span // period) - 2, (period + 2 * span) // period + 2, f"q{name}")
        self.model.add(expression == turn * period + phase)
        return phase, turn

    def _tight(self, offsets: list[Any]) -> None:
        """The early and late rules (docs/pipeline.md, "Tight offsets")."""
        model, blocks, period = self.model, self.instance.blocks, self.period
        predecessors, successors = self.instance.predecessors(), self.instance.successors()
        for v, block in enumerate(blocks):
            before = [offsets[u] + blocks[u].duration + delay for u, delay in predecessors[v]]
            if before and block.memory <= 0:  # early: less than P after its predecessors allow
                ready = model.new_int_var(-self.span, period + 2 * self.span, f"ready{v}")
                model.add_max_equality(ready, before)
                model.add(offsets[v] <= ready + period - 1)
            after = [offsets[w] - block.duration - delay for w, delay in successors[v]]
            late = block.memory > 0 or (block.memory == 0 and not predecessors[v])
            if after and late:  # late: less than P before its successors require
                required = model.new_int_var(-2 * self.span, period + self.span, f"required{v}")
                model.add_min_equality(required, after)
                model.add(offsets[v] >= required - period + 1)

    def _no_overlap(self) -> None:
        model, period = self.model, self.period
        arcs: list[list[Any]] = [[] for _ in range(self.instance.devices)]
        for r, phases in enumerate(self.phase):
            for b, block in enumerate(self.instance.blocks):
                first = model.new_fixed_size_interval_var(phases[b], block.duration, f"arc{r}_{b}")
                second = model.new_fixed_size_interval_var(phases[b] + period, block.duration, f"copy{r}_{b}")
                for d in block.devices:
                    arcs[d] += [first, second]
        for on in arcs:
            if len(on) > 2:
                model.add_no_overlap(on)

    def _memory(self, device: int, limit: int) -> None:
        """Steady-state level <= limit at the phase of every allocation (class docstring)."""
        model, blocks = self.model, self.instance.blocks
        events: list[tuple[int, Any, Any]] = []  # (delta, phase, turn)
        for r, offsets in enumerate(self.offset):
            for b in self.instance.device_blocks(device):
                delta = blocks[b].memory
                if delta > 0:
                    events.append((delta, self.phase[r][b], self.turn[r][b]))
                elif delta < 0:
                    if (r, b) not in self.ends:
                        self.ends[r, b] = self._split(offsets[b] + blocks[b].duration, f"end{r}_{b}")
                    events.append((delta, *self.ends[r, b]))
        if not events:
            return
        constant = -sum(delta * turn for delta, _, turn in events)
        for j, (delta_j, phase_j, _) in enumerate(events):
            if delta_j <= 0:
                continue
            terms = [delta_j]
            for e, (delta_e, phase_e, _) in enumerate(events):
                if e == j:
                    continue
                literal = model.new_bool_var(f"le{device}_{e}_{j}")  # rho_e <= rho_j
                model.add(phase_e <= phase_j).only_enforce_if(literal)
                model.add(phase_e > phase_j).only_enforce_if(~literal)
                terms.append(delta_e * literal)
            model.add(constant + sum(terms) <= limit)

    def offsets(self, outcome: Any) -> list[list[int]]:
        """The offsets found, shifted so that the smallest is 0."""
        values = [[int(outcome.value(o)) for o in row] for row in self.offset]
        lowest = min(min(row) for row in values)
        return [[v - lowest for v in row] for row in values]
