"""Pyomo adapter: ``appsi_highs`` by default, or any solver Pyomo finds.

The results are loaded only when a feasible point exists, so a time-limited
solve without incumbent is TIME_LIMIT_NO_SOLUTION rather than an exception.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..core.errors import SolverUnavailableError
from ..core.result import Status
from .outcome import Outcome

DEFAULT_SOLVER = "appsi_highs"
DEFAULT_THREADS = 2


def _pyomo():
    try:
        import pyomo.environ as pyo
    except ImportError as error:  # pragma: no cover - pyomo is a hard dependency
        raise SolverUnavailableError("pyomo", "pip install pyomo") from error
    return pyo


def version(solver: str = DEFAULT_SOLVER) -> str:
    import pyomo.version

    extra = ""
    if "highs" in solver:
        try:
            from importlib.metadata import version as dist_version

            extra = f" + highs {dist_version('highspy')}"
        except Exception:  # pragma: no cover
            extra = " + highs"
    return f"pyomo {pyomo.version.version} ({solver}){extra}"


def solve_pyomo(
    model: Any,
    *,
    solver: str = DEFAULT_SOLVER,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int = 0,
    gap: float = 0.0,
) -> Outcome:
    """Solve a Pyomo ``ConcreteModel`` with one minimized objective.

    Parameters
    ----------
    model
        The Pyomo model.
    solver
        Pyomo solver name; default ``appsi_highs``.
    time_limit, threads, seed, gap
        As for `hpcsched.solvers.milp.solve_pulp`.
    """
    pyo = _pyomo()
    from pyomo.opt import TerminationCondition

    opt = pyo.SolverFactory(solver)
    try:
        available = bool(opt.available(exception_flag=False))
    except Exception:
        available = False
    if not available:
        hint = "pip install highspy" if "highs" in solver else f"install the '{solver}' solver for Pyomo"
        raise SolverUnavailableError(solver, hint)
    keywords: dict[str, Any] = {"load_solutions": False}
    if time_limit is not None:
        keywords["timelimit"] = float(time_limit)
    if "highs" in solver:
        import highspy

        # One HiGHS thread pool per process, sized by the first solve: another thread count later
        # ends in an error status (see `hpcsched.solvers.milp._solver`). Reset it first.
        highspy.Highs.resetGlobalScheduler(True)
        opt.config.mip_gap = gap
        keywords["options"] = {"threads": int(threads or DEFAULT_THREADS), "random_seed": int(seed) % 2147483647}
    started = time.perf_counter()
    results = opt.solve(model, **keywords)
    runtime = time.perf_counter() - started
    condition = results.solver.termination_condition
    upper = getattr(results.problem, "upper_bound", None)
    has_point = upper is not None and math.isfinite(float(upper))
    if condition == TerminationCondition.optimal:
        status = Status.OPTIMAL
    elif condition in (TerminationCondition.infeasible, TerminationCondition.infeasibleOrUnbounded):
        status = Status.INFEASIBLE
    elif condition in (TerminationCondition.maxTimeLimit, TerminationCondition.maxIterations):
        status = Status.FEASIBLE if has_point else Status.TIME_LIMIT_NO_SOLUTION
    else:
        status = Status.ERROR
    if status.has_solution:
        if hasattr(opt, "load_vars"):
            opt.load_vars()
        else:
            model.solutions.load_from(results)
    objective = None
    if status.has_solution:
        objective = pyo.value(next(model.component_data_objects(pyo.Objective, active=True)))
    lower = getattr(results.problem, "lower_bound", None)
    bound = float(lower) if lower is not None and math.isfinite(float(lower)) else None
    if status is Status.OPTIMAL and bound is None:
        bound = objective
    return Outcome(
        status=status,
        objective=objective,
        bound=bound,
        runtime_s=runtime,
        backend=version(solver),
        value=pyo.value if status.has_solution else None,
        message=str(condition),
    )
