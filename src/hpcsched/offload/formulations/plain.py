"""``cpsat-plain``: the CP-SAT model of the spec alone (no warm start; horizon from offload-all)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError, OptionError
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import solve_cpsat
from ..model import Instance, Solution, check_feasible
from ..simulate import simulate
from .cpsat_model import build_cpsat, extract, makespan


@dataclass(frozen=True)
class CpSatPlainParams:
    """Options of ``cpsat-plain``.

    Attributes
    ----------
    resolution
        Time step q >= 1 of the model (durations rounded up to multiples of q): q > 1 solves the
        coarsened model (valid schedules, no optimality claim, no bound).
    workers
        CP-SAT worker threads.
    offloaded
        If given, the offload set is fixed to it (exact timing of that set); distinct activations.
    log
        Print CP-SAT's search log.
    deterministic_time
        A limit in CP-SAT's deterministic units on top of the wall-clock one (with ``workers=1`` the
        verdict is then the same on any machine, when the wall clock is not reached first).
    """

    resolution: int = 1
    workers: int = 2
    offloaded: tuple[int, ...] | None = None
    log: bool = False
    deterministic_time: float | None = None

    def __post_init__(self) -> None:
        at_least("resolution", self.resolution, 1)
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)
        if self.offloaded is not None:
            for position, index in enumerate(self.offloaded):
                at_least(f"offloaded[{position}]", index, 0)
                if index in self.offloaded[:position]:
                    raise OptionError(f"options.offloaded[{position}]", f"activation {index} is listed twice")


def cpsat_plain(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatPlainParams | None) -> Result:
    """CP-SAT model of the spec alone (no warm start; horizon from offload-all).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for the whole method, model building included.
    seed
        CP-SAT's random seed.
    params
        `CpSatPlainParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when CP-SAT proved the full-resolution model (free offload set); otherwise FEASIBLE
        (with CP-SAT's bound at resolution 1), or the simulator's schedule of the set when CP-SAT has
        none.  A fixed offload set that cannot fit is INFEASIBLE for that set only.

    Notes
    -----
    The scaled model (``resolution`` > 1) is a *restriction* (durations rounded up, starts on the
    grid): its infeasibility says nothing about the instance, so it is never reported as INFEASIBLE.
    Its horizon is the makespan of the offload set's schedule on the same grid (the simulator at
    that scale), which is a solution of the scaled model; when the scaled model still has no
    solution, the simulator's schedule of the set at full resolution is returned (FEASIBLE, said in
    the notes), or none.
    """
    params = params or CpSatPlainParams()
    deadline = Deadline.after(time_limit)
    resolution = params.resolution
    offloaded = None if params.offloaded is None else _offload_set(instance, params.offloaded)
    check_feasible(instance)
    chosen = instance.offloadable if offloaded is None else offloaded
    notes = [f"resolution {resolution} {instance.time_unit or ''}".strip()]
    horizon, reference = _horizon(instance, chosen, resolution, deadline)
    # The offload-all schedule that gives the horizon is the fallback of a free offload set: not timed twice.
    known = reference if offloaded is None else None
    try:
        model, handles = build_cpsat(
            instance,
            horizon=horizon,
            scale=resolution,
            fixed=None if offloaded is None else set(offloaded),
            deadline=deadline,
        )
    except TimeLimitReached as reached:
        return _fallback(instance, chosen, [*notes, str(reached)], None, deadline, known)
    outcome = solve_cpsat(
        model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
        log=params.log,
    )
    notes.append(f"cp-sat {outcome.message}")
    if outcome.status is Status.INFEASIBLE and resolution > 1:
        why = (
            f"the model coarsened to resolution {resolution} has no solution: a "
            "restriction, so this says nothing about the instance"
        )
        return _fallback(instance, chosen, [*notes, why], outcome.backend, deadline, known)
    if outcome.status is Status.INFEASIBLE:
        if offloaded is None:
            raise InfeasibleError("CP-SAT proved the instance infeasible")
        return Result(status=Status.INFEASIBLE, notes=("the fixed offload set cannot fit",), solver=outcome.backend)
    if not outcome.has_solution:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=tuple(notes), solver=outcome.backend)
    return _solved(
        instance, extract(instance, handles, outcome.value), outcome, resolution, offloaded is not None, notes
    )


def _horizon(instance: Instance, chosen: Sequence[int], resolution: int, deadline: Deadline) -> tuple[int, Solution]:
    """(horizon, offload-all schedule): its makespan, or (coarse) the set's schedule on the grid plus one step if later.

    Both simulations stop at ``deadline`` (`TimeLimitReached`: no schedule yet, no model either).
    """
    reference = simulate(instance, instance.offloadable, deadline=deadline)
    assert reference is not None, "offload-all fits on a feasible instance (model.memory_floors)"
    horizon = makespan(instance, reference)
    if resolution > 1:
        on_grid = simulate(instance, chosen, scale=resolution, deadline=deadline)
        if on_grid is not None:  # its makespan on the grid is below its original makespan + one step
            horizon = max(horizon, makespan(instance, on_grid) + resolution)
    return horizon, reference


def _solved(
    instance: Instance, solution: Solution, outcome: Any, resolution: int, fixed: bool, notes: list[str]
) -> Result:
    """The Result of a CP-SAT solution: OPTIMAL and a bound only at resolution 1 with a free offload set."""
    exact = resolution == 1
    status = Status.OPTIMAL if exact and outcome.status is Status.OPTIMAL else Status.FEASIBLE
    bound = math.ceil(outcome.bound - 1e-6) if exact and outcome.bound is not None and not fixed else None
    if not exact:
        notes.append("scaled model: its bound is not a bound of the original instance")
    if fixed:
        notes.append("offload set fixed: optimal timing of that set only")
        status = Status.FEASIBLE if status is Status.OPTIMAL else status
    return Result(
        status=status,
        objective=makespan(instance, solution),
        bound=bound,
        solution=solution,
        notes=tuple(notes),
        solver=outcome.backend,
    )


def _fallback(
    instance: Instance,
    chosen: Sequence[int],
    notes: list[str],
    backend: str | None,
    deadline: Deadline,
    schedule: Solution | None = None,
) -> Result:
    """cpsat-plain without a CP-SAT answer: the simulator's schedule of the offload set (FEASIBLE), or none.

    ``schedule``: that schedule when it is already known (a free set: the horizon's offload-all
    schedule); otherwise it is simulated, up to ``deadline`` (past it, `TimeLimitReached`).
    """
    if schedule is None:
        schedule = simulate(instance, chosen, deadline=deadline)
    if schedule is None:
        # Only a fixed set can fail here (offload-all fits on a feasible instance); at resolution 1 the
        # build ran out of time, at a coarser one the coarse model proved nothing: no verdict either way.
        return Result(
            status=Status.TIME_LIMIT_NO_SOLUTION,
            notes=(*notes, "the simulator's timing of the offload set does not fit either"),
            solver=backend,
        )
    return Result(
        status=Status.FEASIBLE,
        objective=makespan(instance, schedule),
        solution=schedule,
        notes=(*notes, "the simulator's schedule of the offload set is returned"),
        solver=backend,
    )


def _offload_set(instance: Instance, offloaded: Sequence[int]) -> list[int]:
    """The ``offloaded`` option checked against the instance: offloadable activations only."""
    for position, index in enumerate(offloaded):
        if index not in instance.offloadable:
            raise OptionError(
                f"options.offloaded[{position}]",
                f"activation {index} is not offloadable (offloadable: {list(instance.offloadable)})",
            )
    return list(offloaded)
