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

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from ..core.violation import Violation
from ..taskgraph import CycleError, Edge, Placement, topological_order, validate_machine_schedule

TYPES = ("cpu", "gpu")

#: JSON Schema of the ``data`` section of a hetero instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "hetero instance data",
    "type": "object",
    "required": ["cpus", "gpus", "tasks"],
    "additionalProperties": False,
    "properties": {
        "cpus": {"type": "integer", "minimum": 0, "description": "m, identical CPU cores"},
        "gpus": {"type": "integer", "minimum": 0, "description": "k, identical GPUs"},
        "tasks": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "cpu", "gpu"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "cpu": {"type": ["integer", "null"], "minimum": 0, "description": "time on a CPU, null = cannot"},
                    "gpu": {"type": ["integer", "null"], "minimum": 0, "description": "time on a GPU, null = cannot"},
                },
            },
        },
        "edges": {
            "type": "array",
            "items": {
                "type": "array",
                "minItems": 2,
                "maxItems": 3,
                "prefixItems": [{"type": "string"}, {"type": "string"}, {"type": "integer", "minimum": 0}],
                "description": "[from, to] or [from, to, comm]: comm charged when the types differ",
            },
        },
    },
}


@dataclass(frozen=True)
class Task:
    """One task: its time on a CPU and on a GPU (None: cannot run there)."""

    name: str
    cpu: int | None
    gpu: int | None

    def time(self, kind: str) -> int | None:
        """Time on ``kind`` (``"cpu"`` or ``"gpu"``)."""
        return self.cpu if kind == "cpu" else self.gpu


def _checked_task(raw: Any, path: str) -> Task:
    if isinstance(raw, Task):
        raw = {"name": raw.name, "cpu": raw.cpu, "gpu": raw.gpu}
    record = require_dict(raw, path)
    require_known_keys(record, ("name", "cpu", "gpu"), path, "a task")
    name = require_str(require_key(record, "name", path), f"{path}.name")
    if not name:
        raise InvalidInstanceError(f"{path}.name", "must not be empty")
    times = {}
    for kind in TYPES:
        value = require_key(record, kind, path)
        times[kind] = None if value is None else require_int(value, f"{path}.{kind}", minimum=0)
    if times["cpu"] is None and times["gpu"] is None:
        raise InvalidInstanceError(path, f"task '{name}' has no time on either type (cpu and gpu are both null)")
    return Task(name, times["cpu"], times["gpu"])


@dataclass(frozen=True)
class Instance:
    """An instance of the hetero problem.

    Attributes
    ----------
    name
        Instance name.
    tasks
        The tasks.
    edges
        `Edge` (u, v, comm) by task index; comm is charged when u and v run on different types.
    cpus, gpus
        m and k.
    time_unit
        Unit of the integer times, or None.
    source
        Provenance (generator and seed, or trace file, sha256 and importer options, notes).
    """

    name: str
    tasks: tuple[Task, ...]
    edges: tuple[Edge, ...]
    cpus: int
    gpus: int
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tasks = require_list(list(self.tasks), "data.tasks", min_length=1)
        checked = tuple(_checked_task(task, f"data.tasks[{i}]") for i, task in enumerate(tasks))
        index: dict[str, int] = {}
        for i, task in enumerate(checked):
            if task.name in index:
                raise InvalidInstanceError(
                    f"data.tasks[{i}].name", f"duplicate name '{task.name}' (also task {index[task.name]})"
                )
            index[task.name] = i
        cpus = require_int(self.cpus, "data.cpus", minimum=0)
        gpus = require_int(self.gpus, "data.gpus", minimum=0)
        if cpus + gpus < 1:
            raise InvalidInstanceError("data.cpus", "there must be at least one machine (cpus + gpus >= 1)")
        edges = []
        seen: set[tuple[int, int]] = set()
        for e, edge in enumerate(self.edges):
            path = f"data.edges[{e}]"
            if not isinstance(edge, Edge):
                raise InvalidInstanceError(path, "must be an Edge (use Instance.from_data for raw edges)")
            u = require_int(edge.u, f"{path}[0]", minimum=0, maximum=len(checked) - 1)
            v = require_int(edge.v, f"{path}[1]", minimum=0, maximum=len(checked) - 1)
            comm = require_int(edge.delay, f"{path}[2]", minimum=0)
            if u == v:
                raise InvalidInstanceError(path, f"task '{checked[u].name}' cannot precede itself")
            if (u, v) in seen:
                raise InvalidInstanceError(path, f"duplicate edge {checked[u].name} -> {checked[v].name}")
            seen.add((u, v))
            edges.append(Edge(u, v, comm))
        try:
            topological_order(len(checked), edges)
        except CycleError as error:
            raise InvalidInstanceError("data.edges", str(error)) from None
        object.__setattr__(self, "tasks", checked)
        object.__setattr__(self, "edges", tuple(edges))
        object.__setattr__(self, "cpus", cpus)
        object.__setattr__(self, "gpus", gpus)
        object.__setattr__(self, "source", dict(self.source))

    # -- construction -------------------------------------------------------
    @classmethod
    def create(
        cls,
        cpu: Sequence[int | None],
        gpu: Sequence[int | None],
        edges: Sequence[tuple[int, int] | tuple[int, int, int]] = (),
        *,
        cpus: int,
        gpus: int,
        names: Sequence[str] | None = None,
        name: str = "hetero",
        time_unit: str | None = None,
        source: Mapping[str, Any] | None = None,
    ) -> Instance:
        """An instance from parallel lists and index edges (names default to ``t0, t1, ...``)."""
        if len(gpu) != len(cpu):
            raise InvalidInstanceError("data.tasks", f"gpu has {len(gpu)} entries, cpu has {len(cpu)}")
        names = list(names) if names is not None else [f"t{i}" for i in range(len(cpu))]
        tasks = tuple({"name": names[i], "cpu": cpu[i], "gpu": gpu[i]} for i in range(len(cpu)))
        edge_list = tuple(Edge(e[0], e[1], e[2] if len(e) > 2 else 0) for e in edges)
        return cls(name, tasks, edge_list, cpus, gpus, time_unit, dict(source or {}))

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        """The instance described by the ``data`` section of a file."""
        data = require_dict(data, "data")
        require_known_keys(data, ("cpus", "gpus", "tasks", "edges"), "data", "hetero data")
        tasks = tuple(
            _checked_task(t, f"data.tasks[{i}]")
            for i, t in enumerate(require_list(require_key(data, "tasks", "data"), "data.tasks", min_length=1))
        )
        index = {}
        for i, task in enumerate(tasks):
            if task.name in index:
                raise InvalidInstanceError(
                    f"data.tasks[{i}].name", f"duplicate name '{task.name}' (also task {index[task.name]})"
                )
            index[task.name] = i
        edges = []
        for e, raw in enumerate(require_list(data.get("edges", []), "data.edges")):
            path = f"data.edges[{e}]"
            if not isinstance(raw, (list, tuple)) or len(raw) not in (2, 3):
                raise InvalidInstanceError(path, "must be [from, to] or [from, to, comm]")
            ends = []
            for side, label in ((0, "from"), (1, "to")):
                task_name = require_str(raw[side], f"{path}[{side}]")
                if task_name not in index:
                    raise InvalidInstanceError(f"{path}[{side}]", f"{label} task '{task_name}' does not exist")
                ends.append(index[task_name])
            comm = require_int(raw[2], f"{path}[2]", minimum=0) if len(raw) == 3 else 0
            edges.append(Edge(ends[0], ends[1], comm))
        return cls(
            name,
            tasks,
            tuple(edges),
            require_key(data, "cpus", "data"),
            require_key(data, "gpus", "data"),
            time_unit,
            dict(source or {}),
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        names = [t.name for t in self.tasks]
        return {
            "cpus": self.cpus,
            "gpus": self.gpus,
            "tasks": [{"name": t.name, "cpu": t.cpu, "gpu": t.gpu} for t in self.tasks],
            "edges": [[names[e.u], names[e.v], e.delay] if e.delay else [names[e.u], names[e.v]] for e in self.edges],
        }

    # -- convenience --------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.tasks)

    @property
    def machines(self) -> dict[str, int]:
        """Machine class -> count, as the taskgraph engine takes it.

        GPUs come first: the engine breaks ties of finish and start time by
        this order, so a task that finishes as early on both types (a
        zero-time task, typically) stays on the GPU side, where its
        successors usually run, instead of paying their communication.
        """
        return {"gpu": self.gpus, "cpu": self.cpus}

    def time(self, task: int, kind: str) -> int | None:
        """Time of ``task`` on ``kind``, None when it cannot run there *or* there is no machine of that type."""
        if (self.cpus if kind == "cpu" else self.gpus) == 0:
            return None
        return self.tasks[task].time(kind)

    @property
    def independent(self) -> bool:
        return not self.edges

    @property
    def has_communication(self) -> bool:
        return any(e.delay for e in self.edges)

    def with_platform(self, cpus: int, gpus: int) -> Instance:
        """The same graph on another platform."""
        return Instance(self.name, self.tasks, self.edges, cpus, gpus, self.time_unit, self.source)


def require_runnable(instance: Instance) -> None:
    """Raise `InfeasibleError` naming the first task that can run on no available machine."""
    for j, task in enumerate(instance.tasks):
        if instance.time(j, "cpu") is None and instance.time(j, "gpu") is None:
            where = "CPUs" if task.cpu is not None else "GPUs"
            raise InfeasibleError(
                f"task {j} '{task.name}' runs only on {where} and the platform has none "
                f"({instance.cpus} CPUs, {instance.gpus} GPUs)"
            )


def _as_int(value: Any, field_name: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return require_int(value, field_name)


@dataclass(frozen=True)
class Solution:
    """A schedule: type, machine (index within the type) and start of every task."""

    type: tuple[str, ...]
    machine: tuple[int, ...]
    start: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", tuple(self.type))
        object.__setattr__(self, "machine", tuple(_as_int(x, f"machine[{i}]") for i, x in enumerate(self.machine)))
        object.__setattr__(self, "start", tuple(_as_int(x, f"start[{i}]") for i, x in enumerate(self.start)))

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        require_known_keys(data, ("type", "machine", "start"), "", "a hetero solution")
        n = instance.n
        types = require_list(require_key(data, "type", ""), "type", length=n)
        kinds = tuple(require_str(t, f"type[{i}]", choices=TYPES) for i, t in enumerate(types))
        machine = tuple(
            require_int(x, f"machine[{i}]", minimum=0)
            for i, x in enumerate(require_list(require_key(data, "machine", ""), "machine", length=n))
        )
        start = tuple(
            require_int(x, f"start[{i}]", minimum=0)
            for i, x in enumerate(require_list(require_key(data, "start", ""), "start", length=n))
        )
        return cls(kinds, machine, start)

    def to_data(self) -> dict[str, Any]:
        return {"type": list(self.type), "machine": list(self.machine), "start": list(self.start)}

    @classmethod
    def from_placements(cls, placements: Sequence[Placement]) -> Solution:
        """The solution of an engine schedule (classes ``"cpu"``/``"gpu"``)."""
        return cls(
            tuple(str(p.machine_class) for p in placements),
            tuple(int(p.machine) for p in placements),
            tuple(round(p.start) if float(p.start).is_integer() else p.start for p in placements),
        )


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Rules: ``size`` (one type, machine and start per task); ``type`` (not
    ``"cpu"``/``"gpu"``); ``forbidden-type`` (the task's time on the chosen
    type is null); then the shared schedule rules of
    `hpcsched.taskgraph.validate_machine_schedule`: ``machine-index``
    (outside ``0..m-1`` / ``0..k-1``; any index is out of range on a type
    with no machine), ``start`` (negative), ``overlap``, ``precedence``
    (S_v >= C_u, + c_uv when the types differ).
    """
    n = instance.n
    if not (len(solution.type) == len(solution.machine) == len(solution.start) == n):
        return [
            Violation(
                "size",
                f"expected {n} types, machines and starts, got {len(solution.type)}, "
                f"{len(solution.machine)} and {len(solution.start)}",
            )
        ]
    violations = []
    placements = []
    for j, (kind, machine, start) in enumerate(zip(solution.type, solution.machine, solution.start, strict=False)):
        task = instance.tasks[j]
        if kind not in TYPES:
            violations.append(Violation("type", f"task {j} '{task.name}' has type {kind!r} (must be cpu or gpu)"))
            placements.append(Placement("invalid", machine, start, 0))
            continue
        duration = task.time(kind)
        if duration is None:
            violations.append(Violation("forbidden-type", f"task {j} '{task.name}' cannot run on a {kind.upper()}"))
            duration = 0
        placements.append(Placement(kind, machine, start, duration))
    schedule_violations = validate_machine_schedule(
        placements,
        {"cpu": instance.cpus, "gpu": instance.gpus, "invalid": 0},
        instance.edges,
        rule="class",
        names=[t.name for t in instance.tasks],
    )
    # A task of an invalid type was reported above; its "machine-index" on the dummy class is noise.
    return violations + [
        v for v in schedule_violations if not (v.rule == "machine-index" and "runs on invalid" in v.message)
    ]


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective) and KPIs.

    KPIs: ``makespan``; ``cpu_utilization`` and ``gpu_utilization`` (busy
    time / (machines x makespan), 0 without such machines); ``gpu_work_share``
    (GPU busy time / total busy time); ``tasks_on_gpu``; ``cross_type_edges``
    (edges whose endpoints run on different types) and ``communication``
    (their total c_uv).
    """
    busy = {"cpu": 0, "gpu": 0}
    ends = []
    for j, (kind, start) in enumerate(zip(solution.type, solution.start, strict=False)):
        duration = instance.tasks[j].time(kind) or 0
        busy[kind] += duration
        ends.append(start + duration)
    makespan = max(ends, default=0)
    cross = [e for e in instance.edges if solution.type[e.u] != solution.type[e.v]]
    total = busy["cpu"] + busy["gpu"]
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "cpu_utilization": busy["cpu"] / (instance.cpus * makespan) if instance.cpus and makespan else 0.0,
        "gpu_utilization": busy["gpu"] / (instance.gpus * makespan) if instance.gpus and makespan else 0.0,
        "gpu_work_share": busy["gpu"] / total if total else 0.0,
        "tasks_on_gpu": float(sum(1 for kind in solution.type if kind == "gpu")),
        "cross_type_edges": float(len(cross)),
        "communication": float(sum(e.delay for e in cross)),
    }


def schedule_of(instance: Instance, solution: Solution) -> list[Placement]:
    """The placements of a (valid) solution, for plots and heuristics."""
    return [
        Placement(kind, machine, start, instance.tasks[j].time(kind) or 0)
        for j, (kind, machine, start) in enumerate(zip(solution.type, solution.machine, solution.start, strict=False))
    ]
