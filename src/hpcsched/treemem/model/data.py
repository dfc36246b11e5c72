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
from .schema import IMPLEMENTED_QUESTIONS, QUESTIONS


@dataclass(frozen=True)
class Node:
    """One task: ``time`` w, temporary ``exec`` memory n and ``output`` f."""

    name: str
    time: int
    exec: int
    output: int


def _checked_node(raw: Any, path: str) -> Node:
    if isinstance(raw, Node):
        raw = {"name": raw.name, "time": raw.time, "exec": raw.exec, "output": raw.output}
    record = require_dict(raw, path)
    require_known_keys(record, ("name", "time", "exec", "output"), path, "a node")
    name = require_str(require_key(record, "name", path), f"{path}.name")
    if not name:
        raise InvalidInstanceError(f"{path}.name", "must not be empty")
    return Node(
        name,
        require_int(require_key(record, "time", path), f"{path}.time", minimum=0),
        require_int(require_key(record, "exec", path), f"{path}.exec", minimum=0),
        require_int(require_key(record, "output", path), f"{path}.output", minimum=0),
    )


def _find_cycle(n: int, successors: Sequence[Sequence[int]]) -> list[int] | None:
    """Nodes of one directed cycle (in order), or None when the graph is acyclic."""
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    parent = [-1] * n
    for root in range(n):
        if state[root]:
            continue
        stack = [(root, iter(successors[root]))]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            advanced = False
            for child in children:
                if state[child] == 0:
                    state[child], parent[child] = 1, node
                    stack.append((child, iter(successors[child])))
                    advanced = True
                    break
                if state[child] == 1:  # back edge node -> child closes a cycle
                    cycle = [node]
                    while cycle[-1] != child:
                        cycle.append(parent[cycle[-1]])
                    return cycle[::-1]
            if not advanced:
                state[node] = 2
                stack.pop()
    return None


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
        nodes = require_list(list(self.nodes), "data.graph.nodes", min_length=1)
        checked = tuple(_checked_node(node, f"data.graph.nodes[{i}]") for i, node in enumerate(nodes))
        seen: dict[str, int] = {}
        for index, node in enumerate(checked):
            if node.name in seen:
                raise InvalidInstanceError(
                    f"data.graph.nodes[{index}].name", f"duplicate name '{node.name}' (also node {seen[node.name]})"
                )
            seen[node.name] = index
        n = len(checked)
        edges = []
        pairs: set[tuple[int, int]] = set()
        for k, edge in enumerate(require_list(list(self.edges), "data.graph.edges")):
            path = f"data.graph.edges[{k}]"
            ends = require_list(edge, path, length=2)
            u, v = (_end_index(end, f"{path}[{j}]", n) for j, end in enumerate(ends))
            if u == v:
                raise InvalidInstanceError(path, f"self-loop on node '{checked[u].name}' (a cycle)")
            if (u, v) in pairs:
                raise InvalidInstanceError(path, f"duplicate edge {checked[u].name} -> {checked[v].name}")
            pairs.add((u, v))
            edges.append((u, v))
        successors: list[list[int]] = [[] for _ in range(n)]
        predecessors: list[list[int]] = [[] for _ in range(n)]
        for u, v in edges:
            successors[u].append(v)
            predecessors[v].append(u)
        cycle = _find_cycle(n, successors)
        if cycle is not None:
            names = " -> ".join(checked[i].name for i in [*cycle, cycle[0]])
            raise InvalidInstanceError("data.graph.edges", f"the graph has a cycle: {names}")
        question = require_str(self.question, "data.question", choices=QUESTIONS)
        if question not in IMPLEMENTED_QUESTIONS:
            raise InvalidInstanceError(
                "data.question",
                f"'{question}' is defined in the spec but not implemented yet (implemented: "
                f"{', '.join(IMPLEMENTED_QUESTIONS)})",
            )
        processors = None if self.processors is None else require_int(self.processors, "data.processors", minimum=1)
        memory = None if self.memory is None else require_int(self.memory, "data.memory", minimum=0)
        if question == "parallel":
            if processors is None:
                raise InvalidInstanceError("data.processors", "is missing (the parallel question needs p)")
            if memory is None:
                raise InvalidInstanceError("data.memory", "is missing (the parallel question needs M)")
            for index, node in enumerate(checked):
                if node.time < 1:
                    raise InvalidInstanceError(
                        f"data.graph.nodes[{index}].time", f"must be >= 1 for the parallel question, got {node.time}"
                    )
        if question == "out-of-core" and memory is None:
            raise InvalidInstanceError("data.memory", "is missing (the out-of-core question needs M)")
        object.__setattr__(self, "nodes", checked)
        object.__setattr__(self, "edges", tuple(edges))
        object.__setattr__(self, "question", question)
        object.__setattr__(self, "processors", processors)
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "source", dict(self.source))
        object.__setattr__(self, "successors", tuple(tuple(s) for s in successors))
        object.__setattr__(self, "predecessors", tuple(tuple(p) for p in predecessors))

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
        checked = [_checked_node(node, f"data.graph.nodes[{i}]") for i, node in enumerate(nodes)]
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


def _end_index(end: Any, path: str, n: int) -> int:
    """An edge end given as an index (the dataclass form): checked range."""
    value = require_int(end, path)
    if not 0 <= value < n:
        raise InvalidInstanceError(path, f"node {value} does not exist (valid: 0..{n - 1})")
    return value


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
