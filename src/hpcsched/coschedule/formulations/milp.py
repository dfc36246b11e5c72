"""Non-preemptive MILP (HiGHS): start/end, overlap lengths, order and overlap binaries.

Model (spec): start S_i, end E_i; for each pair i < j binaries f_ij (i
starts first), g_ij (i ends first) and, for compatible pairs, z_ij (they
overlap) with overlap length o_ij. With big-M = an upper bound U on the
makespan, o_ij equals min(E_i, E_j) - max(S_i, S_j) when z_ij = 1, o_ij = 0
and the pair is in series when z_ij = 0; incompatible pairs are always in
series. Work identity: E_i - S_i - Σ_j (1 - r_{i|j}) o_ij = p_i. No three
kernels at one instant: z_ij + z_jk + z_ik <= 2 (Helly).

Notes
-----
Why the four "o >=" rows select the overlap, the valid cuts, and the safe
dual bound are derived in ``docs/coschedule.md`` ("The non-preemptive MILP").
"""

from __future__ import annotations

import itertools
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from ..model import Instance, Solution, evaluate
from .common import (
    MILP_GAP,
    decode_intervals,
    finish,
    proven_bound,
    safe_mip_bound,
    solve_highs,
    stream_pairs,
    upper_bound,
)

#: Pairs built between two deadline checks.
CHECK_EVERY = 256


class _MilpBuilder:
    """The PuLP model of the non-preemptive MILP, one method per row family."""

    def __init__(self, instance: Instance, upper: float, proven: float, deadline: Deadline) -> None:
        import pulp

        self.pulp = pulp
        self.instance = instance
        self.deadline = deadline
        self.big = upper
        n = instance.n
        self.model = pulp.LpProblem("coschedule_nonpreemptive", pulp.LpMinimize)
        self.start = [pulp.LpVariable(f"S_{i}", lowBound=0, upBound=upper) for i in range(n)]
        self.end = [pulp.LpVariable(f"E_{i}", lowBound=0, upBound=upper) for i in range(n)]
        self.makespan = pulp.LpVariable("C", lowBound=max(instance.durations), upBound=upper)
        self.model += self.makespan
        self.overlap: dict[tuple[int, int], Any] = {}
        self.together: dict[tuple[int, int], Any] = {}
        self.extra: list[list[Any]] = [[] for _ in range(n)]
        self.proven = proven

    def build(self) -> None:
        for a, b in self.instance.precedences():
            self.model += self.end[a] <= self.start[b]
        self.pair_rows()
        self.triple_rows()
        self.work_rows()
        self.busy_time_cut()
        self.deadline.check("building the model")

    def pair_rows(self) -> None:
        chained = stream_pairs(self.instance)
        for count, (i, j) in enumerate(itertools.combinations(range(self.instance.n), 2)):
            if count % CHECK_EVERY == 0:
                self.deadline.check("building the pair rows")
            if (i, j) in chained:
                continue
            first = self.pulp.LpVariable(f"f_{i}_{j}", cat="Binary")
            ends_first = self.pulp.LpVariable(f"g_{i}_{j}", cat="Binary")
            self._order_rows(i, j, first, ends_first)
            if self.instance.compatible(i, j):
                self._overlap_rows(i, j, first, ends_first)
            else:
                self.model += self.end[i] <= self.start[j] + self.big * (1 - first)
                self.model += self.end[j] <= self.start[i] + self.big * first

    def _order_rows(self, i: int, j: int, first: Any, ends_first: Any) -> None:
        start, end, big = self.start, self.end, self.big
        self.model += start[i] - start[j] <= big * (1 - first)
        self.model += start[j] - start[i] <= big * first
        self.model += end[i] - end[j] <= big * (1 - ends_first)
        self.model += end[j] - end[i] <= big * ends_first

    def _overlap_rows(self, i: int, j: int, first: Any, ends_first: Any) -> None:
        start, end, big, model = self.start, self.end, self.big, self.model
        z = self.pulp.LpVariable(f"z_{i}_{j}", cat="Binary")
        o = self.pulp.LpVariable(f"o_{i}_{j}", lowBound=0, upBound=big)
        self.together[i, j], self.overlap[i, j] = z, o
        model += o <= big * z
        # No overlap: in series, in the order f says.
        model += end[i] <= start[j] + big * (1 - first) + big * z
        model += end[j] <= start[i] + big * first + big * z
        # Overlap: o is at most each end minus each start ...
        for a, b in ((i, j), (j, i), (i, i), (j, j)):
            model += o <= end[a] - start[b] + big * (1 - z)
        # ... and at least the first end minus the last start.
        model += o >= end[i] - start[j] - big * (3 - first - ends_first - z)
        model += o >= end[j] - start[j] - big * (2 - first + ends_first - z)
        model += o >= end[i] - start[i] - big * (2 + first - ends_first - z)
        model += o >= end[j] - start[i] - big * (1 + first + ends_first - z)
        self.extra[i].append((1 - _rate(self.instance, i, j)) * o)
        self.extra[j].append((1 - _rate(self.instance, j, i)) * o)

    def triple_rows(self) -> None:
        together = self.together
        partners = {i: sorted({b for a, b in together if a == i}) for i in range(self.instance.n)}
        for i in range(self.instance.n):
            self.deadline.check("building the triple rows")
            for j in partners[i]:
                for k in partners[j]:
                    if (i, k) in together:
                        self.model += together[i, j] + together[j, k] + together[i, k] <= 2

    def work_rows(self) -> None:
        pulp, model = self.pulp, self.model
        for i in range(self.instance.n):
            model += self.end[i] - self.start[i] - pulp.lpSum(self.extra[i]) == self.instance.durations[i]
            model += self.makespan >= self.end[i]
            # Valid cut: i's overlaps with different partners are disjoint parts of its interval.
            mine = [o for (a, b), o in self.overlap.items() if i in (a, b)]
            if mine:
                model += pulp.lpSum(mine) <= self.end[i] - self.start[i]

    def busy_time_cut(self) -> None:
        # Valid cut: busy time (union of the intervals) = Σ lengths - Σ overlaps <= C, which with the
        # work identity reads Σp - Σ (r_ij + r_ji - 1) o_ij <= C: the preemptive LP inside the MILP.
        instance = self.instance
        self.model += (
            sum(instance.durations)
            - self.pulp.lpSum(
                (_rate(instance, i, j) + _rate(instance, j, i) - 1) * o for (i, j), o in self.overlap.items()
            )
            <= self.makespan
        )
        self.model += self.makespan >= self.proven


def _rate(instance: Instance, i: int, j: int) -> float:
    rate = instance.rate(i, j)
    assert rate is not None  # only compatible (listed) pairs get overlap variables
    return rate


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Non-preemptive MILP (HiGHS): start/end, overlap lengths, order and overlap binaries.

    Parameters
    ----------
    instance
        The instance. Streams: consecutive stream-mates get E_a <= S_b; pairs
        of one stream get no pair variables (the chain orders them).
    time_limit
        Seconds for the whole method: the deadline is checked in the pair and
        triple loops, HiGHS gets what is left, and when the limit passes first
        the best list schedule is returned (FEASIBLE, proven bound only).
    seed
        HiGHS's random seed.
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL only when HiGHS proved the MILP optimal; the bound is the
        larger of the preemptive LP, the longest stream and HiGHS's dual bound
        made safe (`common.safe_mip_bound`).
    """
    deadline = Deadline.after(time_limit)
    upper, fallback = upper_bound(instance, deadline)
    proven = proven_bound(instance)  # preemptive LP (shaved) or trivial, and the longest stream
    notes = [f"big-M = {upper:.6g} (best list schedule / local search)"]
    builder = _MilpBuilder(instance, upper, proven, deadline)
    try:
        deadline.check("computing big-M")
        builder.build()
    except TimeLimitReached as reached:
        notes.append(f"{reached}: best list schedule returned")
        return finish(
            instance,
            fallback,
            backend_optimal=False,
            lower_bounds=[proven],
            solver=None,
            notes=notes,
            proof_by_bound=False,
        )
    outcome = solve_highs(builder.model, time_limit=deadline.remaining(), seed=seed)
    solver_bound = safe_mip_bound(outcome.bound, instance.n, upper)
    notes.append(f"HiGHS {outcome.message}; dual bound {outcome.bound}, made safe: {solver_bound}")
    solution: Solution | None = None
    if outcome.has_solution:
        assert outcome.value is not None  # a solution comes with its values
        starts = [outcome.value(v) for v in builder.start]
        ends = [outcome.value(v) for v in builder.end]
        solution = decode_intervals(instance, starts, ends, snap=1e-7 * upper)
        notes.append(f"MILP objective {outcome.objective}")
    if solution is None:
        notes.append(f"MILP returned no usable schedule ({outcome.message}); best list schedule returned")
        return finish(
            instance,
            fallback,
            backend_optimal=False,
            lower_bounds=[proven, solver_bound],
            solver=outcome.backend,
            notes=notes,
            proof_by_bound=False,
        )
    if evaluate(instance, fallback)["makespan"] < evaluate(instance, solution)["makespan"]:
        solution = fallback
    return finish(
        instance,
        solution,
        backend_optimal=outcome.status is Status.OPTIMAL,
        lower_bounds=[proven, solver_bound],
        solver=outcome.backend,
        notes=notes,
        gap=MILP_GAP,
        proof_by_bound=False,
    )
