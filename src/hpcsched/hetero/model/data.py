"""The hetero instance: tasks with a time per type, edges with a communication cost, the platform."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import InfeasibleError, InvalidInstanceError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from ...taskgraph import CycleError, Edge, topological_order

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
        kept = tuple(edges)  # ordered as the tuple the instance keeps: its methods find the order cached
        try:
            topological_order(len(checked), kept)
        except CycleError as error:
            raise InvalidInstanceError("data.edges", str(error)) from None
        object.__setattr__(self, "tasks", checked)
        object.__setattr__(self, "edges", kept)
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
        tasks = tuple(Task(names[i], cpu[i], gpu[i]) for i in range(len(cpu)))
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
        index: dict[str, int] = {}
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

    def run_time(self, task: int, kind: str) -> int:
        """Time of ``task`` on ``kind`` where the caller knows it can run there.

        Raises
        ------
        ValueError
            When it cannot (no time on that type, or no machine of it): a broken caller's assumption is
            reported, not turned into arithmetic on None.
        """
        time = self.time(task, kind)
        if time is None:
            raise ValueError(f"task '{self.tasks[task].name}' cannot run on a {kind.upper()}")
        return time

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
