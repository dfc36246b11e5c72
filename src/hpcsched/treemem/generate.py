"""Seeded generators and importers of treemem instances.

* `generate_random_tree`, `generate_random_dag`: controlled shapes, uniform sizes.
* `generate_harpoon`: the family where the best post-order is about twice the optimum.
* `generate_assembly_tree`: multifrontal assembly trees of 2D/3D grid Laplacians
  (see `hpcsched.treemem.sparse` for the ordering, elimination tree and counts).
* `import_memdag`: memDAG's tree format, one ``id parent n f w`` line per node.
* `import_dnn`: the DNN operator graphs of ``../shared/data/dnn_partitioning``.
* `import_dot`: Graphviz dot digraphs with size labels (the subset of dot
  that workflow generators write; pydot/pygraphviz are not needed).

Every generator produces *in-trees* (edges child -> parent); an out-tree is
handled by reversal (the spec's theorem), which no generator here needs.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from .model import Instance
from .sparse import assembly_tree


def _source(generator: str, seed: int | None, **parameters: Any) -> dict[str, Any]:
    return {"generator": generator, "seed": seed, "parameters": parameters, "notes": []}


def generate_random_tree(
    *, seed: int, n: int = 20, max_children: int | None = None, max_exec: int = 10, max_output: int = 10
) -> Instance:
    """A random in-tree: node k (k >= 1) hangs under a uniform earlier node; sizes uniform.

    Node 0 is the root. ``exec`` is uniform in ``0..max_exec`` and
    ``output`` in ``1..max_output``; ``max_children`` caps the fan-in (None:
    no cap). Times are 1.
    """
    if n < 1:
        raise InvalidInstanceError("parameters.n", f"must be >= 1, got {n}")
    rng = np.random.default_rng(seed)
    children = [0] * n
    open_nodes = [0]  # nodes that may still take a child (all of them without a cap)
    edges = []
    for k in range(1, n):
        slot = int(rng.integers(len(open_nodes)))
        parent = open_nodes[slot]
        children[parent] += 1
        edges.append((k, parent))
        if max_children is not None and children[parent] >= max_children:
            open_nodes[slot] = open_nodes[-1]  # swap-remove: O(1)
            open_nodes.pop()
        open_nodes.append(k)
    execs = rng.integers(0, max_exec + 1, size=n).tolist()
    outputs = rng.integers(1, max_output + 1, size=n).tolist()
    return Instance.create(
        execs,
        outputs,
        edges,
        name=f"random-tree-n{n}-s{seed}",
        source=_source("random-tree", seed, n=n, max_children=max_children, max_exec=max_exec, max_output=max_output),
    )


def generate_random_dag(
    *, seed: int, n: int = 12, edge_probability: float = 0.25, max_exec: int = 10, max_output: int = 10
) -> Instance:
    """A random DAG: each pair i < j of a random order is an edge with ``edge_probability``."""
    if n < 1:
        raise InvalidInstanceError("parameters.n", f"must be >= 1, got {n}")
    rng = np.random.default_rng(seed)
    rank = rng.permutation(n)
    edges = [(int(rank[i]), int(rank[j])) for i in range(n) for j in range(i + 1, n) if rng.random() < edge_probability]
    execs = rng.integers(0, max_exec + 1, size=n).tolist()
    outputs = rng.integers(1, max_output + 1, size=n).tolist()
    return Instance.create(
        execs,
        outputs,
        edges,
        name=f"random-dag-n{n}-p{edge_probability}-s{seed}",
        source=_source(
            "random-dag", seed, n=n, edge_probability=edge_probability, max_exec=max_exec, max_output=max_output
        ),
    )


def generate_harpoon(*, seed: int = 0, k: int = 4, big: int = 100, small: int = 1) -> Instance:
    """The harpoon: a root with k children b_i, each with one leaf a_i (exec ``big``, output ``small``); f(b_i) = big/k.

    ``big`` must be a multiple of ``k``. Under this package's memory model
    (a step holds its inputs, n and f) the optimum runs all leaves first:
    peak ``big + k * small``; every post-order finishes one b_i before the
    next leaf: peak ``(k - 1) * big / k + big + small`` → 2·big. ``seed`` is unused.
    """
    if k < 1 or big % k:
        raise InvalidInstanceError("parameters.big", f"must be a positive multiple of k = {k}, got {big}")
    names = ["root"] + [f"b{i}" for i in range(k)] + [f"a{i}" for i in range(k)]
    execs = [0] + [0] * k + [big] * k
    outputs = [small] + [big // k] * k + [small] * k
    edges = [(1 + i, 0) for i in range(k)] + [(1 + k + i, 1 + i) for i in range(k)]
    return Instance.create(
        execs,
        outputs,
        edges,
        names=names,
        name=f"harpoon-k{k}-M{big}",
        source=_source("harpoon", seed, k=k, big=big, small=small),
    )


def generate_assembly(
    *,
    seed: int = 0,
    shape: tuple[int, ...] | list[int] = (8, 8),
    ordering: str = "nested-dissection",
    amalgamation: int = 0,
) -> Instance:
    """The multifrontal assembly tree of the grid Laplacian of ``shape`` (2D or 3D).

    See `hpcsched.treemem.sparse.assembly_tree` for the ordering, the
    elimination tree, the column counts, the amalgamation and the weights.
    """
    tree = assembly_tree(tuple(int(s) for s in shape), ordering=ordering, seed=seed, amalgamation=amalgamation)
    label = "x".join(str(s) for s in shape)
    return Instance.create(
        tree.exec_sizes,
        tree.outputs,
        tree.edges,
        times=tree.times,
        name=f"assembly-{label}-{ordering}-a{amalgamation}-s{seed}",
        source=_source("assembly", seed, shape=list(shape), ordering=ordering, amalgamation=amalgamation),
    )


def as_parallel(instance: Instance, *, processors: int, memory: int, name: str | None = None) -> Instance:
    """The parallel question on the graph of ``instance``: p processors sharing memory M (times must be >= 1)."""
    data = instance.to_data()
    data.update(question="parallel", processors=processors, memory=memory)
    source = {**instance.source, "question": {"processors": processors, "memory": memory}}
    return Instance.from_data(
        data, name=name or f"{instance.name}-p{processors}-M{memory}", time_unit=instance.time_unit, source=source
    )


def as_out_of_core(
    instance: Instance, *, memory: int | None = None, fraction: float | None = None, name: str | None = None
) -> Instance:
    """The out-of-core question (MinIO) on the graph of ``instance`` with memory M.

    Give M directly, or ``fraction``: M = max(max MemReq, ⌊fraction × the
    in-core optimum⌋) (Liu 1987 on in-forests; on other DAGs the best of the
    greedy and spanning-forest orders, an upper bound), so that the instance
    is feasible and, for fraction < 1, needs I/O unless M hits max MemReq.
    """
    from .simulate import Graph, peak
    from .special_cases import tree_optimum

    if (memory is None) == (fraction is None):
        raise ValueError("give exactly one of memory and fraction")
    if memory is None:
        graph = Graph.of(instance)
        in_core = tree_optimum(instance)
        if in_core is None:
            from .heuristics import forest_order, greedy_order

            in_core = min(peak(graph, greedy_order(graph)), peak(graph, forest_order(graph)))
        memreq = max(graph.memreq(i) for i in range(graph.n))
        memory = max(memreq, int(np.floor(float(fraction) * in_core)))  # type: ignore[arg-type]
    data = instance.to_data()
    data.update(question="out-of-core", memory=int(memory))
    data.pop("processors", None)
    source = {**instance.source, "question": {"out-of-core": {"memory": int(memory), "fraction": fraction}}}
    return Instance.from_data(
        data, name=name or f"{instance.name}-io-M{memory}", time_unit=instance.time_unit, source=source
    )


def generate_parallel_tree(
    *,
    seed: int,
    n: int = 12,
    processors: int = 2,
    memory_factor: float = 1.5,
    max_children: int | None = None,
    max_time: int = 5,
    max_exec: int = 10,
    max_output: int = 10,
) -> Instance:
    """A random in-tree (as `generate_random_tree`, times uniform 1..max_time) for the parallel question.

    M = ⌈memory_factor × the sequential optimum⌉ (Liu 1987), so that every
    factor >= 1 gives a feasible instance.
    """
    from .simulate import Graph
    from .special_cases import liu_optimal_order, require_forest_parent

    tree = generate_random_tree(seed=seed, n=n, max_children=max_children, max_exec=max_exec, max_output=max_output)
    rng = np.random.default_rng(seed + 7919)
    times = rng.integers(1, max_time + 1, size=n).tolist()
    data = tree.to_data()
    for node, time in zip(data["graph"]["nodes"], times, strict=False):
        node["time"] = int(time)
    timed = Instance.from_data(data, name=tree.name)
    graph = Graph.of(timed)
    optimum = liu_optimal_order(graph, require_forest_parent(graph))[1]
    instance = as_parallel(
        timed,
        processors=processors,
        memory=int(np.ceil(memory_factor * optimum)),
        name=f"parallel-tree-n{n}-p{processors}-m{memory_factor}-s{seed}",
    )
    return Instance.from_data(
        instance.to_data(),
        name=instance.name,
        source=_source(
            "parallel-tree",
            seed,
            n=n,
            processors=processors,
            memory_factor=memory_factor,
            max_children=max_children,
            max_time=max_time,
            max_exec=max_exec,
            max_output=max_output,
        ),
    )


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
