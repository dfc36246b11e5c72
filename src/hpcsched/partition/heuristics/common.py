"""What every partition heuristic shares: the NOT_APPLICABLE answer and finishing an assignment."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ..model import Instance
from ..simulate import (
    Unit,
    enforce_units,
    fits_memory,
    repair_memory,
    schedule_assignment,
    units,
)


def no_schedule(reason: str) -> Result:
    return Result(
        status=Status.NOT_APPLICABLE, notes=(f"no schedule found: {reason} (this proves nothing about the instance)",)
    )


def finish(
    instance: Instance,
    gpu_of: list[int],
    deadline: Deadline,
    *notes: str,
    unit_list: Sequence[Unit] | None = None,
    priority: Sequence[float] | None = None,
) -> Result:
    """Repair memory overflows if any, then list-schedule the assignment (``unit_list``, ``priority``: precomputed)."""
    unit_list = unit_list if unit_list is not None else units(instance)
    gpu_of = enforce_units(instance, gpu_of, unit_list)
    deadline.check("keeping colocation groups together")
    if not fits_memory(instance, gpu_of):
        repaired = repair_memory(instance, gpu_of, unit_list, deadline)
        if repaired is None:
            return no_schedule("the greedy overflow repair found no move that relieves an over-full GPU")
        gpu_of, moves = repaired
        notes = (*notes, f"overflow repair moved {moves} colocation units")
    deadline.check("repairing memory")
    solution = schedule_assignment(instance, gpu_of, priority, deadline)
    return Result(status=Status.FEASIBLE, solution=solution, notes=tuple(notes))
