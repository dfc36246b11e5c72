"""CP-SAT: the interval model of the makespan, and fixed-period feasibility models searched upward for the period.

The models are in `cpsat_models`; proofs in docs/pipeline.md ("cpsat").
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_backend
from .. import bounds
from ..model import Instance, evaluate, require_fits
from .common import (
    Incumbent,
    Probe,
    ProbeAnswer,
    integer_bound,
    makespan_cap,
    search_periods,
    warm_start,
    warm_start_seconds,
)
from .cpsat_models import MakespanModel, PeriodModel

#: Default deterministic limit (CP-SAT work units, about seconds on an idle machine) of each fixed-period model.
PERIOD_STEP_DETERMINISTIC_TIME = 10.0


@dataclass(frozen=True)
class CpSatParams:
    """Options of `cpsat`.

    Attributes
    ----------
    workers
        CP-SAT search workers (makespan). The fixed-period models run with
        one worker, so that what each proves does not depend on the machine.
    deterministic_time
        Makespan: CP-SAT ``max_deterministic_time`` of the solve (None: only
        the time limit); tests that assert a proof set it.
    period_step_deterministic_time
        Period: the deterministic limit of each fixed-P model; a P it cannot
        decide is skipped (unproven) and the search goes on upward.
    hint
        Start the makespan model from the warm start's schedule.
    stop_at_bound
        Return the warm start as OPTIMAL without a solve when it meets
        `bounds.best` (False: always solve; the tests use it to exercise the models).
    tight_offsets
        Period: add the tight-offset rules (docs/pipeline.md) to each model.
    warm_start_seconds
        Seconds for the heuristics of the warm start (default 10 % of the limit, at most 5 s).
    """

    workers: int = 2
    deterministic_time: float | None = None
    period_step_deterministic_time: float = PERIOD_STEP_DETERMINISTIC_TIME
    hint: bool = True
    stop_at_bound: bool = True
    tight_offsets: bool = True
    warm_start_seconds: float | None = None

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)
        positive("period_step_deterministic_time", self.period_step_deterministic_time)
        at_least("warm_start_seconds", self.warm_start_seconds, 0)


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT: interval model (makespan) or fixed-period feasibility models searched upward from the bound (period).

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds for everything (warm start, model building, solves).
    seed
        CP-SAT random seed.
    params
        `CpSatParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL only when proven (CP-SAT's OPTIMAL, the warm start meeting
        the bound, or every smaller period proven infeasible); FEASIBLE with
        the best schedule otherwise; INFEASIBLE when CP-SAT proves that no
        schedule fits within a horizon every feasible instance meets.
    """
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    require_fits(instance)
    deadline.check("starting")  # bounds.best may import scipy (about a second, once per process)
    lower = bounds.best(instance)
    seconds = warm_start_seconds(params.warm_start_seconds, time_limit)
    incumbent = warm_start(instance, deadline, seconds, lower if params.stop_at_bound else None)
    if incumbent.value is not None and incumbent.value <= lower and params.stop_at_bound:
        return Result(
            status=Status.OPTIMAL,
            solution=incumbent.solution,
            bound=lower,
            notes=(f"{incumbent.name}'s schedule meets the lower bound",),
            solver=cpsat_backend.version(),
        )
    if instance.is_period:
        result = _period(instance, lower, incumbent, deadline, params, seed)
    else:
        result = _makespan(instance, lower, incumbent, deadline, params, seed)
    return result.replace(solver=cpsat_backend.version())


def _makespan(
    instance: Instance, lower: int, incumbent: Incumbent, deadline: Deadline, params: CpSatParams, seed: int
) -> Result:
    horizon = incumbent.value if incumbent.value is not None else makespan_cap(instance)
    try:
        deadline.check("computing the warm start and the bounds")
        built = MakespanModel(instance, horizon, lower, deadline)
        if params.hint and incumbent.solution is not None and incumbent.value is not None:
            built.hint(incumbent.solution, incumbent.value)
        deadline.check("building the CP-SAT model")
    except TimeLimitReached as reached:
        return _incumbent_only(incumbent, lower, str(reached))
    outcome = cpsat_backend.solve_cpsat(
        built.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    note = f"CP-SAT {outcome.message}, deterministic time {outcome.deterministic_time:.2f}"
    if outcome.status is Status.INFEASIBLE:
        if incumbent.solution is not None:  # pragma: no cover - the warm start is a solution of the model
            return _incumbent_only(incumbent, lower, f"{note} (not trusted: the warm start fits the model)")
        raise InfeasibleError(f"CP-SAT proved that no schedule ends by {horizon}, a span every feasible instance meets")
    bound = integer_bound(outcome.bound, lower)
    if not outcome.has_solution:
        return _incumbent_only(incumbent, bound, note)
    solution = built.solution(outcome)
    worse = incumbent.value is not None and evaluate(instance, solution)["objective"] > incumbent.value
    if worse and incumbent.solution is not None:  # pragma: no cover - the hint is kept
        solution = incumbent.solution
    return Result(status=outcome.status, solution=solution, bound=bound, notes=(note,))


def _incumbent_only(incumbent: Incumbent, bound: int, note: str) -> Result:
    if incumbent.solution is None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, notes=(note,))
    return Result(
        status=Status.FEASIBLE,
        solution=incumbent.solution,
        bound=bound,
        notes=(f"{note}: {incumbent.name}'s schedule is returned",),
    )


def _period(
    instance: Instance, lower: int, incumbent: Incumbent, deadline: Deadline, params: CpSatParams, seed: int
) -> Result:
    steps: list[str] = []

    def probe(period: int) -> ProbeAnswer:
        try:
            built = PeriodModel(instance, period, deadline, tight=params.tight_offsets)
        except TimeLimitReached:
            return ProbeAnswer(Probe.UNKNOWN, note="time limit while building")
        outcome = cpsat_backend.solve_cpsat(
            built.model,
            time_limit=deadline.remaining(),
            deterministic_time=params.period_step_deterministic_time,
            workers=1,
            seed=seed,
        )
        steps.append(f"P={period}: {outcome.message} ({outcome.deterministic_time:.2f})")
        if outcome.has_solution:
            return ProbeAnswer(Probe.FEASIBLE, built.offsets(outcome))
        if outcome.status is Status.INFEASIBLE:
            return ProbeAnswer(Probe.INFEASIBLE)
        return ProbeAnswer(Probe.UNKNOWN, note=f"CP-SAT {outcome.message} after {outcome.deterministic_time:.2f}")

    result = search_periods(instance, lower, incumbent, deadline, probe, probe_incumbent=not params.stop_at_bound)
    return result.replace(notes=(*result.notes, _summary(steps)))


def _summary(steps: list[str]) -> str:
    if len(steps) <= 6:
        return "fixed-period models (deterministic time): " + "; ".join(steps)
    return f"{len(steps)} fixed-period models: " + "; ".join(steps[:3]) + "; ...; " + "; ".join(steps[-2:])


__all__ = ["CpSatParams", "cpsat"]
