"""Solution files: a Result with the sha256 of the instance data it was computed on."""

from __future__ import annotations

import math
import os
from typing import Any

from ..errors import InvalidInstanceError, InvalidSolutionError
from ..registry import Problem, problem_of
from ..result import Result
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
    file = STDIN_NAME if is_stdio(path) else str(path)
    document = load_json(path)
    problem: Problem = problem_of(instance)
    try:
        declared = required_field(document, "problem", str, file)
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
        raise InvalidSolutionError(f"solution.{error.field}", error.reason, file) from None
