"""What the heuristics share: the result of an engine schedule, duration functions restricted to allowed types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import Placement
from ..model import Instance, Solution


def feasible_result(placements: Sequence[Placement], *notes: str) -> Result:
    """A FEASIBLE result (no bound) holding the solution of an engine schedule."""
    return Result(status=Status.FEASIBLE, solution=Solution.from_placements(placements), notes=tuple(notes))


def duration_on(
    instance: Instance, allowed: Callable[[int, str], bool] | None = None
) -> Callable[[int, str], int | None]:
    """The engine's duration function: the task's time on a type, None where ``allowed`` refuses the type."""
    if allowed is None:
        return instance.time
    return lambda j, kind: instance.time(j, kind) if allowed(j, kind) else None


def checking(deadline: Deadline, phase: str, every: int = 1024) -> Callable[[int, Placement], None]:
    """An ``on_place`` callback for `list_schedule` that checks ``deadline`` every ``every`` placed tasks
    (10^5 tasks take seconds to place)."""
    placed = count()

    def check(task: int, placement: Placement) -> None:
        if next(placed) % every == 0:
            deadline.check(phase)

    return check
