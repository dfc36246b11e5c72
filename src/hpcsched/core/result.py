"""Status and Result: what every method of every problem returns.

The gap is computed here and nowhere else (`gap_of`), so that a table that
lines up heuristics, special cases and exact formulations compares like with
like.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """Outcome of a method on an instance.

    OPTIMAL is claimed only when a backend proved it or the algorithm is
    proven exact on that instance; FEASIBLE means a valid solution without
    that proof.
    """

    OPTIMAL = "OPTIMAL"
    FEASIBLE = "FEASIBLE"
    INFEASIBLE = "INFEASIBLE"
    TIME_LIMIT_NO_SOLUTION = "TIME_LIMIT_NO_SOLUTION"
    NOT_APPLICABLE = "NOT_APPLICABLE"
    ERROR = "ERROR"

    def __str__(self) -> str:
        return self.value

    @property
    def has_solution(self) -> bool:
        return self in (Status.OPTIMAL, Status.FEASIBLE)


def gap_of(objective: float | None, bound: float | None) -> float | None:
    """Relative optimality gap of a minimization: ``(objective - bound) / objective``.

    None when either side is unknown. An objective of 0 with a bound of 0 has
    gap 0 (nothing left to prove).
    """
    if objective is None or bound is None:
        return None
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    if objective == 0:
        return 0.0 if bound >= 0 else None
    return max(0.0, (objective - bound) / abs(objective))


@dataclass(frozen=True)
class Result:
    """What a method returns.

    Attributes
    ----------
    problem, method
        Names as registered (set by the registry, not by the method).
    status
        See `Status`.
    objective
        Objective of ``solution`` as the problem's ``evaluate`` computes it
        (the registry overwrites whatever the method put here).
    bound
        A proven lower bound on the optimum, or None when unknown (never 0 by
        default).
    runtime_s
        Wall-clock seconds spent in the method.
    solution
        The problem's Solution, or None.
    notes
        Free-form remarks (scaling, restrictions, violations found).
    solver
        Backend name and version (e.g. ``"ortools-cpsat 9.15.6755"``), or None
        for pure-Python algorithms.
    kpis
        The full ``evaluate`` dictionary, filled by the registry.
    """

    # Methods leave problem and method to the registry, which sets them; the
    # defaults let a method write ``Result(status=..., objective=...)``.
    problem: str = ""
    method: str = ""
    status: Status = Status.ERROR
    objective: float | None = None
    bound: float | None = None
    runtime_s: float = 0.0
    solution: Any = None
    notes: tuple[str, ...] = ()
    solver: str | None = None
    kpis: dict[str, float] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """Relative gap, see `gap_of`."""
        return gap_of(self.objective, self.bound)

    def replace(self, **changes: Any) -> Result:
        """A copy with some fields changed (Results are immutable)."""
        return dataclasses.replace(self, **changes)

    def with_note(self, note: str) -> Result:
        return self.replace(notes=(*self.notes, note))

    def summary(self) -> dict[str, Any]:
        """Flat, JSON-friendly record (no solution) for tables and CSV files."""
        return {
            "problem": self.problem,
            "method": self.method,
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "runtime_s": self.runtime_s,
            "solver": self.solver,
            "notes": "; ".join(self.notes),
        }
