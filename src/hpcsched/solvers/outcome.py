"""Outcome: what every backend adapter returns, whatever the backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.result import Status


@dataclass(frozen=True)
class Outcome:
    """Result of one backend solve, before it is turned into a problem's Solution.

    Attributes
    ----------
    status
        OPTIMAL (proven by the backend), FEASIBLE (a solution, no proof),
        INFEASIBLE (proven), TIME_LIMIT_NO_SOLUTION or ERROR.
    objective
        Objective of the incumbent in the model's own units, or None.
    bound
        Best proven bound of the model (for minimization, a lower bound), or
        None when the backend does not expose it.
    runtime_s
        Wall-clock seconds of the solve call.
    backend
        Backend name and version, e.g. ``"ortools-cpsat 9.15.6755"``.
    value
        ``value(var) -> float`` reads a variable of the incumbent; None when
        there is no incumbent.
    message
        The backend's own status word, for notes.
    """

    status: Status
    objective: float | None
    bound: float | None
    runtime_s: float
    backend: str
    value: Callable[[Any], float] | None = None
    message: str = ""

    @property
    def has_solution(self) -> bool:
        return self.value is not None and self.status.has_solution
