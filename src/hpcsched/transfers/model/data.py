"""The instance: tasks, capacity, the JSON Schema of the data section, and the checks of every field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...core.errors import InfeasibleError, InvalidInstanceError
from ...core.fields import (
    LARGEST_INTEGER,
    require_dict,
    require_int,
    require_key,
    require_list,
    require_str,
)

#: JSON Schema of the ``data`` section of a transfers instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "transfers instance data",
    "type": "object",
    "required": ["capacity", "tasks"],
    "additionalProperties": False,
    "properties": {
        "capacity": {"type": "integer", "minimum": 1, "description": "device memory M in bytes"},
        "tasks": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "transfer", "compute", "memory"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "description": "unique task name"},
                    "transfer": {"type": "integer", "minimum": 0, "description": "c_i in time_unit"},
                    "compute": {"type": "integer", "minimum": 0, "description": "p_i in time_unit"},
                    "memory": {"type": "integer", "minimum": 1, "description": "m_i in bytes"},
                },
            },
        },
    },
}


@dataclass(frozen=True)
class Task:
    """One task: copy ``transfer`` time units, then compute ``compute`` time
    units, holding ``memory`` bytes from transfer start to compute end."""

    name: str
    transfer: int
    compute: int
    memory: int


def _checked_task(raw: Any, path: str) -> Task:
    record = require_dict(raw, path)
    unknown = set(record) - {"name", "transfer", "compute", "memory"}
    if unknown:
        raise InvalidInstanceError(f"{path}.{sorted(unknown)[0]}", "is not a field of a task")
    name = require_str(require_key(record, "name", path), f"{path}.name")
    if not name:
        raise InvalidInstanceError(f"{path}.name", "must not be empty")
    transfer = require_int(require_key(record, "transfer", path), f"{path}.transfer", minimum=0)
    compute = require_int(require_key(record, "compute", path), f"{path}.compute", minimum=0)
    memory = require_int(require_key(record, "memory", path), f"{path}.memory", minimum=1)
    return Task(name, transfer, compute, memory)


def _check_total_time(tasks: tuple[Task, ...]) -> None:
    """Refuse instances whose total time Σ (c_i + p_i) exceeds 2^53 (`LARGEST_INTEGER`).

    Every method's schedule ends by Σ (c_i + p_i), so every start time stays a
    legal, exact integer of a solution file (see docs/transfers.md).
    """
    total = 0
    for index, task in enumerate(tasks):
        total += task.transfer + task.compute
        if total > LARGEST_INTEGER:
            raise InvalidInstanceError(
                f"data.tasks[{index}]",
                f"the total time of tasks 0..{index}, sum of transfer + compute = {total}, exceeds "
                f"2^53 = {LARGEST_INTEGER}: schedules must end by 2^53 so that every start time stays exact",
            )


@dataclass(frozen=True)
class Instance:
    """An instance of the transfers problem.

    Build it with `Instance.create` or `Instance.from_data`; both check every
    field (the dataclass constructor runs the same checks in ``__post_init__``).

    Attributes
    ----------
    name
        Instance name.
    tasks
        The tasks, in submission order (the order FIFO uses).
    capacity
        Device memory M in bytes.
    time_unit
        Unit of the integer times ("ns", "us", "ms", "s") or None.
    source
        Provenance (generator, parameters and seed; or trace file, sha256 and
        importer options).
    """

    name: str
    tasks: tuple[Task, ...]
    capacity: int
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tasks = require_list(list(self.tasks), "data.tasks", min_length=1)
        checked = tuple(
            _checked_task(task.__dict__ if isinstance(task, Task) else task, f"data.tasks[{i}]")
            for i, task in enumerate(tasks)
        )
        seen: dict[str, int] = {}
        for index, task in enumerate(checked):
            if task.name in seen:
                raise InvalidInstanceError(
                    f"data.tasks[{index}].name", f"duplicate name '{task.name}' (also task {seen[task.name]})"
                )
            seen[task.name] = index
        _check_total_time(checked)
        object.__setattr__(self, "tasks", checked)
        object.__setattr__(self, "capacity", require_int(self.capacity, "data.capacity", minimum=1))
        object.__setattr__(self, "source", dict(self.source))

    @classmethod
    def create(
        cls,
        transfer: list[int] | tuple[int, ...],
        compute: list[int] | tuple[int, ...],
        memory: list[int] | tuple[int, ...],
        capacity: int,
        *,
        names: list[str] | None = None,
        name: str = "transfers",
        time_unit: str | None = None,
        source: Mapping[str, Any] | None = None,
    ) -> Instance:
        """An instance from parallel lists (names default to ``t0, t1, ...``)."""
        n = len(transfer)
        if len(compute) != n:
            raise InvalidInstanceError("data.tasks", f"compute has {len(compute)} entries, transfer has {n}")
        if len(memory) != n:
            raise InvalidInstanceError("data.tasks", f"memory has {len(memory)} entries, transfer has {n}")
        names = list(names) if names is not None else [f"t{i}" for i in range(n)]
        if len(names) != n:
            raise InvalidInstanceError("data.tasks", f"names has {len(names)} entries, transfer has {n}")
        tasks = tuple(Task(names[i], transfer[i], compute[i], memory[i]) for i in range(n))
        return cls(name=name, tasks=tasks, capacity=capacity, time_unit=time_unit, source=dict(source or {}))

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        """The instance described by the ``data`` section of a file."""
        data = require_dict(data, "data")
        unknown = set(data) - {"capacity", "tasks"}
        if unknown:
            raise InvalidInstanceError(f"data.{sorted(unknown)[0]}", "is not a field of transfers data")
        capacity = require_key(data, "capacity", "data")
        tasks = require_list(require_key(data, "tasks", "data"), "data.tasks", min_length=1)
        return cls(name=name, tasks=tuple(tasks), capacity=capacity, time_unit=time_unit, source=dict(source or {}))

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        return {
            "capacity": self.capacity,
            "tasks": [
                {"name": t.name, "transfer": t.transfer, "compute": t.compute, "memory": t.memory} for t in self.tasks
            ],
        }

    @property
    def n(self) -> int:
        """Number of tasks."""
        return len(self.tasks)

    # Made once per instance (cached_property writes __dict__, which a frozen dataclass allows): a loop
    # indexing ``instance.transfer[i]`` would otherwise rebuild an n-tuple per access, O(n^2) in all.
    @cached_property
    def transfer(self) -> tuple[int, ...]:
        return tuple(t.transfer for t in self.tasks)

    @cached_property
    def compute(self) -> tuple[int, ...]:
        return tuple(t.compute for t in self.tasks)

    @cached_property
    def memory(self) -> tuple[int, ...]:
        return tuple(t.memory for t in self.tasks)

    @cached_property
    def max_memory(self) -> int:
        """max_i m_i (the unit in which generators express the capacity)."""
        return max(t.memory for t in self.tasks)


def require_fits(instance: Instance) -> None:
    """Raise `InfeasibleError` naming the first task whose footprint exceeds M.

    Every method calls this first, so that an instance with ``m_i > M``
    (legal data, no feasible schedule) ends as INFEASIBLE everywhere.
    """
    for index, task in enumerate(instance.tasks):
        if task.memory > instance.capacity:
            raise InfeasibleError(
                f"task {index} '{task.name}' needs {task.memory} bytes but the device has "
                f"capacity {instance.capacity} bytes"
            )
