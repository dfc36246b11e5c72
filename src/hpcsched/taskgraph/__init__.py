"""taskgraph: schedules of task graphs on machines, shared by ``hetero`` and ``partition``.

Imports no problem package. See ``docs/taskgraph.md``.

* `validate_machine_schedule` (in `schedule`): the validator of a schedule
  on machines, written from the definition;
* `list_schedule` and `ListScheduler` (in `engine`): list scheduling at the
  earliest finish time, with or without insertion, with a ``fits`` hook.
"""

from .engine import (
    CycleError,
    ListScheduler,
    NoPlacementError,
    list_schedule,
    predecessors,
    successors,
    topological_order,
    upward_ranks,
)
from .schedule import DelayRule, Edge, Placement, charged_delay, makespan, validate_machine_schedule

__all__ = [
    "CycleError",
    "DelayRule",
    "Edge",
    "ListScheduler",
    "NoPlacementError",
    "Placement",
    "charged_delay",
    "list_schedule",
    "makespan",
    "predecessors",
    "successors",
    "topological_order",
    "upward_ranks",
    "validate_machine_schedule",
]
