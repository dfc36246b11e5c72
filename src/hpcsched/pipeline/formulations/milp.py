"""MILP (PuLP on HiGHS): disjunctive big-M for the makespan, time-indexed fixed-period models for the period.

The models are in `milp_models`; proofs in docs/pipeline.md ("milp").
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers import milp as milp_backend
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
from .milp_models import DisjunctiveMilp, TimeIndexedPeriodMilp, makespan_pairs, period_variables

#: Default size limits: order binaries of the makespan model, phase binaries of one fixed-period model.
MILP_MAX_PAIRS = 20_000
MILP_MAX_PERIOD_VARIABLES = 20_000


@dataclass(frozen=True)
class MilpParams:
    """Options of `milp`.

    Attributes
    ----------
    max_pairs
        Makespan: refuse (NOT_APPLICABLE) when the order binaries exceed this.
    max_period_variables
        Period: refuse (NOT_APPLICABLE) when the model of the lower bound's
        period has more phase binaries (R x (B + freeing blocks) x P); a
        larger period reached in the search stops it there (FEASIBLE).
    threads
        HiGHS threads.
    stop_at_bound
        Return the warm start as OPTIMAL without a solve when it meets
        `bounds.best` (False: always solve; the tests use it).
    warm_start_seconds
        Seconds for the heuristics of the warm start (default 10 % of the limit, at most 5 s).
    """

    max_pairs: int = MILP_MAX_PAIRS
    max_period_variables: int = MILP_MAX_PERIOD_VARIABLES
    threads: int = 2
    stop_at_bound: bool = True
    warm_start_seconds: float | None = None

    def __post_init__(self) -> None:
        at_least("max_pairs", self.max_pairs, 1)
        at_least("max_period_variables", self.max_period_variables, 1)
        at_least("threads", self.threads, 1)
        at_least("warm_start_seconds", self.warm_start_seconds, 0)


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: MilpParams | None) -> Result:
    """MILP on HiGHS: disjunctive big-M with order binaries (makespan), time-indexed phases for each period tried.

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds for everything (warm start, model building, solves).
    seed
        HiGHS random seed.
    params
        `MilpParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL only when HiGHS proved it (or the warm start meets the
        bound, or every smaller period is proven infeasible); FEASIBLE with
        the best schedule otherwise; NOT_APPLICABLE above the size limits;
        INFEASIBLE when HiGHS proves that no schedule fits within a horizon
        every feasible instance meets.
    """
    params = params or MilpParams()
    deadline = Deadline.after(time_limit)
    require_fits(instance)
    deadline.check("starting")  # bounds.best may import scipy (about a second, once per process)
    lower = bounds.best(instance)
    if instance.is_period:
        size = period_variables(instance, lower)
        if size > params.max_period_variables:
            return _too_large(f"{size} phase binaries at period {lower}", "max_period_variables", params)
    else:
        size = makespan_pairs(instance)
        if size > params.max_pairs:
            return _too_large(f"{size} order binaries", "max_pairs", params)
    seconds = warm_start_seconds(params.warm_start_seconds, time_limit)
    incumbent = warm_start(instance, deadline, seconds, lower if params.stop_at_bound else None)
    if incumbent.value is not None and incumbent.value <= lower and params.stop_at_bound:
        return Result(
            status=Status.OPTIMAL,
            solution=incumbent.solution,
            bound=lower,
            notes=(f"{incumbent.name}'s schedule meets the lower bound",),
        )
    if instance.is_period:
        result = _period(instance, lower, incumbent, deadline, params, seed)
    else:
        result = _makespan(instance, lower, incumbent, deadline, params, seed)
    return result.replace(solver=milp_backend.version())


def _too_large(what: str, option: str, params: MilpParams) -> Result:
    limit = getattr(params, option)
    return Result(status=Status.NOT_APPLICABLE, notes=(f"{what} exceed options.{option} = {limit}",))


def _makespan(
    instance: Instance, lower: int, incumbent: Incumbent, deadline: Deadline, params: MilpParams, seed: int
) -> Result:
    horizon = incumbent.value if incumbent.value is not None else makespan_cap(instance)
    try:
        deadline.check("computing the warm start and the bounds")
        built = DisjunctiveMilp(instance, horizon, lower, deadline)
        deadline.check("building the MILP")
    except TimeLimitReached as reached:
        return _incumbent_only(incumbent, lower, str(reached))
    outcome = milp_backend.solve_pulp(built.problem, time_limit=deadline.remaining(), threads=params.threads, seed=seed)
    note = f"HiGHS {outcome.message}"
    if outcome.status is Status.INFEASIBLE:
        if incumbent.solution is not None:  # pragma: no cover - the warm start is a solution of the model
            return _incumbent_only(incumbent, lower, f"{note} (not trusted: the warm start fits the model)")
        raise InfeasibleError(f"HiGHS proved that no schedule ends by {horizon}, a span every feasible instance meets")
    bound = integer_bound(outcome.bound, lower)
    solution = built.solution(outcome) if outcome.has_solution else None
    if solution is None:
        return _incumbent_only(incumbent, bound, note)
    worse = incumbent.value is not None and evaluate(instance, solution)["objective"] > incumbent.value
    if worse and incumbent.solution is not None:
        solution = incumbent.solution
    status = outcome.status if outcome.status is Status.OPTIMAL else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=bound, notes=(note,))


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
    instance: Instance, lower: int, incumbent: Incumbent, deadline: Deadline, params: MilpParams, seed: int
) -> Result:
    steps: list[str] = []

    def probe(period: int) -> ProbeAnswer:
        size = period_variables(instance, period)
        if size > params.max_period_variables:
            # the models only grow with P: the search stops here
            note = f"period {period}'s model has {size} phase binaries > options.max_period_variables"
            return ProbeAnswer(Probe.UNKNOWN, note=note, stop=True)
        try:
            built = TimeIndexedPeriodMilp(instance, period, deadline)
        except TimeLimitReached:
            return ProbeAnswer(Probe.UNKNOWN, note="time limit while building")
        outcome = milp_backend.solve_pulp(
            built.problem, time_limit=deadline.remaining(), threads=params.threads, seed=seed
        )
        steps.append(f"P={period}: {outcome.message}")
        if outcome.has_solution:  # a feasibility model: any point HiGHS holds is a schedule
            return ProbeAnswer(Probe.FEASIBLE, built.offsets(outcome))
        if outcome.status is Status.INFEASIBLE:
            return ProbeAnswer(Probe.INFEASIBLE)
        return ProbeAnswer(Probe.UNKNOWN, note=f"HiGHS {outcome.message}")

    result = search_periods(instance, lower, incumbent, deadline, probe, probe_incumbent=not params.stop_at_bound)
    return result.replace(notes=(*result.notes, _summary(steps)))


def _summary(steps: list[str]) -> str:
    if len(steps) <= 6:
        return "fixed-period MILPs: " + "; ".join(steps)
    return f"{len(steps)} fixed-period MILPs: " + "; ".join(steps[:3]) + "; ...; " + "; ".join(steps[-2:])
