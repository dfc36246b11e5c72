"""Data model of treemem: Instance, Solution, evaluate, validate.

A task graph (an in-tree or any DAG) is traversed on one processor; the
objective of the ``"sequential"`` question is the peak memory of the
traversal (see ``docs/treemem.md`` and ``../shared/spec/treemem.md``).

Memory semantics (the definition, which `validate` and `evaluate` implement)
----------------------------------------------------------------------------
While node i runs, memory holds the outputs of every finished node that still
has an unfinished successor (the outputs of i's predecessors among them),
plus i's temporary ``exec`` n_i and its ``output`` f_i. When i finishes, n_i
is freed, and the output of each predecessor whose last successor was i is
freed.

*Sink convention*: the output of a node without successors is freed at its
own end (it is counted while the sink runs, not after). memDAG keeps sink
outputs until the end instead; under that convention the memory at a step
grows by the outputs of the sinks finished before it. `evaluate` reports
that figure too (``peak_keep_sinks``); for an in-tree (one sink, the root,
which runs last) both conventions give the same peak.

Modelling choices where the specification leaves room
-----------------------------------------------------
* Sizes and times are non-negative integers (the spec says integers).
* Node names are unique non-empty strings; an edge ``[u, v]`` names two
  nodes; duplicate edges and self-loops are refused; the graph must be
  acyclic (a cycle is reported with the nodes on it).
* ``question``: ``"sequential"``, ``"parallel"`` and ``"out-of-core"``
  (MinIO: ``memory`` M required; the definition, events and objective are in
  `hpcsched.treemem.model.out_of_core`).
* Parallel question: ``processors`` p >= 1 and ``memory`` M >= 0 are
  required and every ``time`` must be >= 1 (a task of length 0 would hold its
  memory during an empty interval, i.e. never: refusing it keeps the memory
  sweep honest). Memory over time: node i holds n_i on ``[s_i, e_i)`` and f_i
  on ``[s_i, L_i)`` with L_i the latest end of its successors (e_i for a
  sink); at equal times frees happen before allocations.
* The validator is written from the definition and shares no code with
  `hpcsched.treemem.simulate` or the formulations.
"""

from __future__ import annotations

import itertools
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
from ...core.violation import Violation
from . import out_of_core as out_of_core_model

QUESTIONS = ("sequential", "parallel", "out-of-core")
IMPLEMENTED_QUESTIONS = ("sequential", "parallel", "out-of-core")

#: JSON Schema of the ``data`` section of a treemem instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "treemem instance data",
    "type": "object",
    "required": ["question", "graph"],
    "additionalProperties": False,
    "properties": {
        "question": {
            "enum": list(QUESTIONS),
            "description": "sequential: minimize the peak memory of a topological order; parallel: "
            "minimize the makespan on p processors under memory M; out-of-core: minimize the bytes "
            "written to secondary storage under memory M",
        },
        "graph": {
            "type": "object",
            "required": ["nodes", "edges"],
            "additionalProperties": False,
            "properties": {
                "nodes": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["name", "time", "exec", "output"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "time": {"type": "integer", "minimum": 0, "description": "w_i in time_unit"},
                            "exec": {
                                "type": "integer",
                                "minimum": 0,
                                "description": "n_i, temporary memory while i runs",
                            },
                            "output": {"type": "integer", "minimum": 0, "description": "f_i, the output of i"},
                        },
                    },
                },
                "edges": {
                    "type": "array",
                    "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string"}},
                    "description": "[u, v]: v consumes u's output; the graph is acyclic",
                },
            },
        },
        "processors": {"type": "integer", "minimum": 1, "description": "p (parallel question)"},
        "memory": {"type": "integer", "minimum": 0, "description": "M (parallel and out-of-core questions)"},
    },
}


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


# ----------------------------------------------------------------------------------------------
# The definition, written out step by step (no shared code with simulate.py or the methods).


def memory_profile(instance: Instance, order: Sequence[int], *, keep_sinks: bool = False) -> list[int]:
    """Memory held while each node of ``order`` runs (the definition, step by step).

    ``order`` must be a topological order of all nodes (`validate` checks it
    first). With ``keep_sinks`` the outputs of finished sinks stay held
    (memDAG's convention) instead of being freed at their own end.
    """
    nodes, successors, predecessors = instance.nodes, instance.successors, instance.predecessors
    unfinished_consumers = [len(s) for s in successors]
    held_bytes = 0  # sum of the outputs in memory between steps
    profile = []
    for i in order:
        profile.append(held_bytes + nodes[i].exec + nodes[i].output)  # n_i is freed when i ends
        held_bytes += nodes[i].output
        if not successors[i] and not keep_sinks:
            held_bytes -= nodes[i].output  # a sink's output is freed at its own end
        for p in predecessors[i]:
            unfinished_consumers[p] -= 1
            if unfinished_consumers[p] == 0:  # i was p's last successor
                held_bytes -= nodes[p].output
    return profile


def _order_indices(instance: Instance, order: Sequence[str]) -> tuple[list[Violation], list[int]]:
    """The violations of "a permutation of the nodes" and, when there are none, the order as node indices."""
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    violations = []
    seen: set[str] = set()
    for position, label in enumerate(order):
        if label not in index:
            violations.append(Violation("unknown-node", f"position {position} names unknown node '{label}'"))
        elif label in seen:
            violations.append(Violation("duplicate", f"node '{label}' runs twice (again at position {position})"))
        seen.add(label)
    missing = [node.name for node in instance.nodes if node.name not in seen]
    if missing:
        shown = ", ".join(missing[:5]) + (f" (+{len(missing) - 5} more)" if len(missing) > 5 else "")
        violations.append(Violation("missing", f"{len(missing)} node(s) never run: {shown}"))
    if violations:
        return violations, []
    return [], [index[label] for label in order]


def memory_levels(instance: Instance, start: Sequence[int]) -> list[tuple[int, int]]:
    """``(time, memory held from that time on)`` of a parallel schedule, at every time the level changes.

    Node i holds n_i on ``[s_i, e_i)`` and f_i on ``[s_i, L_i)``, L_i the
    latest end of its successors (its own end for a sink). All changes at
    one instant are applied together, which is "frees before allocations".
    """
    nodes = instance.nodes
    ends = [start[i] + nodes[i].time for i in range(len(nodes))]
    deltas: dict[int, int] = {}
    for i, node in enumerate(nodes):
        released = max((ends[s] for s in instance.successors[i]), default=ends[i])
        for begin, end, size in ((start[i], ends[i], node.exec), (start[i], released, node.output)):
            if end > begin and size:
                deltas[begin] = deltas.get(begin, 0) + size
                deltas[end] = deltas.get(end, 0) - size
    levels, held = [], 0
    for time in sorted(deltas):
        held += deltas[time]
        levels.append((time, held))
    return levels


def _validate_schedule(instance: Instance, solution: Solution) -> list[Violation]:
    if solution.start is None or solution.processor is None:
        return [Violation("kind", "the parallel question needs a start and a processor per node, got an order")]
    names = [node.name for node in instance.nodes]
    violations = []
    for key, mapping in (("start", solution.start), ("processor", solution.processor)):
        unknown = sorted(set(mapping) - set(names))
        missing = [name for name in names if name not in mapping]
        if unknown:
            violations.append(Violation("unknown-node", f"{key} names unknown node(s) {', '.join(unknown[:5])}"))
        if missing:
            violations.append(Violation("missing", f"{key} lacks {len(missing)} node(s): {', '.join(missing[:5])}"))
    if violations:
        return violations
    start = [solution.start[name] for name in names]
    processor = [solution.processor[name] for name in names]
    nodes = instance.nodes
    for i, name in enumerate(names):
        if start[i] < 0:
            violations.append(Violation("negative-start", f"'{name}' starts at {start[i]} < 0"))
        if not 0 <= processor[i] < (instance.processors or 0):
            violations.append(
                Violation(
                    "processor",
                    f"'{name}' runs on processor {processor[i]}, valid: 0..{(instance.processors or 0) - 1}",
                )
            )
    for u, v in instance.edges:
        if start[v] < start[u] + nodes[u].time:
            violations.append(
                Violation(
                    "precedence",
                    f"'{names[v]}' starts at {start[v]} before its predecessor "
                    f"'{names[u]}' ends at {start[u] + nodes[u].time}",
                )
            )
    by_processor: dict[int, list[tuple[int, int, int]]] = {}
    for i in range(len(names)):
        by_processor.setdefault(processor[i], []).append((start[i], start[i] + nodes[i].time, i))
    for proc, intervals in by_processor.items():
        intervals.sort()
        for (_s1, e1, i1), (s2, _, i2) in itertools.pairwise(intervals):
            if s2 < e1:
                violations.append(
                    Violation(
                        "overlap",
                        f"'{names[i2]}' starts at {s2} on processor {proc} while '{names[i1]}' runs until {e1}",
                    )
                )
    for time, held in memory_levels(instance, start):
        if held > (instance.memory or 0):
            violations.append(
                Violation(
                    "memory",
                    f"{held} held from time {time} on, memory is {instance.memory} "
                    f"(over by {held - (instance.memory or 0)})",
                )
            )
    return violations


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Sequential rules: ``unknown-node``, ``duplicate``, ``missing`` (the order
    is a permutation of the nodes) and ``precedence`` (every edge u -> v has u
    before v). The sequential question has no memory limit: any topological
    order is feasible, its peak is the objective. Parallel rules: ``missing``
    / ``unknown-node`` (one start and one processor per node),
    ``negative-start``, ``processor`` (0..p-1), ``precedence`` (s_v >= s_u +
    w_u), ``overlap`` (one node at a time per processor), ``memory`` (held <=
    M at every instant, see `memory_levels`). Out-of-core: the sequential
    rules on the order, then ``io-kind``, ``io-position``,
    ``evict-not-resident``, ``reload-not-evicted``, ``input-not-resident``
    and ``memory`` (see `hpcsched.treemem.model.out_of_core`).
    """
    if instance.question == "parallel":
        return _validate_schedule(instance, solution)
    if solution.order is None:
        return [Violation("kind", "the sequential question needs an order, got a schedule")]
    order_violations, checked = _order_indices(instance, solution.order)
    if order_violations:
        return order_violations
    if solution.io is not None and instance.question != "out-of-core":
        return [
            Violation(
                "kind", f"io events answer the out-of-core question; the instance asks the {instance.question} one"
            )
        ]
    position = {node: k for k, node in enumerate(checked)}
    violations = []
    for u, v in instance.edges:
        if position[u] > position[v]:
            violations.append(
                Violation(
                    "precedence",
                    f"'{instance.nodes[v].name}' (position {position[v]}) runs before its predecessor "
                    f"'{instance.nodes[u].name}' (position {position[u]})",
                )
            )
    if instance.question == "out-of-core" and not violations:
        violations, _ = out_of_core_model.replay(instance, checked, solution)
    return violations


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Peak memory (the objective) and KPIs of a valid traversal.

    KPIs: ``peak_memory``; ``peak_position`` (first step at the peak);
    ``peak_keep_sinks`` (the peak under memDAG's convention, sink outputs
    kept); ``max_memreq`` (max over nodes of the memory of its own step
    alone, a lower bound); ``total_time`` (Σ w, the sequential makespan).
    """
    if instance.question == "parallel":
        return _evaluate_schedule(instance, solution)
    if solution.order is None:
        raise ValueError("the sequential questions need an order, got a schedule")
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    order = [index[label] for label in solution.order]
    if instance.question == "out-of-core":
        return out_of_core_model.evaluate(instance, order, solution)
    profile = memory_profile(instance, order)
    peak = max(profile)
    memreq = max(
        sum(instance.nodes[p].output for p in instance.predecessors[i]) + node.exec + node.output
        for i, node in enumerate(instance.nodes)
    )
    return {
        "objective": float(peak),
        "peak_memory": float(peak),
        "peak_position": float(profile.index(peak)),
        "peak_keep_sinks": float(max(memory_profile(instance, order, keep_sinks=True))),
        "max_memreq": float(memreq),
        "total_time": float(sum(node.time for node in instance.nodes)),
    }


def _evaluate_schedule(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective), peak memory and utilisation of a valid parallel schedule."""
    names = [node.name for node in instance.nodes]
    start = [solution.start[name] for name in names]  # type: ignore[index]
    makespan = max(s + node.time for s, node in zip(start, instance.nodes, strict=False))
    peak = max((held for _, held in memory_levels(instance, start)), default=0)
    work = sum(node.time for node in instance.nodes)
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.memory if instance.memory else 0.0,
        "total_work": float(work),
        "processor_utilisation": work / (makespan * (instance.processors or 1)) if makespan else 0.0,
    }


def peak_of(instance: Instance, solution: Solution) -> int:
    """The integer peak memory (`evaluate`'s objective as an int)."""
    return int(evaluate(instance, solution)["objective"])


def other_question(instance: Instance, question: str) -> Any:
    """A NOT_APPLICABLE Result when ``instance`` asks another question than ``question``, else None."""
    if instance.question == question:
        return None
    from ...core.result import Result, Status

    return Result(
        status=Status.NOT_APPLICABLE,
        notes=(f"this method answers the {question} question; the instance asks the {instance.question} one",),
    )
