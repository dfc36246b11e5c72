"""Data model of the hetero problem: a task graph on CPUs and GPUs.

A DAG of n tasks; task j takes ``cpu`` time p̄_j on any of the m identical
CPUs and ``gpu`` time p_j on any of the k identical GPUs (``None``: it cannot
run on that type). Edge (u, v) means v starts after u ends, plus c_uv when
they run on different types. Non-preemptive, one task per machine at a time;
the objective is the makespan. See ``docs/hetero.md`` and
``../shared/spec/hetero.md``.

Modelling choices where the specification leaves room
-----------------------------------------------------
* Times and communication costs are non-negative integers in ``time_unit``;
  solution starts are non-negative integers (with integer data an optimal
  integer schedule exists: the list schedules and the exact models are
  integral).
* A task with no time on any type is refused when reading (the spec: at
  least one of the two). A task whose only time is on a type with no machine
  (e.g. GPU-only with k = 0) is legal data: every method answers INFEASIBLE
  naming it (`require_runnable`).
* Edges must name existing tasks, must not repeat, and the graph must be
  acyclic (a cycle is an instance error naming a task on it).
* The validator is written from the definition: the type checks here plus
  `hpcsched.taskgraph.validate_machine_schedule` (the shared,
  engine-independent schedule-on-machines validator, with the delay charged
  between *classes*).
"""

from .data import DATA_SCHEMA, TYPES, Instance, Task, require_runnable
from .solution import Solution
from .validate import evaluate, schedule_of, validate

__all__ = [
    "DATA_SCHEMA",
    "TYPES",
    "Instance",
    "Solution",
    "Task",
    "evaluate",
    "require_runnable",
    "schedule_of",
    "validate",
]
