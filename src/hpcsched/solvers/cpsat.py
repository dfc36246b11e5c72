"""OR-Tools CP-SAT adapter.

`solve_cpsat` maps CP-SAT's status and objective bound onto `Outcome`:
OPTIMAL only when CP-SAT proved it, FEASIBLE after a time limit with an
incumbent, TIME_LIMIT_NO_SOLUTION (UNKNOWN) without one. Time limit, workers
and seed are passed through; the default is 2 workers (the CI machine's cores)
so that results do not depend on the host.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

from ..core.errors import SolverUnavailableError
from ..core.result import Status
from .outcome import Outcome

DEFAULT_WORKERS = 2


def _cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError as error:  # pragma: no cover - ortools is a hard dependency
        raise SolverUnavailableError("ortools-cpsat", "pip install ortools") from error
    return cp_model


def version() -> str:
    import ortools

    return f"ortools-cpsat {ortools.__version__}"


def new_model() -> Any:
    """A fresh ``cp_model.CpModel``."""
    return _cp_model().CpModel()


def solve_cpsat(
    model: Any,
    *,
    time_limit: float | None = None,
    workers: int | None = None,
    seed: int = 0,
    log: bool = False,
    parameters: Mapping[str, Any] | None = None,
) -> Outcome:
    """Solve a CP-SAT model.

    Parameters
    ----------
    model
        A ``cp_model.CpModel`` (minimization or satisfaction).
    time_limit
        Seconds; None means no limit.
    workers
        ``num_search_workers``; default `DEFAULT_WORKERS`.
    seed
        ``random_seed``.
    log
        Print the search log.
    parameters
        Further ``SatParameters`` fields, set by name.
    """
    cp_model = _cp_model()
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers or DEFAULT_WORKERS)
    solver.parameters.random_seed = int(seed)
    solver.parameters.log_search_progress = bool(log)
    for key, value in (parameters or {}).items():
        if isinstance(value, (list, tuple)):  # repeated fields (e.g. subsolvers) cannot be assigned
            getattr(solver.parameters, key).extend(value)
        else:
            setattr(solver.parameters, key, value)
    started = time.perf_counter()
    code = solver.solve(model)
    runtime = time.perf_counter() - started
    has_objective = model.has_objective()
    status = {
        cp_model.OPTIMAL: Status.OPTIMAL,
        cp_model.FEASIBLE: Status.FEASIBLE,
        cp_model.INFEASIBLE: Status.INFEASIBLE,
        cp_model.UNKNOWN: Status.TIME_LIMIT_NO_SOLUTION,
    }.get(code, Status.ERROR)
    solved = status in (Status.OPTIMAL, Status.FEASIBLE)
    objective = solver.objective_value if solved and has_objective else None
    bound = None
    if has_objective and status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION):
        bound = solver.best_objective_bound
    return Outcome(
        status=status,
        objective=objective,
        bound=bound,
        runtime_s=runtime,
        backend=version(),
        value=solver.value if solved else None,
        message=solver.status_name(code),
    )
