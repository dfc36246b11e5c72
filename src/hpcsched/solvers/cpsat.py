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

A hard deadline for large models: on some large models (partition's
operator graphs of about 2,000 nodes) CP-SAT's first search task ran 29–45 s
past ``max_time_in_seconds`` without checking it, and ``stop_search`` did not
stop it either. A model of at least `ISOLATE_ABOVE` variables and
constraints, solved under a wall-clock limit, is therefore solved in a forked
child process that is killed if it outlives the limit by a grace of
`GRACE_S` s; the parent then gets TIME_LIMIT_NO_SOLUTION (the caller
falls back to its own incumbent, as after any CP-SAT run without a solution).
The child sends back the response's status, objective, bound and solution
vector, from which the parent reads values.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import SolverUnavailableError
from ..core.result import Status
from .outcome import Outcome

DEFAULT_WORKERS = 2
#: models with at least this many variables + constraints run in a child process under a wall-clock limit
ISOLATE_ABOVE = 20_000
#: seconds a child may outlive its limit before it is killed (CP-SAT itself stops within tens of ms)
GRACE_S = 0.5


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
    isolate: bool | None = None,
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
    isolate
        Solve in a child process killed at the hard deadline (module docstring); None: only models of at
        least `ISOLATE_ABOVE` variables + constraints under a wall-clock limit. Needs ``time_limit``.

    Returns
    -------
    CpSatOutcome
        Status, objective, bound, a ``value`` reader when a solution was found, and the deterministic time.
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
    size = len(model.proto.variables) + len(model.proto.constraints)
    if isolate is None:
        isolate = time_limit is not None and size >= ISOLATE_ABOVE
    reader: Callable[[Any], int] | None = None
    if isolate and time_limit is not None:
        reply = _solve_in_child(solver, model, float(time_limit) + GRACE_S)
    else:
        reply, reader = _reply(solver, solver.solve(model)), solver.value
    runtime = time.perf_counter() - started
    if reply is None:  # killed at the hard deadline
        return CpSatOutcome(
            status=Status.TIME_LIMIT_NO_SOLUTION,
            objective=None,
            bound=None,
            runtime_s=runtime,
            backend=version(),
            message=f"killed at the hard deadline: CP-SAT outlived its {time_limit} s limit (model of {size} items)",
        )
    code, values, objective_value, bound_value, deterministic, name = reply
    has_objective = model.has_objective()
    status = {
        int(cp_model.OPTIMAL): Status.OPTIMAL,
        int(cp_model.FEASIBLE): Status.FEASIBLE,
        int(cp_model.INFEASIBLE): Status.INFEASIBLE,
        int(cp_model.UNKNOWN): Status.TIME_LIMIT_NO_SOLUTION,
    }.get(code, Status.ERROR)
    solved = status in (Status.OPTIMAL, Status.FEASIBLE)
    objective = objective_value if solved and has_objective else None
    bound = None
    if has_objective and status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION):
        bound = bound_value
    return CpSatOutcome(
        status=status,
        objective=objective,
        bound=bound,
        runtime_s=runtime,
        backend=version(),
        value=(reader or _reader(values)) if solved else None,
        message=name,
        deterministic_time=deterministic,
    )


_Reply = tuple[int, list[int], float, float, float, str]


def _reply(solver: Any, code: Any) -> _Reply:
    """What a solve answered, as plain Python values (they cross a process boundary)."""
    response = solver.response_proto
    return (
        int(code),
        list(response.solution),
        float(response.objective_value),
        float(response.best_objective_bound),
        # read from the response: CpSolver.deterministic_time only exists from OR-Tools 9.15
        float(response.deterministic_time),
        solver.status_name(code),
    )


def _solve_in_child(solver: Any, model: Any, deadline_s: float) -> _Reply | None:
    """Solve in a forked child; None when it had to be killed after ``deadline_s`` seconds."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: solve, send the reply, leave without running the parent's cleanup
        try:
            os.close(read_end)
            payload = pickle.dumps(_reply(solver, solver.solve(model)))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    finished = False
    until = time.monotonic() + deadline_s
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while (left := until - time.monotonic()) > 0:
            if not select.select([pipe], [], [], left)[0]:
                break
            chunk = os.read(pipe.fileno(), 1 << 20)
            if not chunk:
                finished = True
                break
            chunks.append(chunk)
    if not finished:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if not finished or not chunks:
        return None
    reply: _Reply = pickle.loads(b"".join(chunks))
    return reply


def _reader(values: list[int]) -> Callable[[Any], int]:
    """``value(expression)`` from a response's solution vector (what ``CpSolver.value`` reads in-process)."""

    def value(expression: Any) -> int:
        if isinstance(expression, (int, float)):
            return int(expression)
        index = getattr(expression, "index", None)
        if isinstance(index, int) and not hasattr(expression, "coeffs"):
            # a variable, or a negated Boolean (index -i-1 stands for not x_i)
            return values[index] if index >= 0 else 1 - values[-index - 1]
        terms, offset = _linear_terms(expression)
        return offset + sum(coefficient * value(variable) for variable, coefficient in terms)

    return value


def _linear_terms(expression: Any) -> tuple[list[tuple[Any, int]], int]:
    """The (variable, coefficient) terms and constant of a linear expression, across OR-Tools versions."""
    try:  # OR-Tools 9.12+: the C++ expression classes
        from ortools.sat.python import cp_model_helper

        flat = cp_model_helper.FlatIntExpr(expression)
        return list(zip(flat.vars, flat.coeffs, strict=True)), int(flat.offset)
    except (ImportError, AttributeError, TypeError):
        coefficients, constant = expression.get_integer_var_value_map()  # OR-Tools 9.11's Python classes
        return list(coefficients.items()), int(constant)
