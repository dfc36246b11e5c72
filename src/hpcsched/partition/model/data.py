"""The partition instance and solution records, their JSON schema and checks (definition: `partition.model`)."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    LARGEST_INTEGER,
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from ...taskgraph import CycleError, Edge, Placement, topological_order

MEMORY_MODELS = ("static", "dynamic")
MACHINE_CLASS = "gpu"
_NODE_KEYS = ("name", "time", "persistent", "output", "group", "pin")
_EDGE_KEYS = ("from", "to", "transfer")

#: JSON Schema of the ``data`` section of a partition instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "partition instance data",
    "type": "object",
    "required": ["gpus", "memory", "memory_model", "nodes"],
    "additionalProperties": False,
    "properties": {
        "gpus": {"type": "integer", "minimum": 1, "description": "K identical GPUs"},
        "memory": {"type": "integer", "minimum": 0, "description": "M, bytes per GPU"},
        "memory_model": {"enum": list(MEMORY_MODELS), "description": "static (sum) or dynamic (sweep over time)"},
        "nodes": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "time"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "description": "unique node name"},
                    "time": {"type": "integer", "minimum": 0, "description": "p_v in time_unit"},
                    "persistent": {"type": "integer", "minimum": 0, "description": "w_v bytes (default 0)"},
                    "output": {"type": "integer", "minimum": 0, "description": "s_v bytes (default 0)"},
                    "group": {"type": ["string", "integer", "null"], "description": "colocation group"},
                    "pin": {"type": ["integer", "null"], "minimum": 0, "description": "forced GPU index"},
                },
            },
        },
        "edges": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["from", "to"],
                "additionalProperties": False,
                "properties": {
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "transfer": {"type": "integer", "minimum": 0, "description": "c_uv, charged when apart"},
                },
            },
        },
    },
}


@dataclass(frozen=True)
class Node:
    """One operation: time p_v, persistent memory w_v, output size s_v, colocation group, pin."""

    name: str
    time: int
    persistent: int = 0
    output: int = 0
    group: str | int | None = None
    pin: int | None = None


def _checked_node(raw: Any, path: str, gpus: int) -> Node:
    if isinstance(raw, Node):
        raw = raw.__dict__
    record = require_dict(raw, path)
    require_known_keys(record, _NODE_KEYS, path, "a node")
    name = require_str(require_key(record, "name", path), f"{path}.name")
    if not name:
        raise InvalidInstanceError(f"{path}.name", "must not be empty")
    time = require_int(require_key(record, "time", path), f"{path}.time", minimum=0)
    persistent = require_int(record.get("persistent", 0), f"{path}.persistent", minimum=0)
    output = require_int(record.get("output", 0), f"{path}.output", minimum=0)
    group = record.get("group")
    if group is not None and not (isinstance(group, str) or (isinstance(group, int) and not isinstance(group, bool))):
        raise InvalidInstanceError(f"{path}.group", f"must be null, a string or an integer, got {group!r}")
    pin = record.get("pin")
    if pin is not None:
        pin = require_int(pin, f"{path}.pin", minimum=0, maximum=gpus - 1)
    return Node(name, time, persistent, output, group, pin)


@dataclass(frozen=True)
class Instance:
    """An instance of the partition problem.

    Attributes
    ----------
    name
        Instance name.
    nodes
        The operations.
    edges
        `Edge` (u, v, transfer) by node index.
    gpus
        K.
    memory
        M, bytes per GPU.
    memory_model
        ``"static"`` or ``"dynamic"`` (module docstring).
    time_unit, source
        Unit of the integer times; provenance (generator, or trace file, sha256, options, notes).
    """

    name: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    gpus: int
    memory: int
    memory_model: str = "static"
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        gpus = require_int(self.gpus, "data.gpus", minimum=1)
        memory = require_int(self.memory, "data.memory", minimum=0)
        model = require_str(self.memory_model, "data.memory_model", choices=MEMORY_MODELS)
        nodes = require_list(list(self.nodes), "data.nodes", min_length=1)
        checked = tuple(_checked_node(node, f"data.nodes[{i}]", gpus) for i, node in enumerate(nodes))
        index: dict[str, int] = {}
        for i, node in enumerate(checked):
            if node.name in index:
                raise InvalidInstanceError(
                    f"data.nodes[{i}].name", f"duplicate name '{node.name}' (also node {index[node.name]})"
                )
            index[node.name] = i
        edges, seen = [], set()
        for e, edge in enumerate(self.edges):
            path = f"data.edges[{e}]"
            if not isinstance(edge, Edge):
                raise InvalidInstanceError(path, "must be an Edge (use Instance.from_data for raw edges)")
            u = require_int(edge.u, f"{path}.from", minimum=0, maximum=len(checked) - 1)
            v = require_int(edge.v, f"{path}.to", minimum=0, maximum=len(checked) - 1)
            transfer = require_int(edge.delay, f"{path}.transfer", minimum=0)
            if u == v:
                raise InvalidInstanceError(path, f"node '{checked[u].name}' cannot precede itself")
            if (u, v) in seen:
                raise InvalidInstanceError(path, f"duplicate edge {checked[u].name} -> {checked[v].name}")
            seen.add((u, v))
            edges.append(Edge(u, v, transfer))
        kept = tuple(edges)  # ordered as the tuple the instance keeps: its methods find the order cached
        try:
            topological_order(len(checked), kept)
        except CycleError as error:
            raise InvalidInstanceError("data.edges", str(error)) from None
        # Every schedule a method writes ends by Σp + Σc (a serial order waiting for every
        # transfer); keep it an exact integer of a solution file.
        total = sum(node.time for node in checked) + sum(edge.delay for edge in edges)
        if total > LARGEST_INTEGER:
            raise InvalidInstanceError(
                "data.nodes", f"Σ time + Σ transfer = {total} exceeds 2^53: starts must stay exact"
            )
        object.__setattr__(self, "gpus", gpus)
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "memory_model", model)
        object.__setattr__(self, "nodes", checked)
        object.__setattr__(self, "edges", kept)
        object.__setattr__(self, "source", dict(self.source))

    # -- construction -------------------------------------------------------
    @classmethod
    def create(
        cls,
        time: Sequence[int],
        edges: Sequence[tuple[int, int] | tuple[int, int, int]] = (),
        *,
        gpus: int,
        memory: int,
        persistent: Sequence[int] | None = None,
        output: Sequence[int] | None = None,
        group: Sequence[str | int | None] | None = None,
        pin: Sequence[int | None] | None = None,
        memory_model: str = "static",
        names: Sequence[str] | None = None,
        name: str = "partition",
        time_unit: str | None = None,
        source: Mapping[str, Any] | None = None,
    ) -> Instance:
        """An instance from parallel lists and index edges ``(u, v[, transfer])`` (names ``v0, v1, ...``)."""
        n = len(time)
        columns = {"persistent": persistent, "output": output, "group": group, "pin": pin}
        for label, column in columns.items():
            if column is not None and len(column) != n:
                raise InvalidInstanceError("data.nodes", f"{label} has {len(column)} entries, time has {n}")
        names = list(names) if names is not None else [f"v{i}" for i in range(n)]
        nodes = tuple(
            Node(
                name=names[i],
                time=time[i],
                persistent=persistent[i] if persistent is not None else 0,
                output=output[i] if output is not None else 0,
                group=group[i] if group is not None else None,
                pin=pin[i] if pin is not None else None,
            )
            for i in range(n)
        )
        edge_list = tuple(Edge(e[0], e[1], e[2] if len(e) > 2 else 0) for e in edges)
        return cls(name, nodes, edge_list, gpus, memory, memory_model, time_unit, dict(source or {}))

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        """The instance described by the ``data`` section of a file."""
        data = require_dict(data, "data")
        require_known_keys(data, ("gpus", "memory", "memory_model", "nodes", "edges"), "data", "partition data")
        gpus = require_int(require_key(data, "gpus", "data"), "data.gpus", minimum=1)
        raw_nodes = require_list(require_key(data, "nodes", "data"), "data.nodes", min_length=1)
        nodes = tuple(_checked_node(raw, f"data.nodes[{i}]", gpus) for i, raw in enumerate(raw_nodes))
        index: dict[str, int] = {}
        for i, node in enumerate(nodes):
            if node.name in index:
                raise InvalidInstanceError(
                    f"data.nodes[{i}].name", f"duplicate name '{node.name}' (also node {index[node.name]})"
                )
            index[node.name] = i
        edges = []
        for e, raw in enumerate(require_list(data.get("edges", []), "data.edges")):
            path = f"data.edges[{e}]"
            record = require_dict(raw, path)
            require_known_keys(record, _EDGE_KEYS, path, "an edge")
            ends = []
            for key in ("from", "to"):
                node_name = require_str(require_key(record, key, path), f"{path}.{key}")
                if node_name not in index:
                    raise InvalidInstanceError(f"{path}.{key}", f"node '{node_name}' does not exist")
                ends.append(index[node_name])
            transfer = require_int(record.get("transfer", 0), f"{path}.transfer", minimum=0)
            edges.append(Edge(ends[0], ends[1], transfer))
        return cls(
            name,
            nodes,
            tuple(edges),
            gpus,
            require_key(data, "memory", "data"),
            require_key(data, "memory_model", "data"),
            time_unit,
            dict(source or {}),
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        nodes = []
        for node in self.nodes:
            record: dict[str, Any] = {
                "name": node.name,
                "time": node.time,
                "persistent": node.persistent,
                "output": node.output,
                "group": node.group,
            }
            if node.pin is not None:
                record["pin"] = node.pin
            nodes.append(record)
        names = [node.name for node in self.nodes]
        return {
            "gpus": self.gpus,
            "memory": self.memory,
            "memory_model": self.memory_model,
            "nodes": nodes,
            "edges": [{"from": names[e.u], "to": names[e.v], "transfer": e.delay} for e in self.edges],
        }

    # -- convenience --------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def times(self) -> tuple[int, ...]:
        return tuple(node.time for node in self.nodes)

    @property
    def machines(self) -> Mapping[Hashable, int]:
        """Machine class -> count, as the taskgraph engine takes it."""
        return {MACHINE_CLASS: self.gpus}

    def with_platform(
        self, gpus: int | None = None, memory: int | None = None, memory_model: str | None = None
    ) -> Instance:
        """The same graph with another K, M or memory model (pins beyond the new K are refused)."""
        return Instance(
            self.name,
            self.nodes,
            self.edges,
            gpus or self.gpus,
            self.memory if memory is None else memory,
            memory_model or self.memory_model,
            self.time_unit,
            self.source,
        )


def _as_int(value: Any, field_name: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return require_int(value, field_name)


@dataclass(frozen=True)
class Solution:
    """A schedule: GPU index and start of every node (node order of the instance)."""

    gpu: tuple[int, ...]
    start: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "gpu", tuple(_as_int(x, f"gpu[{i}]") for i, x in enumerate(self.gpu)))
        object.__setattr__(self, "start", tuple(_as_int(x, f"start[{i}]") for i, x in enumerate(self.start)))

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        require_known_keys(data, ("gpu", "start"), "", "a partition solution")
        n = instance.n
        gpu = tuple(
            require_int(x, f"gpu[{i}]", minimum=0)
            for i, x in enumerate(require_list(require_key(data, "gpu", ""), "gpu", length=n))
        )
        start = tuple(
            require_int(x, f"start[{i}]", minimum=0)
            for i, x in enumerate(require_list(require_key(data, "start", ""), "start", length=n))
        )
        return cls(gpu, start)

    def to_data(self) -> dict[str, Any]:
        return {"gpu": list(self.gpu), "start": list(self.start)}

    @classmethod
    def from_placements(cls, placements: Sequence[Placement]) -> Solution:
        """The solution of an engine schedule (class ``"gpu"``)."""
        return cls(tuple(int(p.machine) for p in placements), tuple(round(p.start) for p in placements))
