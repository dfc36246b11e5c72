"""PuLP adapter: HiGHS (through highspy, the default) or CBC (bundled with PuLP 3).

PuLP 3 reports ``status == Optimal`` after a time limit when an incumbent
exists; only ``sol_status`` tells a proven optimum (LpSolutionOptimal) from an
incumbent (LpSolutionIntegerFeasible). The best bound is read from HiGHS
(``mip_dual_bound``); CBC through PuLP does not expose it, so a time-limited
CBC solve reports bound None.

A time-limited *LP* (no integer variable) is OPTIMAL only when HiGHS proved
it; PuLP maps HiGHS' "time limit reached" to ``Optimal / Solution Found``,
so the message is HiGHS' own model status, and the point HiGHS stopped at is
FEASIBLE only when HiGHS says it is primal feasible (a dual simplex stopped
early holds a primal infeasible point), else TIME_LIMIT_NO_SOLUTION.

The relative MIP gap is 0 by default: OPTIMAL means proven, not "within
0.01%" as HiGHS' default tolerance would give.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..core.deadline import now
from ..core.errors import SolverUnavailableError
from ..core.result import Status
from .outcome import Outcome
from .pulp_highs import batched_highs_class

BACKENDS = ("highs", "cbc")
DEFAULT_THREADS = 2


def _pulp():
    try:
        import pulp
    except ImportError as error:  # pragma: no cover - pulp is a hard dependency
        raise SolverUnavailableError("pulp", "pip install 'pulp>=3,<4'") from error
    return pulp


def version(backend: str = "highs") -> str:
    pulp = _pulp()
    if backend == "highs":
        try:
            from importlib.metadata import version as dist_version

            return f"pulp {pulp.__version__} + highs {dist_version('highspy')}"
        except Exception:  # pragma: no cover
            return f"pulp {pulp.__version__} + highs"
    return f"pulp {pulp.__version__} + cbc"


def _solver(backend: str, time_limit: float | None, threads: int, seed: int, gap: float):
    pulp = _pulp()
    if backend == "highs":
        try:
            import highspy
        except ImportError as error:
            raise SolverUnavailableError("highs", "pip install highspy") from error
        # HiGHS keeps one thread pool per process, sized by the first solve; a later solve asking
        # for another thread count then returns "no solution" without a word. Reset it first.
        highspy.Highs.resetGlobalScheduler(True)
        return batched_highs_class()(
            deadline=None if time_limit is None else now() + time_limit,
            msg=False,
            timeLimit=time_limit,
            threads=threads,
            gapRel=gap,
            random_seed=int(seed) % 2147483647,
        )
    if backend == "cbc":
        solver = pulp.PULP_CBC_CMD(
            msg=False,
            timeLimit=time_limit,
            threads=threads,
            gapRel=gap,
            options=[f"randomCbcSeed {int(seed) % 2147483647 + 1}"],
        )
        if not solver.available():
            raise SolverUnavailableError("cbc", "PuLP 3 bundles CBC; reinstall with pip install 'pulp>=3,<4'")
        return solver
    raise SolverUnavailableError(backend, f"unknown MILP backend; choose one of {', '.join(BACKENDS)}")


def solve_pulp(
    problem: Any,
    *,
    backend: str = "highs",
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int = 0,
    gap: float = 0.0,
) -> Outcome:
    """Solve a ``pulp.LpProblem`` (minimization) and return its Outcome.

    Parameters
    ----------
    problem
        The PuLP model.
    backend
        ``"highs"`` (default) or ``"cbc"``.
    time_limit
        Seconds from this call, the hand-over to HiGHS included; None means no
        limit (a negative value counts as 0).
    threads
        Solver threads; default `DEFAULT_THREADS`.
    seed
        Random seed passed to the backend.
    gap
        Relative MIP gap at which the backend may stop; 0 proves optimality.
    """
    pulp = _pulp()
    if time_limit is not None:
        time_limit = max(0.0, float(time_limit))
    solver = _solver(backend, time_limit, int(threads or DEFAULT_THREADS), seed, gap)
    started = time.perf_counter()
    try:
        problem.solve(solver)
    except (pulp.PulpSolverError, ArithmeticError, IndexError, ValueError) as error:
        # PuLP's HiGHS wrapper indexes an empty solution when HiGHS refuses a model
        # (e.g. coefficients beyond its numerical range): report it, do not crash.
        message = f"{backend} failed: {type(error).__name__}: {error}"
        return Outcome(Status.ERROR, None, None, time.perf_counter() - started, version(backend), message=message)
    runtime = time.perf_counter() - started
    if getattr(solver, "skipped", ""):  # HiGHS never ran (pulp_highs): no point, no bound
        return Outcome(Status.TIME_LIMIT_NO_SOLUTION, None, None, runtime, version(backend), message=solver.skipped)
    is_mip = any(variable.cat != pulp.LpContinuous for variable in problem.variables())
    status = _pulp_status(problem.status, problem.sol_status)
    message = f"{pulp.LpStatus[problem.status]} / {pulp.LpSolution[problem.sol_status]}"
    highs_model = getattr(problem, "solverModel", None) if backend == "highs" else None
    if highs_model is not None:
        status, message = _highs_verdict(highs_model, status, is_mip)
    objective = pulp.value(problem.objective) if status.has_solution else None
    if objective is None and status.has_solution:
        objective = 0.0  # an empty objective expression
    return Outcome(
        status=status,
        objective=objective,
        bound=_pulp_bound(problem, backend, status, objective, is_mip),
        runtime_s=runtime,
        backend=version(backend),
        value=(lambda variable: variable.value()) if status.has_solution else None,
        message=message,
    )


def _pulp_status(code: int, solution_code: int) -> Status:
    """The Status of PuLP's ``(status, sol_status)`` pair (see the module docstring)."""
    pulp = _pulp()
    if solution_code == pulp.LpSolutionOptimal:
        return Status.OPTIMAL
    if solution_code == pulp.LpSolutionIntegerFeasible:
        return Status.FEASIBLE
    if code == pulp.LpStatusInfeasible or solution_code == pulp.LpSolutionInfeasible:
        # CBC reports a time limit without incumbent as "Not Solved"/infeasible
        # solution; only a proven infeasibility has status Infeasible.
        return Status.INFEASIBLE if code == pulp.LpStatusInfeasible else Status.TIME_LIMIT_NO_SOLUTION
    if code == pulp.LpStatusNotSolved:
        return Status.TIME_LIMIT_NO_SOLUTION
    return Status.ERROR


def _highs_verdict(highs_model: Any, status: Status, is_mip: bool) -> tuple[Status, str]:
    """``status`` corrected by what HiGHS itself said, and HiGHS' model status as the message.

    PuLP reports a time limit as "Optimal / Solution Found"; the point a
    time-limited LP stopped at is a solution only when HiGHS says it is
    primal feasible.
    """
    message = highs_model.modelStatusToString(highs_model.getModelStatus())
    if status is Status.FEASIBLE and not is_mip and highs_model.getInfo().primal_solution_status != 2:
        status = Status.TIME_LIMIT_NO_SOLUTION  # 2 = kSolutionStatusFeasible: anything else is no solution
    return status, message


def _pulp_bound(problem: Any, backend: str, status: Status, objective: float | None, is_mip: bool) -> float | None:
    """The proven lower bound: an optimal LP's value, HiGHS' MIP dual bound, or an optimal MIP's value."""
    if status is Status.OPTIMAL and not is_mip:
        return objective
    if backend == "highs" and getattr(problem, "solverModel", None) is not None and is_mip:
        dual_bound = problem.solverModel.getInfo().mip_dual_bound
        if not math.isfinite(dual_bound):
            return None
        # PuLP hands HiGHS the objective without its constant term, negated when maximizing
        # (pulp.apis.highs_api, buildSolverModel): undo both, or the bound is off by the constant.
        pulp = _pulp()
        sense = -1 if problem.sense == pulp.LpMaximize else 1
        constant = problem.objective.constant if problem.objective is not None else 0.0
        return sense * dual_bound + constant
    if status is Status.OPTIMAL:
        return objective
    return None
