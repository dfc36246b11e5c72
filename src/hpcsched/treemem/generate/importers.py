"""Importers of treemem instances.

* `import_memdag`: memDAG's tree format, one ``id parent n f w`` line per node.
* `import_dnn`: the DNN operator graphs of ``../shared/data/dnn_partitioning``.
* `import_dot`: Graphviz dot digraphs with size labels (the subset of dot
  that workflow generators write; pydot/pygraphviz are not needed).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from ...core.errors import FormatError
from ..model import Instance


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def import_memdag(path: str | Path) -> Instance:
    """A tree in memDAG's format: one ``id parent n f w`` line per node (parent 0 or -1 for the root).

    Lines starting with ``#`` and blank lines are skipped. The tree is an
    in-tree (edges child -> parent).
    """
    path = Path(path)
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 5:
            raise FormatError(f"{path}:{number}: expected 'id parent n f w', got {line!r}")
        try:
            node, parent, exec_size, output, time = (int(float(x)) for x in fields)
        except ValueError:
            raise FormatError(f"{path}:{number}: non-numeric field in {line!r}") from None
        rows.append((node, parent, exec_size, output, time))
    ids = {row[0] for row in rows}
    names = [str(row[0]) for row in rows]
    index = {row[0]: k for k, row in enumerate(rows)}
    edges = []
    for row in rows:
        if row[1] in ids and row[1] != row[0]:
            edges.append((index[row[0]], index[row[1]]))
        elif row[1] not in (0, -1):
            raise FormatError(f"{path}: node {row[0]} has unknown parent {row[1]}")
    instance = Instance.create(
        [r[2] for r in rows],
        [r[3] for r in rows],
        edges,
        times=[r[4] for r in rows],
        names=names,
        name=path.stem,
        source={"file": path.name, "sha256": _sha256(path), "importer": "memdag", "notes": []},
    )
    return instance


_DOT_EDGE = re.compile(r'^\s*("[^"]+"|[\w.:-]+)\s*->\s*("[^"]+"|[\w.:-]+)\s*(\[(.*)\])?\s*;?\s*$')
_DOT_NODE = re.compile(r'^\s*("[^"]+"|[\w.:-]+)\s*\[(.*)\]\s*;?\s*$')
_DOT_ATTRIBUTE = re.compile(r'(\w+)\s*=\s*("[^"]*"|[^,\s\]]+)')
_DOT_OUTPUT = ("size", "output", "bytes")
_DOT_EXEC = ("exec", "memory", "mem")
_DOT_TIME = ("time", "runtime", "weight")


def _dot_attributes(text: str | None) -> dict[str, str]:
    return {key.lower(): value.strip('"') for key, value in _DOT_ATTRIBUTE.findall(text or "")}


def _dot_number(attributes: dict[str, str], keys: tuple[str, ...], where: str) -> int | None:
    for key in keys:
        if key in attributes:
            try:
                return round(float(attributes[key]))
            except ValueError:
                raise FormatError(f"{where}: attribute {key}={attributes[key]!r} is not a number") from None
    return None


def import_dot(path: str | Path) -> Instance:
    """A digraph in Graphviz dot with size labels: one statement per line.

    Node statements ``name [size=.., exec=.., time=..]`` (also ``output``/
    ``bytes``, ``memory``/``mem``, ``runtime``/``weight``); edge statements
    ``u -> v [size=..]``. A node's output is its own ``size`` or, when it has
    none, the largest ``size`` on its out-edges (its output is what its
    consumers read; the notes say when that was used); missing numbers are 0,
    times default to 1. Subgraphs, ports and multi-target edges are not read.
    """
    path = Path(path)
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        stripped = line.strip()
        if (
            not stripped
            or stripped.startswith(("//", "#", "digraph", "}", "graph", "node [", "edge ["))
            or stripped == "{"
        ):
            continue
        edge = _DOT_EDGE.match(stripped)
        if edge:
            u, v = edge.group(1).strip('"'), edge.group(2).strip('"')
            nodes.setdefault(u, {})
            nodes.setdefault(v, {})
            edges.append((u, v, _dot_attributes(edge.group(4))))
            continue
        node = _DOT_NODE.match(stripped)
        if node:
            nodes.setdefault(node.group(1).strip('"'), {}).update(_dot_attributes(node.group(2)))
            continue
        raise FormatError(f"{path}:{number}: not a node or edge statement: {stripped!r}")
    if not nodes:
        raise FormatError(f"{path}: no nodes")
    names = list(nodes)
    index = {name: k for k, name in enumerate(names)}
    outputs, execs, times, notes = [], [], [], []
    from_edges = 0
    for name in names:
        where = f"{path}: node {name}"
        output = _dot_number(nodes[name], _DOT_OUTPUT, where)
        if output is None:
            sizes = [_dot_number(a, _DOT_OUTPUT, f"{path}: edge {u} -> {v}") for u, v, a in edges if u == name]
            output = max((s for s in sizes if s is not None), default=0)
            from_edges += output > 0
        outputs.append(output)
        execs.append(_dot_number(nodes[name], _DOT_EXEC, where) or 0)
        time = _dot_number(nodes[name], _DOT_TIME, where)
        times.append(1 if time is None else time)
    if from_edges:
        notes.append(f"{from_edges} node output(s) taken as the largest size on their out-edges")
    pairs = sorted({(index[u], index[v]) for u, v, _ in edges})
    return Instance.create(
        execs,
        outputs,
        pairs,
        times=times,
        names=names,
        name=path.stem,
        source={"file": path.name, "sha256": _sha256(path), "importer": "dot", "notes": notes},
    )


def import_dnn(path: str | Path) -> Instance:
    """A DNN operator graph of dnn_partitioning as a DAG: node ``size`` as output, exec 0.

    Times are the accelerator latency rounded to integers (``fpgaLatency``,
    unit as in the file). Nodes without size get output 0. Edges are
    ``sourceId -> destId``.
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise FormatError(f"{path}: not JSON: {error}") from None
    nodes = document.get("nodes")
    if not isinstance(nodes, list):
        raise FormatError(f"{path}: no 'nodes' list")
    index = {node["id"]: k for k, node in enumerate(nodes)}
    edges = sorted(
        {(index[e["sourceId"]], index[e["destId"]]) for e in document.get("edges", []) if e["sourceId"] != e["destId"]}
    )
    notes = ["exec sizes are 0 (the files give no workspace sizes)", "times are fpgaLatency rounded"]
    return Instance.create(
        [0] * len(nodes),
        [round(float(node.get("size", 0) or 0)) for node in nodes],
        edges,
        times=[round(float(node.get("fpgaLatency", 0) or 0)) for node in nodes],
        names=[f"{node['id']}" for node in nodes],
        name=path.stem,
        source={"file": path.name, "sha256": _sha256(path), "importer": "dnn", "notes": notes},
    )
