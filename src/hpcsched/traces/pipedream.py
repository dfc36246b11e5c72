"""Parser of PipeDream profiler graphs (``graph.txt``) into plain records.

Format (msr-fiddle/pipedream, profiler/*/profiles/*/graph.txt): one line per
node ::

    nodeN -- Op(...) -- forward_compute_time=ms, backward_compute_time=ms, activation_size=bytes, parameter_size=bytes

followed by edge lines ``\\tnodeA -- nodeB``.  Some sizes (GNMT) are lists
``[a; b; c]``: the node outputs several tensors; `LayerRecord.activation_bytes`
is their sum and `LayerRecord.activation_parts` keeps them.

Tensor accounting (`storage_kind`): not every node's ``activation_size`` is a
new allocation.  An in-place op (``ReLU(inplace)``, ``Add(inplace)``, any
``inplace=True``) writes into its input's storage; a view (``View``,
``Flatten``, ``Reshape``, ``Squeeze``, ``Unsqueeze``, ``Transpose``,
``Permute``, ``Expand``, ``Narrow``, ``Select``, ``Identity``...) and a tuple
index (``__getitem__``) return a tensor sharing their input's storage: these
are *aliases*, no new tensor.  ``Size`` returns a Python integer, no tensor at
all (*scalar*).  ``Input*`` nodes, and zero-time nodes without predecessors
(GNMT's ``hidden`` placeholder), are *inputs*.  Every other node
*materializes* its output, whatever its compute time: a zero-time ``Concat``
or non-in-place ``Add`` allocates its result.

This module knows no problem: problems turn the records into instances.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import FormatError

_NODE = re.compile(
    r"^(node\d+) -- (.*) -- forward_compute_time=([^,]+), backward_compute_time=([^,]+), "
    r"activation_size=(.+), parameter_size=([^,]+)\s*$"
)
_EDGE = re.compile(r"^\s+(node\d+) -- (node\d+)\s*$")
#: Operators whose output shares their (first tensor) input's storage.
VIEW_OPERATORS = frozenset(
    {
        "View",
        "Flatten",
        "Reshape",
        "Squeeze",
        "Unsqueeze",
        "Transpose",
        "Permute",
        "Expand",
        "ExpandAs",
        "Narrow",
        "Select",
        "Slice",
        "Identity",
        "Unflatten",
        "T",
        "__getitem__",
    }
)
#: Operators that return no tensor (a Python number).
SCALAR_OPERATORS = frozenset({"Size"})
_INPLACE = re.compile(r"\binplace\b(?!\s*=\s*False)")


@dataclass(frozen=True)
class LayerRecord:
    """One node of a PipeDream graph (times in ms, sizes in bytes)."""

    node_id: str
    operator: str
    forward_ms: float
    backward_ms: float
    activation_bytes: int
    activation_parts: tuple[int, ...]
    parameter_bytes: int


@dataclass(frozen=True)
class PipeDreamGraph:
    """Nodes in file order and edges (producer, consumer)."""

    nodes: tuple[LayerRecord, ...]
    edges: tuple[tuple[str, str], ...]

    def predecessors(self) -> dict[str, tuple[str, ...]]:
        """Node id -> its producers, sorted by node number (every node has an entry)."""
        producers: dict[str, list[str]] = {node.node_id: [] for node in self.nodes}
        for producer, consumer in self.edges:
            producers[consumer].append(producer)
        return {node_id: tuple(sorted(ids, key=node_number)) for node_id, ids in producers.items()}


def node_number(node_id: str) -> int:
    """The number of ``nodeN`` (the profiler's execution order)."""
    return int(node_id[4:])


def operator_name(operator: str) -> str:
    """``"ReLU(inplace)"`` -> ``"ReLU"``."""
    return operator.split("(", 1)[0].strip()


#: The kinds of `storage_kind` whose output shares an input's storage.
ALIAS_KINDS = frozenset({"inplace", "view"})


def storage_kind(record: LayerRecord, has_producers: bool) -> str:
    """How a node's output is stored.

    Returns
    -------
    str
        ``"input"`` (``Input*``, or a zero-time node without producers),
        ``"inplace"`` (writes into its input's storage), ``"view"`` (a view
        or tuple index of its input: shares its storage, moves no data),
        ``"scalar"`` (``Size``: a Python number, no tensor) or
        ``"materialized"`` (allocates its output, even at zero time).
    """
    name = operator_name(record.operator)
    if name.startswith("Input") or (not has_producers and record.forward_ms == 0 and record.backward_ms == 0):
        return "input"
    if name in SCALAR_OPERATORS:
        return "scalar"
    if has_producers and _INPLACE.search(record.operator):
        return "inplace"
    if has_producers and name in VIEW_OPERATORS:
        return "view"
    return "materialized"


def _number(text: str, path: str, line_number: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(f"{path}:{line_number}: {what} is not a number: {text!r}") from None
    if value != value or value < 0 or value == float("inf"):
        raise FormatError(f"{path}:{line_number}: {what} must be a finite non-negative number, got {text!r}")
    return value


def parse_graph(path: str | Path) -> PipeDreamGraph:
    """Parse a PipeDream ``graph.txt``; raise `FormatError` naming file and line."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    nodes: list[LayerRecord] = []
    edges: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        edge = _EDGE.match(line)
        if edge:
            edges.append((edge.group(1), edge.group(2)))
            continue
        node = _NODE.match(line)
        if not node:
            raise FormatError(f"{path}:{line_number}: neither a node nor an edge line: {line[:80]!r}")
        node_id, operator, fwd, bwd, act, param = node.groups()
        if node_id in seen:
            raise FormatError(f"{path}:{line_number}: node {node_id} defined twice")
        seen.add(node_id)
        act = act.strip()
        if act.startswith("["):
            parts = tuple(
                int(_number(p.strip(), str(path), line_number, "activation_size"))
                for p in act.strip("[]").split(";")
                if p.strip()
            )
        else:
            parts = (int(_number(act, str(path), line_number, "activation_size")),)
        nodes.append(
            LayerRecord(
                node_id=node_id,
                operator=operator.strip(),
                forward_ms=_number(fwd, str(path), line_number, "forward_compute_time"),
                backward_ms=_number(bwd, str(path), line_number, "backward_compute_time"),
                activation_bytes=sum(parts),
                activation_parts=parts,
                parameter_bytes=int(_number(param, str(path), line_number, "parameter_size")),
            )
        )
    if not nodes:
        raise FormatError(f"{path}: no node lines (not a PipeDream graph.txt?)")
    for producer, consumer in edges:
        for end in (producer, consumer):
            if end not in seen:
                raise FormatError(f"{path}: edge {producer} -- {consumer} names unknown node {end}")
        if producer == consumer:
            raise FormatError(f"{path}: edge {producer} -- {consumer} is a self-loop")
    # Sorted and deduplicated: nothing downstream may depend on the order of the edge lines.
    unique_edges = sorted(set(edges), key=lambda edge: (node_number(edge[0]), node_number(edge[1])))
    return PipeDreamGraph(tuple(nodes), tuple(unique_edges))
