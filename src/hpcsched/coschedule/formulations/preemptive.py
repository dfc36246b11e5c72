"""Preemptive co-scheduling: the LP's schedule (``lp-preemptive``) and the fewest preemptions (small n).

``lp-preemptive`` solves the preemptive LP (`bounds.solve_preemptive_lp`),
whose value is the optimal preemptive makespan, and orders its phases so
that each kernel's phases are as consecutive as possible
(`phases.order_phases`). ``milp-min-preemptions`` then minimizes
the preemptions among all schedules of that makespan, exactly, for small n.

Notes
-----
The LP argument, the backends and what an unproven LP point becomes, and
the slot MILP's size argument: ``docs/coschedule.md`` ("The preemptive LP",
"Fewest preemptions").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers.milp import solve_pulp
from .. import bounds
from ..bounds import LpBackend
from ..heuristics import list_schedule
from ..model import Instance, evaluate
from ..phases import order_phases
from ..simulate import solution_from_slabs, time_slab_sequence

STREAMS_NOTE = (
    "the instance has streams (data.streams): the preemptive LP and its phase order ignore the stream order, "
    "so its schedule would break it; its value is only a lower bound (reported by the other methods). "
    "Use milp (exact) or cpsat for streams, fifo for the hardware replay"
)


@dataclass(frozen=True)
class LpParams:
    """Options of ``lp-preemptive``.

    Attributes
    ----------
    backend
        ``scipy`` (``linprog`` with HiGHS on sparse matrices; the default,
        because building a PuLP model of 2 million columns takes minutes) or
        ``pulp`` (PuLP + HiGHS through `hpcsched.solvers.milp`).
    """

    backend: LpBackend = "scipy"


def lp(instance: Instance, /, *, time_limit: float, seed: int, params: LpParams | None) -> Result:
    """Preemptive optimum by the LP, phases ordered to avoid preemptions (caterpillar order).

    Parameters
    ----------
    instance
        The instance; NOT_APPLICABLE with streams (`STREAMS_NOTE`).
    time_limit
        Seconds for the LP.
    seed
        The PuLP backend's HiGHS seed.
    params
        `LpParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL with the LP value as bound when the backend proved the LP
        optimum; FEASIBLE without a bound for an unproven point clipped to the
        work; FEASIBLE with the LPT list schedule and the trivial bound when
        the time limit leaves no LP point (scipy's backend stops without one).
    """
    params = params or LpParams()
    if instance.streams:
        return Result(status=Status.NOT_APPLICABLE, notes=(STREAMS_NOTE,))
    deadline = Deadline.after(time_limit)
    if deadline.expired():
        return _unsolved(instance, "time limit reached before the preemptive LP", None)
    solved = bounds.solve_preemptive_lp(
        instance, backend=params.backend, time_limit=deadline.remaining(floor=1e-3), seed=seed
    )
    if solved.value is None and solved.status is Status.TIME_LIMIT_NO_SOLUTION:
        return _unsolved(instance, "LP not solved within the time limit", solved.solver)
    if solved.value is None:
        return Result(status=solved.status, solver=solved.solver, notes=("LP not solved",))
    phases = order_phases(solved.solo, solved.pairs, instance.n)
    solution = solution_from_slabs([kernels for kernels, _ in phases], [length for _, length in phases])
    notes = [f"{len(phases)} phases ({len(solved.pairs)} co-run); pairs with r_ij + r_ji <= 1 dropped (dominated)"]
    proven = solved.status is Status.OPTIMAL
    if not proven:
        notes.append(
            "LP stopped before a proof of optimality (time limit): its point, clipped to the work, "
            "is a schedule, not the optimum; no bound"
        )
    return Result(
        status=Status.OPTIMAL if proven else Status.FEASIBLE,
        objective=solved.value,
        bound=solved.value if proven else None,
        solution=solution,
        solver=solved.solver,
        notes=tuple(notes),
    )


def _unsolved(instance: Instance, why: str, solver: str | None) -> Result:
    """FEASIBLE with the LPT list schedule (non-preemptive, so a preemptive schedule too) and the trivial bound."""
    order = sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration)
    return Result(
        status=Status.FEASIBLE,
        bound=bounds.trivial(instance),
        solution=list_schedule(instance, order),
        solver=solver,
        notes=(f"{why}: the LPT list schedule (no preemption) stands in; bound: the trivial one",),
    )


@dataclass(frozen=True)
class MinPreemptionsParams:
    """Options of ``milp-min-preemptions``.

    Attributes
    ----------
    slots
        Slots K of the MILP (None: 2 (n + P) - 1 with P the preemptions of
        the LP phase order, enough for an optimal schedule).
    max_n
        Above this many kernels the MILP is not built (the LP order is returned).
    """

    slots: int | None = None
    max_n: int = 12

    def __post_init__(self) -> None:
        at_least("slots", self.slots, 1)
        at_least("max_n", self.max_n, 0)


class _SlotMilp:
    """The slot MILP: K slots, each running one kernel, one pair or nothing; one method per row family."""

    def __init__(self, instance: Instance, count: int, optimum: float) -> None:
        import pulp

        self.pulp = pulp
        self.instance = instance
        n = instance.n
        self.slots = range(count)
        self.pairs = [(p.a, p.b) for p in instance.pairs if p.rate_a + p.rate_b >= 1 - 1e-12]
        self.model = pulp.LpProblem("coschedule_min_preemptions", pulp.LpMinimize)
        K, pairs = self.slots, self.pairs
        self.solo = {(i, k): pulp.LpVariable(f"s_{i}_{k}", cat="Binary") for i in range(n) for k in K}
        self.duo = {(e, k): pulp.LpVariable(f"w_{e[0]}_{e[1]}_{k}", cat="Binary") for e in pairs for k in K}
        self.solo_len = {(i, k): pulp.LpVariable(f"d_{i}_{k}", lowBound=0) for i in range(n) for k in K}
        self.duo_len = {(e, k): pulp.LpVariable(f"l_{e[0]}_{e[1]}_{k}", lowBound=0) for e in pairs for k in K}
        self.run_start = {(i, k): pulp.LpVariable(f"b_{i}_{k}", lowBound=0) for i in range(n) for k in K}
        self.horizon = optimum * (1 + 1e-7)
        self.model += pulp.lpSum(self.run_start.values())  # run starts; preemptions = this - n
        self.incident = {i: [e for e in pairs if i in e] for i in range(n)}

    def _active(self, i: int, k: int) -> Any:
        return self.solo[i, k] + self.pulp.lpSum(self.duo[e, k] for e in self.incident[i])

    def _used(self, k: int) -> Any:
        return self.pulp.lpSum(self.solo[i, k] for i in range(self.instance.n)) + self.pulp.lpSum(
            self.duo[e, k] for e in self.pairs
        )

    def slot_rows(self, k: int) -> None:
        """At most one set per slot, lengths only where chosen, run starts, used slots first."""
        model, n = self.model, self.instance.n
        model += self._used(k) <= 1
        for i in range(n):
            model += self.solo_len[i, k] <= self.horizon * self.solo[i, k]
            previous = self._active(i, k - 1) if k > 0 else 0
            model += self.run_start[i, k] >= self._active(i, k) - previous
        for e in self.pairs:
            model += self.duo_len[e, k] <= self.horizon * self.duo[e, k]
        if k > 0:  # symmetry: used slots first
            model += self._used(k) <= self.pulp.lpSum(self.solo[i, k - 1] for i in range(n)) + self.pulp.lpSum(
                self.duo[e, k - 1] for e in self.pairs
            )

    def work_rows(self) -> None:
        """Each kernel's work, and the total length at most C* (1 + 1e-7)."""
        pulp, instance = self.pulp, self.instance
        for i in range(instance.n):
            work = pulp.lpSum(self.solo_len[i, k] for k in self.slots) + pulp.lpSum(
                _partner_rate(instance, i, e) * self.duo_len[e, k] for e in self.incident[i] for k in self.slots
            )
            self.model += work == instance.kernels[i].duration
        self.model += pulp.lpSum(self.solo_len.values()) + pulp.lpSum(self.duo_len.values()) <= self.horizon

    def build(self, deadline: Deadline) -> None:
        for k in self.slots:
            deadline.check("building the MILP")
            self.slot_rows(k)
        self.work_rows()
        deadline.check("starting the MILP solve")

    def slab_sets(self, value: Any) -> list[tuple[int, ...]]:
        """The kernel set of every used slot, in slot order."""
        sets: list[tuple[int, ...]] = []
        for k in self.slots:
            sets += [(i,) for i in range(self.instance.n) if value(self.solo[i, k]) > 0.5]
            sets += [e for e in self.pairs if value(self.duo[e, k]) > 0.5]
        return sets


def _partner_rate(instance: Instance, i: int, pair: tuple[int, int]) -> float:
    rate = instance.rate(i, pair[1] if pair[0] == i else pair[0])
    assert rate is not None  # slot pairs are listed pairs
    return rate


def milp_min_preemptions(
    instance: Instance, /, *, time_limit: float, seed: int, params: MinPreemptionsParams | None
) -> Result:
    """Exact MILP (small n): fewest preemptions among schedules of optimal preemptive makespan.

    Parameters
    ----------
    instance
        The instance; NOT_APPLICABLE with streams.
    time_limit
        Seconds for the LP, the MILP build and its solve; past it the LP
        phase order (optimal makespan) is returned.
    seed
        HiGHS's seed.
    params
        `MinPreemptionsParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL in makespan (the LP optimum); the notes say whether the
        preemption count is proven minimal.
    """
    params = params or MinPreemptionsParams()
    if instance.streams:
        return Result(status=Status.NOT_APPLICABLE, notes=(STREAMS_NOTE,))
    deadline = Deadline.after(time_limit)
    base = lp(instance, time_limit=time_limit, seed=seed, params=None)
    if base.solution is None or base.status is not Status.OPTIMAL or base.objective is None:
        # Without the proven LP optimum there is no optimal makespan to minimize preemptions at.
        return base
    heuristic_preemptions = int(evaluate(instance, base.solution)["preemptions"])
    if heuristic_preemptions == 0:
        return base.with_note("LP phase order already has 0 preemptions: optimal preemption count 0")
    if instance.n > params.max_n:
        # K x (n + pairs) binaries: beyond a dozen kernels the model does not fit a short run.
        return base.with_note(
            f"n = {instance.n} > max_n = {params.max_n}: MILP not built; "
            "LP phase order returned (preemptions not proven minimal)"
        )
    count = 2 * (instance.n + heuristic_preemptions) - 1 if params.slots is None else params.slots
    slot_milp = _SlotMilp(instance, count, base.objective)
    try:
        slot_milp.build(deadline)
    except TimeLimitReached as reached:  # the LP schedule is optimal in makespan: return it rather than nothing
        return base.with_note(f"{reached}: LP phase order returned (preemptions not proven minimal)")
    outcome = solve_pulp(slot_milp.model, time_limit=deadline.remaining(floor=1e-3), seed=seed)
    if not outcome.has_solution:
        return base.replace(
            notes=(*base.notes, f"MILP found no schedule ({outcome.message}); LP phase order returned"),
            solver=outcome.backend,
        )
    sets = slot_milp.slab_sets(outcome.value)
    lengths = time_slab_sequence(instance, sets)
    if lengths is None:
        return base.with_note("MILP slot sequence could not be re-timed")
    solution = solution_from_slabs(sets, lengths)
    found = int(evaluate(instance, solution)["preemptions"])
    if found > heuristic_preemptions:
        solution, found = base.solution, heuristic_preemptions
    if outcome.status is Status.OPTIMAL:
        verdict = "proven minimal"
    else:
        at_least_found = None if outcome.bound is None else max(0, math.ceil(outcome.bound - 1e-6) - instance.n)
        verdict = f"not proven minimal (MILP {outcome.status}, at least {at_least_found})"
    return Result(
        status=Status.OPTIMAL,
        objective=base.objective,
        bound=base.objective,
        solution=solution,
        solver=outcome.backend,
        notes=(
            f"makespan optimal (LP); preemptions {found} {verdict}",
            f"{count} slots; makespan constraint C* (1 + 1e-7)",
        ),
    )
