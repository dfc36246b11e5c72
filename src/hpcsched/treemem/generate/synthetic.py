"""Seeded generators of treemem instances, and the parallel and out-of-core questions on a graph.

* `generate_random_tree`, `generate_random_dag`: controlled shapes, uniform sizes.
* `generate_harpoon`: the family where the best post-order is about twice the optimum.
* `generate_assembly`: multifrontal assembly trees of 2D/3D grid Laplacians
  (see `hpcsched.treemem.sparse` for the ordering, elimination tree and counts).
* `generate_parallel_tree`: a random tree for the parallel question.

Every generator produces *in-trees* (edges child -> parent); an out-tree is
handled by reversal (the spec's theorem), which no generator here needs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.generation import AT_LEAST_ONE, NON_NEGATIVE, POSITIVE, PROBABILITY, check_size, checked, size
from ..model import Instance
from ..sparse import assembly_tree

#: The largest instance of each family (docs/architecture.md "Generator sizes"). ``random-dag`` draws one
#: number per pair of nodes and keeps its edge probability as n grows (edges ~ n^2): at most
#: MAX_DAG_NODES nodes and MAX_DAG_EDGES edges (expected; a 6,400-node DAG at p = 0.25 has 5.1
#: million edges, a 200 MB file that takes 2.7 GB to read).
MAX_TREE_NODES = 1_000_000
#: ``parallel-tree`` also times the tree and solves it sequentially (Liu) for M: 10^5 nodes take 9 s.
MAX_PARALLEL_TREE_NODES = 200_000
MAX_DAG_NODES, MAX_DAG_EDGES = 5_000, 1_000_000
MAX_HARPOON_BRANCHES = 500_000
MAX_GRID_POINTS = 500_000


def _source(generator: str, seed: int | None, **parameters: Any) -> dict[str, Any]:
    return {"generator": generator, "seed": seed, "parameters": parameters, "notes": []}


@checked(n=size(MAX_TREE_NODES, "nodes"), max_children=AT_LEAST_ONE, max_exec=NON_NEGATIVE, max_output=AT_LEAST_ONE)
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


@checked(
    n=size(MAX_DAG_NODES, "nodes"),
    edge_probability=PROBABILITY,
    max_exec=NON_NEGATIVE,
    max_output=AT_LEAST_ONE,
)
def generate_random_dag(
    *, seed: int, n: int = 12, edge_probability: float = 0.25, max_exec: int = 10, max_output: int = 10
) -> Instance:
    """A random DAG: each pair i < j of a random order is an edge with ``edge_probability``."""
    if n < 1:
        raise InvalidInstanceError("parameters.n", f"must be >= 1, got {n}")
    expected_edges = round(n * (n - 1) / 2 * edge_probability)
    check_size("n", expected_edges, MAX_DAG_EDGES, "edges", f"n(n-1)/2 x edge_probability {edge_probability:g}")
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


@checked(k=size(MAX_HARPOON_BRANCHES, "branches"), big=NON_NEGATIVE, small=NON_NEGATIVE)
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


@checked(shape=size(MAX_GRID_POINTS, "grid points", of=math.prod), amalgamation=NON_NEGATIVE)
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
    from ..simulate import Graph, peak
    from ..special_cases import tree_optimum

    if (memory is None) == (fraction is None):
        raise ValueError("give exactly one of memory and fraction")
    if memory is None:
        graph = Graph.of(instance)
        in_core = tree_optimum(instance)
        if in_core is None:
            from ..heuristics import forest_order, greedy_order

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


@checked(
    n=size(MAX_PARALLEL_TREE_NODES, "nodes"),
    processors=AT_LEAST_ONE,
    memory_factor=POSITIVE,
    max_children=AT_LEAST_ONE,
    max_time=AT_LEAST_ONE,
    max_exec=NON_NEGATIVE,
    max_output=AT_LEAST_ONE,
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
    from ..simulate import Graph
    from ..special_cases import liu_optimal_order, require_forest_parent

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
