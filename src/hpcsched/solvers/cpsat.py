"""OR-Tools CP-SAT adapter.

`solve_cpsat` maps CP-SAT's status and objective bound onto `Outcome`:
OPTIMAL only when CP-SAT proved it, FEASIBLE after a time limit with an
incumbent, TIME_LIMIT_NO_SOLUTION (UNKNOWN) without one. Time limit, workers
and seed are passed through; the default is 2 workers (the CI machine's cores)
so that results do not depend on the host.

A wall-clock limit makes the outcome depend on the machine's load.  A
*deterministic* limit (``deterministic_time``, CP-SAT's
``max_deterministic_time``: units of work calibrated to be about a second on
an unloaded machine) does not: with one worker, the same model, seed and
deterministic limit give the same answer on any machine.  Proofs that must be
reproducible use it, with the wall-clock limit as a safety net only.
`CpSatOutcome.deterministic_time` reports what the solve used.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import SolverUnavailableError
from ..core.result import Status
from .outcome import Outcome

DEFAULT_WORKERS = 2


@dataclass(frozen=True)
class CpSatOutcome(Outcome):
    """An `Outcome` that also says how much deterministic time (CP-SAT's work units) the solve used."""

    deterministic_time: float = 0.0


def _cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError as error:  # pragma: no cover - ortools is a hard dependency
        raise SolverUnavailableError("ortools-cpsat", "pip install ortools") from error
    return cp_model


def version() -> str:
    # The distribution's metadata: ortools' own type information omits ``__version__``.
    from importlib.metadata import version as distribution_version

    return f"ortools-cpsat {distribution_version('ortools')}"


def new_model() -> Any:
    """A fresh ``cp_model.CpModel``."""
    return _cp_model().CpModel()


def solve_cpsat(
    model: Any,
    *,
    time_limit: float | None = None,
    deterministic_time: float | None = None,
    workers: int | None = None,
    seed: int = 0,
    log: bool = False,
    parameters: Mapping[str, Any] | None = None,
) -> CpSatOutcome:
    """Solve a CP-SAT model.

    Parameters
    ----------
    model
        A ``cp_model.CpModel`` (minimization or satisfaction).
    time_limit
        Wall-clock seconds; None means no limit (a negative value counts as 0:
        the solve stops at once).
    deterministic_time
        ``max_deterministic_time``: a limit in CP-SAT's deterministic work
        units, the same on a loaded and an idle machine; None means none.
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
        solver.parameters.max_time_in_seconds = max(0.0, float(time_limit))
    if deterministic_time is not None:
        solver.parameters.max_deterministic_time = max(0.0, float(deterministic_time))
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
    return CpSatOutcome(
        status=status,
        objective=objective,
        bound=bound,
        runtime_s=runtime,
        backend=version(),
        value=solver.value if solved else None,
        message=solver.status_name(code),
        # read from the response: CpSolver.deterministic_time only exists from OR-Tools 9.15
        deterministic_time=float(solver.response_proto.deterministic_time),
    )
