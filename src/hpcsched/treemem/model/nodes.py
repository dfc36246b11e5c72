"""Checking an instance's raw nodes, edges and question (used by ``Instance``; ``Node`` re-exported by ``model``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from .schema import IMPLEMENTED_QUESTIONS, QUESTIONS

if TYPE_CHECKING:
    from .data import Instance


@dataclass(frozen=True)
class Node:
    """One task: ``time`` w, temporary ``exec`` memory n and ``output`` f."""

    name: str
    time: int
    exec: int
    output: int


def checked_node(raw: Any, path: str) -> Node:
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


def find_cycle(n: int, successors: Sequence[Sequence[int]]) -> list[int] | None:
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


def checked_nodes(raw_nodes: Sequence[Any]) -> tuple[Node, ...]:
    """The nodes as Node records, names unique."""
    nodes = require_list(list(raw_nodes), "data.graph.nodes", min_length=1)
    checked = tuple(checked_node(node, f"data.graph.nodes[{i}]") for i, node in enumerate(nodes))
    seen: dict[str, int] = {}
    for index, node in enumerate(checked):
        if node.name in seen:
            raise InvalidInstanceError(
                f"data.graph.nodes[{index}].name", f"duplicate name '{node.name}' (also node {seen[node.name]})"
            )
        seen[node.name] = index
    return checked


def checked_edges(raw_edges: Sequence[Any], checked: Sequence[Node]) -> list[tuple[int, int]]:
    """The edges as index pairs: ends in range, no self-loop, no duplicate."""
    n = len(checked)
    edges: list[tuple[int, int]] = []
    pairs: set[tuple[int, int]] = set()
    for k, edge in enumerate(require_list(list(raw_edges), "data.graph.edges")):
        path = f"data.graph.edges[{k}]"
        ends = require_list(edge, path, length=2)
        u, v = (end_index(end, f"{path}[{j}]", n) for j, end in enumerate(ends))
        if u == v:
            raise InvalidInstanceError(path, f"self-loop on node '{checked[u].name}' (a cycle)")
        if (u, v) in pairs:
            raise InvalidInstanceError(path, f"duplicate edge {checked[u].name} -> {checked[v].name}")
        pairs.add((u, v))
        edges.append((u, v))
    return edges


def acyclic_adjacency(
    checked: Sequence[Node], edges: Sequence[tuple[int, int]]
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Successor and predecessor lists, after checking that the graph has no cycle."""
    n = len(checked)
    successors: list[list[int]] = [[] for _ in range(n)]
    predecessors: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        successors[u].append(v)
        predecessors[v].append(u)
    cycle = find_cycle(n, successors)
    if cycle is not None:
        names = " -> ".join(checked[i].name for i in [*cycle, cycle[0]])
        raise InvalidInstanceError("data.graph.edges", f"the graph has a cycle: {names}")
    return tuple(tuple(s) for s in successors), tuple(tuple(p) for p in predecessors)


def checked_question(instance: Instance, checked: Sequence[Node]) -> tuple[str, int | None, int | None]:
    """The question, p and M, with what each question requires of them and of the node times."""
    question = require_str(instance.question, "data.question", choices=QUESTIONS)
    if question not in IMPLEMENTED_QUESTIONS:
        raise InvalidInstanceError(
            "data.question",
            f"'{question}' is defined in the spec but not implemented yet (implemented: "
            f"{', '.join(IMPLEMENTED_QUESTIONS)})",
        )
    processors = None if instance.processors is None else require_int(instance.processors, "data.processors", minimum=1)
    memory = None if instance.memory is None else require_int(instance.memory, "data.memory", minimum=0)
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
    return question, processors, memory


def end_index(end: Any, path: str, n: int) -> int:
    """An edge end given as an index (the dataclass form): checked range."""
    value = require_int(end, path)
    if not 0 <= value < n:
        raise InvalidInstanceError(path, f"node {value} does not exist (valid: 0..{n - 1})")
    return value
