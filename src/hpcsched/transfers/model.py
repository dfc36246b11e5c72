"""Data model of the transfers problem: Instance, Solution, evaluate, validate.

Independent tasks run on one accelerator. Task ``i`` first copies its input
(``transfer`` time c_i) over the single host-to-device link, then computes
(``compute`` time p_i) on the single device, and holds ``memory`` m_i bytes of
device memory from the start of its transfer to the end of its computation
(half-open interval ``[s_i, t_i + p_i)``). Device memory is ``capacity`` M.
The objective is the makespan ``max_i t_i + p_i``.

The modelling choices where the specification leaves room (integer times,
unique names, ``m_i > M`` as legal data that every method answers
INFEASIBLE, zero-length operations overlapping nothing) are listed in
docs/transfers.md. The validator is written from the definition and shares
no code with the simulator (`hpcsched.transfers.simulate`) or the
formulations.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.fields import (
    LARGEST_INTEGER,
    int_list,
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from ..core.violation import Violation

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


def _as_int(value: Any, field: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return require_int(value, field)


@dataclass(frozen=True)
class Solution:
    """A schedule: transfer and compute start of every task (task order of the instance).

    Attributes
    ----------
    transfer_start
        s_i, start of the copy of task i on the link.
    compute_start
        t_i, start of the computation of task i on the device.
    """

    transfer_start: tuple[int, ...]
    compute_start: tuple[int, ...]

    def __post_init__(self) -> None:
        # Integral floats (a MILP's values) and numpy integers become ints; 1.5 is an error, never truncated.
        for field_name in ("transfer_start", "compute_start"):
            values = getattr(self, field_name)
            if type(values) is tuple and all(type(x) is int for x in values):
                continue  # already plain ints (the simulator's): the ABC checks below cost 1 us each
            checked = tuple(_as_int(x, f"{field_name}[{i}]") for i, x in enumerate(values))
            object.__setattr__(self, field_name, checked)

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """The solution described by the ``solution`` section of a file."""
        data = require_dict(data, "solution")
        require_known_keys(data, ("transfer_start", "compute_start"), "", "a transfers solution")
        keys = ("transfer_start", "compute_start")
        return cls(*(int_list(require_key(data, k, ""), k, minimum=0, length=instance.n) for k in keys))

    def to_data(self) -> dict[str, Any]:
        return {"transfer_start": list(self.transfer_start), "compute_start": list(self.compute_start)}


def _memory_levels(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """``(time, held bytes from that time on)`` at every time the level changes.

    All events at one instant are applied together, which is the definition's
    "a release at x happens before an allocation at x": a task released at x
    and one allocated at x are never counted together.
    """
    deltas: dict[int, int] = {}
    for task, start, compute_start in zip(instance.tasks, solution.transfer_start, solution.compute_start, strict=True):
        end = compute_start + task.compute
        if end <= start:  # empty holding interval: holds nothing
            continue
        deltas[start] = deltas.get(start, 0) + task.memory
        deltas[end] = deltas.get(end, 0) - task.memory
    levels, held = [], 0
    for time in sorted(deltas):
        held += deltas[time]
        levels.append((time, held))
    return levels


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective) and KPIs of a schedule.

    KPIs: ``makespan``; ``peak_memory`` (bytes) and ``peak_memory_fraction``
    (of M); ``link_busy`` = Σc, ``link_idle`` = makespan − Σc; ``device_busy``
    = Σp, ``device_idle`` = makespan − Σp (idle time of the device before the
    last completion, the quantity the orders try to shrink); ``total_wait``
    = Σ (t_i − s_i − c_i), the time data sits on the device before use;
    ``memory_utilisation`` = ∫held / (M · makespan).
    """
    ends = [t + task.compute for t, task in zip(solution.compute_start, instance.tasks, strict=True)]
    makespan = max(ends + [s + task.transfer for s, task in zip(solution.transfer_start, instance.tasks, strict=True)])
    levels = _memory_levels(instance, solution)
    peak = max((level for _, level in levels), default=0)
    area = sum(level * (levels[k + 1][0] - time) for k, (time, level) in enumerate(levels[:-1]))
    link_busy, device_busy = sum(instance.transfer), sum(instance.compute)
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.capacity,
        "link_busy": float(link_busy),
        "link_idle": float(makespan - link_busy),
        "device_busy": float(device_busy),
        "device_idle": float(makespan - device_busy),
        "total_wait": float(sum(solution.compute_start) - sum(solution.transfer_start) - link_busy),
        "memory_utilisation": area / (instance.capacity * makespan) if makespan > 0 else 0.0,
    }


def _overlaps(intervals: list[tuple[int, int, int]], machine: str) -> list[Violation]:
    """Violations for pairs of non-empty ``(start, end, task)`` intervals that intersect."""
    found = []
    latest: tuple[int, int] | None = None  # (end, task) of the non-empty interval ending last so far
    for start, end, task in sorted(intervals):
        if end <= start:
            continue
        if latest is not None and start < latest[0]:
            found.append(
                Violation(
                    f"{machine}-overlap",
                    f"task {task} occupies the {machine} on [{start}, {end}) while task {latest[1]} "
                    f"holds it until {latest[0]}",
                )
            )
        if latest is None or end > latest[0]:
            latest = (end, task)
    return found


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Rules: ``size`` (one start per task), ``negative-start``, ``link-overlap``
    and ``device-overlap`` (one operation at a time on each machine),
    ``precedence`` (t_i ≥ s_i + c_i), ``memory`` (held bytes ≤ M at every
    instant, releases before allocations at equal times).
    """
    n = instance.n
    if len(solution.transfer_start) != n or len(solution.compute_start) != n:
        return [
            Violation(
                "size",
                f"expected {n} transfer and compute starts, got {len(solution.transfer_start)} and "
                f"{len(solution.compute_start)}",
            )
        ]
    violations: list[Violation] = []
    for i, (s, t) in enumerate(zip(solution.transfer_start, solution.compute_start, strict=True)):
        if s < 0 or t < 0:
            violations.append(Violation("negative-start", f"task {i} starts before time 0 (s={s}, t={t})"))
    tasks = instance.tasks
    violations += _overlaps([(s, s + tasks[i].transfer, i) for i, s in enumerate(solution.transfer_start)], "link")
    violations += _overlaps([(t, t + tasks[i].compute, i) for i, t in enumerate(solution.compute_start)], "device")
    for i, (s, t) in enumerate(zip(solution.transfer_start, solution.compute_start, strict=True)):
        if t < s + tasks[i].transfer:
            violations.append(
                Violation(
                    "precedence",
                    f"task {i} '{tasks[i].name}' computes at {t} before its transfer ends at {s + tasks[i].transfer}",
                )
            )
    for time, held in _memory_levels(instance, solution):
        if held > instance.capacity:
            violations.append(
                Violation(
                    "memory",
                    f"{held} bytes held from time {time} on, capacity is {instance.capacity} "
                    f"(over by {held - instance.capacity})",
                )
            )
    return violations


def makespan_of(instance: Instance, solution: Solution) -> int:
    """The integer makespan, `evaluate`'s objective (without its other KPIs: methods call this often)."""
    ends = map(int.__add__, solution.compute_start, instance.compute)
    return max(max(ends), max(map(int.__add__, solution.transfer_start, instance.transfer)))
