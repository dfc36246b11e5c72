"""The MILP models of `milp` (PuLP): disjunctive big-M for the makespan, time-indexed phases for a fixed period.

Models and proofs: docs/pipeline.md ("milp").
"""

from __future__ import annotations

import itertools
from typing import Any

from ...core.deadline import Deadline
from ..bounds import heads, tails
from ..model import Instance, Solution
from ..simulate import Job, orders_from_sequence, timing
from .common import first_block
from .period_search import horizon_span


def _reachable(instance: Instance) -> list[set[int]]:
    """Per block, the blocks reachable from it through the edges (its descendants)."""
    successors = instance.successors()
    below: list[set[int]] = [set() for _ in instance.blocks]
    for b in reversed(instance.topological_order()):
        for c, _ in successors[b]:
            below[b] |= {c} | below[c]
    return below


def makespan_pairs(instance: Instance) -> int:
    """Pairs of jobs sharing a device that the edges do not order (O(B^2)): the order binaries, at most.

    (The jobs of `first_block` are ordered without binaries; they are counted.)
    """
    below, n = _reachable(instance), instance.micro_batches
    blocks = instance.blocks
    count = instance.n_blocks * n * (n - 1) // 2  # pairs of jobs of one block
    for b, c in itertools.combinations(range(instance.n_blocks), 2):
        if set(blocks[b].devices) & set(blocks[c].devices):
            count += n * n - (n if c in below[b] or b in below[c] else 0)
    return count


class DisjunctiveMilp:
    """Makespan: starts s_j in ``[head, H - tail]``, one order binary y_ij per pair of jobs sharing a device.

    * ``s_j >= s_i + d_i - M (1 - y_ij)`` and ``s_i >= s_j + d_j - M y_ij``
      (a pair inside a micro-batch joined by a path of edges is ordered by
      them, and micro-batch m's job of `first_block` precedes m + 1's: no binary);
    * edges with delays; ``C >= s_j + d_j``; minimise C in ``[lower, H]``;
    * memory (memory-order lemma): for every job j on a device d with a limit,
      ``sum_{i on d} delta_i [i before j] + max(delta_j, 0) <= M_d``, where
      ``[i before j]`` is y_ij, 1 - y_ji or a constant. The binaries of a
      device are a total order because each forces its pair apart in time.
    """

    def __init__(self, instance: Instance, horizon: int, lower: int, deadline: Deadline) -> None:
        import pulp

        self.pulp, self.instance, self.deadline = pulp, instance, deadline
        self.problem = problem = pulp.LpProblem("pipeline_makespan", pulp.LpMinimize)
        head, tail = heads(instance), tails(instance)
        blocks = instance.blocks
        self.start: dict[Job, Any] = {}
        for m in range(instance.micro_batches):
            deadline.check("building the MILP")
            for b, block in enumerate(blocks):
                top = max(head[b], horizon - block.duration - tail[b])
                self.start[m, b] = pulp.LpVariable(f"s_{m}_{b}", lowBound=head[b], upBound=top)
        self.makespan = pulp.LpVariable("C", lowBound=lower, upBound=max(lower, horizon))
        problem += self.makespan
        successors = instance.successors()
        for (_, b), s in self.start.items():
            if not successors[b]:
                problem += self.makespan >= s + blocks[b].duration
        for m in range(instance.micro_batches):
            for edge in instance.edges:
                gap = blocks[edge.source].duration + edge.delay
                problem += self.start[m, edge.target] >= self.start[m, edge.source] + gap
        self.before = self._orders(deadline)
        for d, limit in enumerate(instance.memory_limit):
            if limit is not None:
                deadline.check("building the MILP")
                self._memory(d, limit)

    def _fixed(self, i: Job, j: Job, below: list[set[int]], b0: int) -> bool | None:
        """True / False when i is before / after j in every schedule considered; None when a binary decides."""
        (m, b), (p, c) = i, j
        if m == p and c in below[b]:
            return True
        if m == p and b in below[c]:
            return False
        if b == c == b0:
            return m < p
        return None

    def _orders(self, deadline: Deadline) -> dict[tuple[Job, Job], Any]:
        """``before[i, j]``: 1 when job i runs before job j (a binary, its complement, or a constant)."""
        instance, pulp, blocks = self.instance, self.pulp, self.instance.blocks
        below, b0 = _reachable(instance), first_block(instance)
        before: dict[tuple[Job, Job], Any] = {}
        for count, (i, j) in enumerate(itertools.combinations(sorted(self.start), 2)):
            if count % 1024 == 0:
                deadline.check("building the MILP")
            if not set(blocks[i[1]].devices) & set(blocks[j[1]].devices):
                continue
            fixed = self._fixed(i, j, below, b0)
            si, sj, di, dj = self.start[i], self.start[j], blocks[i[1]].duration, blocks[j[1]].duration
            if fixed is not None:
                first, second = (i, j) if fixed else (j, i)
                self.problem += self.start[second] >= self.start[first] + blocks[first[1]].duration
                before[i, j], before[j, i] = int(fixed), int(not fixed)
                continue
            y = pulp.LpVariable(f"y_{i[0]}_{i[1]}_{j[0]}_{j[1]}", cat="Binary")
            big_ij = (si.upBound + di) - sj.lowBound
            big_ji = (sj.upBound + dj) - si.lowBound
            self.problem += sj >= si + di - big_ij * (1 - y)
            self.problem += si >= sj + dj - big_ji * y
            before[i, j], before[j, i] = y, 1 - y
        return before

    def _memory(self, device: int, limit: int) -> None:
        jobs = [job for job in self.start if device in self.instance.blocks[job[1]].devices]
        deltas = {job: self.instance.blocks[job[1]].memory for job in jobs}
        if sum(max(delta, 0) for delta in deltas.values()) <= limit:
            return  # every allocation held at once fits: the constraint cannot bind
        lp_sum = self.pulp.lpSum
        for count, j in enumerate(jobs):
            if count % 64 == 0:
                self.deadline.check("building the MILP")
            level = lp_sum(deltas[i] * self.before[i, j] for i in jobs if i != j and deltas[i])
            self.problem += level + max(deltas[j], 0) <= limit

    def solution(self, outcome: Any) -> Solution | None:
        """The semi-active schedule of the device orders the MILP chose (integer starts, no longer)."""
        jobs = sorted(self.start, key=lambda job: (round(outcome.value(self.start[job]) or 0.0, 6), job))
        return timing(self.instance, orders_from_sequence(self.instance, jobs))


def period_variables(instance: Instance, period: int) -> int:
    """Phase binaries of the time-indexed period model: P per job, plus P per freeing job on a limited device."""
    limited = [d for d, limit in enumerate(instance.memory_limit) if limit is not None]
    frees = sum(1 for b in instance.blocks if b.memory < 0 and set(b.devices) & set(limited))
    return instance.micro_batches * (instance.n_blocks + frees) * period


class TimeIndexedPeriodMilp:
    """Feasibility of period P: ``o = q P + sum_t t x_t`` with one phase binary x_t per t in ``[0, P)``.

    * the normalisation of `cpsat`'s period model (rows sorted by the phase
      of `first_block`, ``o[0][b0] = 0``, each micro-batch within
      `horizon_span`); edges with delays;
    * per device and slot tau: the jobs whose arc covers tau (phase in
      ``(tau - d, tau]`` modulo P) are at most one;
    * steady-state memory by the floor formula: with end phases x' and
      turns q' of the freeing jobs, for every phase tau,
      ``-sum_e delta_e q_e + sum_e delta_e sum_{t <= tau} x_{e,t} <= M_d``.
    """

    def __init__(self, instance: Instance, period: int, deadline: Deadline) -> None:
        import pulp

        self.pulp, self.instance, self.period = pulp, instance, period
        self.problem = problem = pulp.LpProblem("pipeline_period", pulp.LpMinimize)
        problem += pulp.lpSum([])
        self.span = span = horizon_span(instance, period)
        blocks, b0 = instance.blocks, first_block(instance)
        self.offset: dict[Job, Any] = {}
        self.phase: dict[Job, list[Any]] = {}
        self.turn: dict[Job, Any] = {}
        self.ends: dict[Job, tuple[list[Any], Any]] = {}  # end phase and turn of a freeing job
        for r in range(instance.micro_batches):
            deadline.check("building the MILP")
            low = pulp.LpVariable(f"lo_{r}", lowBound=-span, upBound=period - 1)
            for b, block in enumerate(blocks):
                o = pulp.LpVariable(f"o_{r}_{b}", lowBound=-span, upBound=period + span, cat="Integer")
                self.offset[r, b] = o
                self.phase[r, b], self.turn[r, b] = self._split(o, f"{r}_{b}")
                problem += o >= low
                problem += o + block.duration <= low + span
            for edge in instance.edges:
                gap = blocks[edge.source].duration + edge.delay
                problem += self.offset[r, edge.target] >= self.offset[r, edge.source] + gap
        problem += self.offset[0, b0] == 0
        for r in range(1, instance.micro_batches):
            problem += self.offset[r, b0] >= self.offset[r - 1, b0] + 1
            problem += self.offset[r, b0] <= period - 1
        self._slots(deadline)
        for d, limit in enumerate(instance.memory_limit):
            if limit is not None:
                deadline.check("building the MILP")
                self._memory(d, limit)

    def _split(self, expression: Any, name: str) -> tuple[list[Any], Any]:
        """``expression = q P + sum_t t x_t``, one x_t = 1: the phase binaries and the turn q."""
        pulp, period, span = self.pulp, self.period, self.span
        x = [pulp.LpVariable(f"x_{name}_{t}", cat="Binary") for t in range(period)]
        q = pulp.LpVariable(
            f"q_{name}", lowBound=-(span // period) - 2, upBound=(period + 2 * span) // period + 2, cat="Integer"
        )
        self.problem += pulp.lpSum(x) == 1
        self.problem += expression == period * q + pulp.lpSum(t * x[t] for t in range(period))
        return x, q

    def _slots(self, deadline: Deadline) -> None:
        period, lp_sum = self.period, self.pulp.lpSum
        for d in range(self.instance.devices):
            deadline.check("building the MILP")
            on = [job for job in self.offset if d in self.instance.blocks[job[1]].devices]
            for tau in range(period):
                covering = [
                    self.phase[job][(tau - k) % period]
                    for job in on
                    for k in range(self.instance.blocks[job[1]].duration)
                ]
                if len(covering) > 1:
                    self.problem += lp_sum(covering) <= 1

    def _memory(self, device: int, limit: int) -> None:
        blocks, lp_sum = self.instance.blocks, self.pulp.lpSum
        events: list[tuple[int, list[Any], Any]] = []
        for (r, b), o in self.offset.items():
            delta = blocks[b].memory
            if device not in blocks[b].devices or not delta:
                continue
            if delta > 0:
                events.append((delta, self.phase[r, b], self.turn[r, b]))
            else:
                if (r, b) not in self.ends:
                    self.ends[r, b] = self._split(o + blocks[b].duration, f"end_{r}_{b}")
                events.append((delta, *self.ends[r, b]))
        if not events:
            return
        constant = lp_sum(-delta * turn for delta, _, turn in events)
        for tau in range(self.period):
            level = lp_sum(delta * x[t] for delta, x, _ in events for t in range(tau + 1))
            self.problem += constant + level <= limit

    def offsets(self, outcome: Any) -> list[list[int]]:
        """The offsets found (rounded: integer variables), shifted so that the smallest is 0."""
        rows = [
            [round(outcome.value(self.offset[r, b])) for b in range(self.instance.n_blocks)]
            for r in range(self.instance.micro_batches)
        ]
        lowest = min(min(row) for row in rows)
        return [[v - lowest for v in row] for row in rows]
