"""Solution files: a Result with the sha256 of the instance data it was computed on."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInstanceError, InvalidSolutionError
from ..fields import require_known_keys
from ..registry import _OPTIMALITY_GAP, _TOLERANCE, Problem, problem_of
from ..result import Result, Status
from ..violation import Violation
from .instances import STDIN_NAME, dumps, instance_sha256, load_json, required_field
from .output import atomic_write_text, is_stdio
from .schema import FORMAT_VERSION


def _finite_or_none(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def solution_document(instance: Any, result: Result) -> dict[str, Any]:
    """The JSON document of ``result`` computed on ``instance``."""
    return {
        "problem": result.problem,
        "format": FORMAT_VERSION,
        "instance": {"name": instance.name, "sha256": instance_sha256(instance)},
        "method": result.method,
        "status": result.status.value,
        "objective": _finite_or_none(result.objective),
        "bound": _finite_or_none(result.bound),
        "runtime_s": result.runtime_s,
        "solver": result.solver,
        "notes": list(result.notes),
        "solution": None if result.solution is None else result.solution.to_data(),
    }


def write_solution(instance: Any, result: Result, path: str | os.PathLike) -> None:
    """Write ``result`` as a solution file, atomically."""
    atomic_write_text(path, dumps(solution_document(instance, result)))


def read_solution(path: str | os.PathLike, instance: Any) -> Any:
    """Read a solution file written for ``instance`` into its Solution.

    Raises InvalidSolutionError when the file is for another problem or
    another instance (sha256 mismatch), or when its ``solution`` is malformed.
    """
    return read_solution_file(path, instance)[0]


def read_solution_file(path: str | os.PathLike, instance: Any) -> tuple[Any, dict[str, Any]]:
    """`read_solution`, and the whole document (its recorded status, objective and bound).

    Returns
    -------
    tuple
        ``(solution, document)``: the decoded Solution and the file's JSON
        object, whose claims `claim_violations` checks against the evaluation.
    """
    file = STDIN_NAME if is_stdio(path) else str(path)
    document = load_json(path)
    return _decode_solution(document, instance, file), document


#: The keys of a solution file (those `solution_document` writes); any other is refused, not ignored.
DOCUMENT_KEYS = (
    "problem",
    "format",
    "instance",
    "method",
    "status",
    "objective",
    "bound",
    "runtime_s",
    "solver",
    "notes",
    "solution",
)


def _decode_solution(document: Any, instance: Any, file: str) -> Any:
    problem: Problem = problem_of(instance)
    try:
        declared = required_field(document, "problem", str, file)
        # a misspelt "soluton" or "objectve" would otherwise be ignored, and its claim with it
        require_known_keys(document, DOCUMENT_KEYS, "", "a solution file")
        if declared != problem.name:
            raise InvalidSolutionError("problem", f"is '{declared}' but the instance is '{problem.name}'", file)
        reference = document.get("instance")
        if isinstance(reference, dict) and reference.get("sha256", instance_sha256(instance)) != instance_sha256(
            instance
        ):
            raise InvalidSolutionError(
                "instance.sha256", f"does not match the instance '{instance.name}' (computed on other data)", file
            )
        if document.get("solution", {}) is None:
            status = document.get("status", "without a solution")
            method = document.get("method")
            by = f" of {method}" if isinstance(method, str) else ""
            raise InvalidSolutionError(
                "solution", f"is null: the solution file holds no solution (the solve{by} ended {status})", file
            )
        payload = required_field(document, "solution", dict, file)
    except InvalidInstanceError as error:
        if isinstance(error, InvalidSolutionError):
            raise
        raise InvalidSolutionError(error.field, error.reason, file) from None
    try:
        return problem.solution_type.from_data(payload, instance=instance)
    except InvalidInstanceError as error:
        raise InvalidSolutionError(_in_solution(error.field), error.reason, file) from None


def _in_solution(field: str) -> str:
    """``field`` of a ``from_data`` error as a path in the file: under ``solution`` (once, whichever way
    the problem named it: relative to the solution object, or from ``solution`` itself)."""
    if field == "solution" or field.startswith(("solution.", "solution[")):
        return field
    return f"solution.{field}" if field else "solution"


def _recorded_number(document: Mapping[str, Any], key: str) -> float | None:
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None  # absent, null or not a number: nothing is claimed
    return float(value)


def claim_violations(document: Mapping[str, Any], objective: float) -> list[Violation]:
    """What a solution file claims that its evaluation contradicts.

    A file is not trusted because its solution is feasible: its recorded
    ``objective``, ``status`` and ``bound`` are claims, checked here with the
    registry's own tolerances (`check_result`), so that a file ``solve`` wrote
    never contradicts itself and a hand-edited one does.

    Parameters
    ----------
    document
        The solution file's JSON object (`read_solution_file`).
    objective
        The objective ``evaluate`` computes for its solution.

    Returns
    -------
    list of Violation
        One per contradiction (rule ``claim``): a recorded objective that
        differs from the evaluated one by more than a relative 1e-9; a bound
        above the objective by more than that; ``OPTIMAL`` with a bound below
        the objective by more than the optimality gap the registry accepts
        (1e-6 relative). Empty when the claims hold or none is made.
    """
    slack = _TOLERANCE * max(1.0, abs(objective))
    found = []
    recorded = _recorded_number(document, "objective")
    if recorded is not None and abs(recorded - objective) > slack:
        found.append(
            Violation("claim", f"recorded objective {recorded:.17g} but the solution evaluates to {objective:.17g}")
        )
    bound = _recorded_number(document, "bound")
    if bound is not None and bound > objective + slack:
        found.append(
            Violation("claim", f"recorded bound {bound:.17g} is above the evaluated objective {objective:.17g}")
        )
    elif (
        document.get("status") == Status.OPTIMAL.value
        and bound is not None
        and bound < objective - _OPTIMALITY_GAP * max(1.0, abs(objective))
    ):
        found.append(
            Violation(
                "claim",
                f"status OPTIMAL but the recorded bound {bound:.17g} is below the evaluated objective {objective:.17g}",
            )
        )
    return found
