"""treemem instances and solutions: Node, Instance, Solution (re-exported by ``model``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import InvalidInstanceError, InvalidSolutionError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from . import out_of_core as out_of_core_model
from .nodes import (
    Node,
    acyclic_adjacency,
    checked_edges,
    checked_node,
    checked_nodes,
    checked_question,
)


@dataclass(frozen=True)
class Instance:
    """A treemem instance: a task graph and the question asked about it.

    Build it with `Instance.create` or `Instance.from_data`; both check every
    field (``__post_init__`` runs the checks).

    Attributes
    ----------
    name
        Instance name.
    nodes
        The tasks; methods refer to them by index, files by name.
    edges
        ``(u, v)`` index pairs: v consumes the output of u.
    question
        ``"sequential"``, ``"parallel"`` or ``"out-of-core"``.
    processors, memory
        p and M of the parallel and out-of-core questions (None otherwise).
    time_unit, source
        As in every problem (provenance in ``source``).
    predecessors, successors
        Derived adjacency (index tuples), not part of the file.
    """

    name: str
    nodes: tuple[Node, ...]
    edges: tuple[tuple[int, int], ...]
    question: str = "sequential"
    processors: int | None = None
    memory: int | None = None
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)
    predecessors: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    successors: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        checked = checked_nodes(self.nodes)
        edges = checked_edges(self.edges, checked)
        successors, predecessors = acyclic_adjacency(checked, edges)
        question, processors, memory = checked_question(self, checked)
        object.__setattr__(self, "nodes", checked)
        object.__setattr__(self, "edges", tuple(edges))
        object.__setattr__(self, "question", question)
        object.__setattr__(self, "processors", processors)
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "source", dict(self.source))
        object.__setattr__(self, "successors", successors)
        object.__setattr__(self, "predecessors", predecessors)

    # -- construction -------------------------------------------------------
    @classmethod
    def create(
        cls,
        exec_sizes: Sequence[int],
        outputs: Sequence[int],
        edges: Sequence[tuple[int, int]],
        *,
        times: Sequence[int] | None = None,
        names: Sequence[str] | None = None,
        name: str = "treemem",
        time_unit: str | None = None,
        source: Mapping[str, Any] | None = None,
        question: str = "sequential",
        processors: int | None = None,
        memory: int | None = None,
    ) -> Instance:
        """An instance from parallel lists and index edges (names default to ``v0, v1, ...``)."""
        n = len(exec_sizes)
        if len(outputs) != n:
            raise InvalidInstanceError("data.graph.nodes", f"outputs has {len(outputs)} entries, exec_sizes has {n}")
        times = list(times) if times is not None else [1] * n
        names = list(names) if names is not None else [f"v{i}" for i in range(n)]
        if len(times) != n or len(names) != n:
            raise InvalidInstanceError("data.graph.nodes", f"times and names must have {n} entries")
        nodes = tuple(Node(names[i], int(times[i]), int(exec_sizes[i]), int(outputs[i])) for i in range(n))
        named_edges = []
        for k, (u, v) in enumerate(edges):
            if not (0 <= int(u) < n and 0 <= int(v) < n):
                raise InvalidInstanceError(f"data.graph.edges[{k}]", f"index out of range 0..{n - 1}: {(u, v)}")
            named_edges.append([names[int(u)], names[int(v)]])
        extra = {key: value for key, value in (("processors", processors), ("memory", memory)) if value is not None}
        return cls.from_data(
            {"question": question, "graph": {"nodes": [n_.__dict__ for n_ in nodes], "edges": named_edges}, **extra},
            name=name,
            time_unit=time_unit,
            source=dict(source or {}),
        )

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        """The instance described by the ``data`` section of a file."""
        data = require_dict(data, "data")
        require_known_keys(data, ("question", "graph", "processors", "memory"), "data", "treemem data")
        graph = require_dict(require_key(data, "graph", "data"), "data.graph")
        require_known_keys(graph, ("nodes", "edges"), "data.graph", "a graph")
        nodes = require_list(require_key(graph, "nodes", "data.graph"), "data.graph.nodes", min_length=1)
        checked = [checked_node(node, f"data.graph.nodes[{i}]") for i, node in enumerate(nodes)]
        index: dict[str, int] = {}
        for i, node in enumerate(checked):
            if node.name in index:
                raise InvalidInstanceError(
                    f"data.graph.nodes[{i}].name", f"duplicate name '{node.name}' (also node {index[node.name]})"
                )
            index[node.name] = i
        edges: list[tuple[int, int]] = []
        for k, edge in enumerate(require_list(require_key(graph, "edges", "data.graph"), "data.graph.edges")):
            ends = require_list(edge, f"data.graph.edges[{k}]", length=2)
            pair = []
            for j, end in enumerate(ends):
                label = require_str(end, f"data.graph.edges[{k}][{j}]")
                if label not in index:
                    raise InvalidInstanceError(f"data.graph.edges[{k}][{j}]", f"unknown node '{label}'")
                pair.append(index[label])
            edges.append((pair[0], pair[1]))
        return cls(
            name=name,
            nodes=tuple(checked),
            edges=tuple(edges),
            question=require_key(data, "question", "data"),
            processors=data.get("processors"),
            memory=data.get("memory"),
            time_unit=time_unit,
            source=dict(source or {}),
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        data: dict[str, Any] = {
            "question": self.question,
            "graph": {
                "nodes": [{"name": v.name, "time": v.time, "exec": v.exec, "output": v.output} for v in self.nodes],
                "edges": [[self.nodes[u].name, self.nodes[v].name] for u, v in self.edges],
            },
        }
        if self.processors is not None:
            data["processors"] = self.processors
        if self.memory is not None:
            data["memory"] = self.memory
        return data

    # -- convenience --------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.nodes)

    @property
    def exec_sizes(self) -> tuple[int, ...]:
        return tuple(v.exec for v in self.nodes)

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(v.output for v in self.nodes)

    @property
    def is_in_forest(self) -> bool:
        """True when every node has at most one successor (each component an in-tree)."""
        return all(len(s) <= 1 for s in self.successors)

    @property
    def is_tree(self) -> bool:
        """True for an in-tree: one root, every other node with exactly one successor."""
        return self.is_in_forest and sum(1 for s in self.successors if not s) == 1

    def index_of(self, name: str) -> int:
        for i, node in enumerate(self.nodes):
            if node.name == name:
                return i
        raise KeyError(name)


@dataclass(frozen=True)
class Solution:
    """A traversal (sequential question) or a schedule (parallel question).

    Attributes
    ----------
    order
        Sequential: node names, each once, in the order they run (None for a schedule).
    start, processor
        Parallel: node name -> start time (integer >= 0) and processor
        (0..p-1); None for a traversal.
    io
        Out-of-core: ``(kind, node name, position)`` events, kind ``"evict"``
        or ``"reload"`` (see `hpcsched.treemem.model.out_of_core`); None
        for the other questions.
    """

    order: tuple[str, ...] | None = None
    start: Mapping[str, int] | None = None
    processor: Mapping[str, int] | None = None
    io: tuple[tuple[str, str, int], ...] | None = None

    def __post_init__(self) -> None:
        if self.order is not None:
            object.__setattr__(self, "order", tuple(self.order))
        if self.io is not None:
            object.__setattr__(self, "io", tuple((str(kind), str(name), int(k)) for kind, name, k in self.io))
        for name in ("start", "processor"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, {str(k): int(v) for k, v in dict(value).items()})
        if self.order is None and (self.start is None or self.processor is None):
            raise InvalidSolutionError("solution", "needs an order, or a start and a processor per node")

    def __hash__(self) -> int:  # dict fields: hash what identifies the solution
        return hash(
            (
                self.order,
                self.io,
                None if self.start is None else tuple(sorted(self.start.items())),
                None if self.processor is None else tuple(sorted(self.processor.items())),
            )
        )

    @classmethod
    def from_indices(cls, instance: Instance, indices: Sequence[int]) -> Solution:
        """The traversal running ``instance.nodes[i]`` for i in ``indices`` in turn."""
        return cls(tuple(instance.nodes[int(i)].name for i in indices))

    @classmethod
    def schedule(cls, instance: Instance, start: Sequence[int], processor: Sequence[int]) -> Solution:
        """The parallel schedule with ``start[i]`` and ``processor[i]`` for node i."""
        names = [node.name for node in instance.nodes]
        return cls(
            None,
            {names[i]: int(start[i]) for i in range(len(names))},
            {names[i]: int(processor[i]) for i in range(len(names))},
        )

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """The solution described by the ``solution`` section of a file."""
        data = require_dict(data, "solution")
        known = {node.name for node in instance.nodes}
        if instance.question == "parallel":
            require_known_keys(data, ("start", "processor"), "solution", "a parallel treemem solution")
            maps = {}
            for key in ("start", "processor"):
                raw = require_dict(require_key(data, key, "solution"), f"solution.{key}")
                for label, value in raw.items():
                    if label not in known:
                        raise InvalidSolutionError(f"solution.{key}.{label}", f"unknown node '{label}'")
                    require_int(value, f"solution.{key}.{label}", minimum=0)
                maps[key] = raw
            return cls(None, maps["start"], maps["processor"])
        out_of_core = instance.question == "out-of-core"
        require_known_keys(data, ("order", "io") if out_of_core else ("order",), "solution", "a treemem solution")
        order = require_list(require_key(data, "order", "solution"), "solution.order")
        names = tuple(require_str(item, f"solution.order[{i}]") for i, item in enumerate(order))
        for i, label in enumerate(names):
            if label not in known:
                raise InvalidSolutionError(f"solution.order[{i}]", f"unknown node '{label}'")
        if out_of_core:
            return cls(names, io=out_of_core_model.io_from_data(data.get("io", []), known))
        return cls(names)

    def to_data(self) -> dict[str, Any]:
        if self.order is None:
            return {"start": dict(self.start or {}), "processor": dict(self.processor or {})}
        if self.io is not None:
            return {"order": list(self.order), "io": [list(event) for event in self.io]}
        return {"order": list(self.order)}
