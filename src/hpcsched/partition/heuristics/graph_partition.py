"""Balanced min-cut partitions, then repair and scheduling: Kernighan–Lin (networkx) and METIS (pymetis)."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.errors import SolverUnavailableError
from ...core.params import at_least
from ...core.result import Result
from ...taskgraph import topological_order
from .. import bounds
from ..model import Instance
from .common import finish

# --- balanced partition (Kernighan–Lin recursive bisection) -------------------------------------------


@dataclass(frozen=True)
class KlParams:
    """Options of kl-partition.

    Attributes
    ----------
    max_iterations
        Kernighan–Lin passes per bisection (networkx ``max_iter``).
    """

    max_iterations: int = 4

    def __post_init__(self):
        at_least("max_iterations", self.max_iterations, 1)


def kl_partition(instance: Instance, /, *, time_limit: float, seed: int, params: KlParams | None) -> Result:
    """Balanced min-cut partition (Kernighan–Lin recursive bisection, networkx), then repair and scheduling.

    A pure-networkx counterpart of `metis` (which needs the optional
    pymetis): the undirected graph (edge weight c_uv + 1) is split in two
    parts of ⌊K/2⌋ and ⌈K/2⌉ GPUs' worth of nodes (the initial split is a
    topological prefix, which KL's swaps then improve keeping the part
    sizes), recursively, until each part is one GPU. Balance is by node
    count (networkx's KL does not weigh nodes). Then units, overflow repair
    and list scheduling as every heuristic here.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        networkx's seed for Kernighan–Lin.
    params
        `KlParams`, or None for the defaults.

    Returns
    -------
    Result
        FEASIBLE with the schedule; NOT_APPLICABLE when the overflow repair finds no assignment within
        memory (proves nothing).
    """
    import networkx as nx

    params = params or KlParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    graph = nx.Graph()
    graph.add_nodes_from(range(instance.n))
    for edge in instance.edges:
        graph.add_edge(edge.u, edge.v, weight=edge.delay + 1)
    position = {v: i for i, v in enumerate(topological_order(instance.n, instance.edges))}
    gpu_of = [0] * instance.n

    def split(nodes: list[int], first_gpu: int, count: int) -> None:
        deadline.check("bisecting (Kernighan–Lin)")
        if count == 1 or len(nodes) <= 1:
            for v in nodes:
                gpu_of[v] = first_gpu
            return
        left_count = count // 2
        nodes = sorted(nodes, key=lambda v: position[v])
        cut = len(nodes) * left_count // count
        left, right = set(nodes[:cut]), set(nodes[cut:])
        if left and right:
            left, right = nx.algorithms.community.kernighan_lin_bisection(
                graph.subgraph(nodes),
                partition=(left, right),
                max_iter=params.max_iterations,
                weight="weight",
                seed=seed,
            )
        split(sorted(left), first_gpu, left_count)
        split(sorted(right), first_gpu + left_count, count - left_count)

    split(list(range(instance.n)), 0, instance.gpus)
    return finish(instance, gpu_of, deadline, "Kernighan–Lin recursive bisection (networkx), balance by node count")


# --- METIS (pymetis, optional) ---------------------------------------------------------------------------


def _load_pymetis():
    """The pymetis module, or `SolverUnavailableError` saying how to install it."""
    try:
        import pymetis
    except ImportError as error:
        raise SolverUnavailableError("pymetis", "pip install 'hpcsched[metis]' (or pip install pymetis)") from error
    return pymetis


def metis_parts(instance: Instance, seed: int) -> list[int]:
    """The K-way METIS partition of the undirected graph: part (GPU) of every node.

    Parameters
    ----------
    instance
        The partition instance; its DAG is read as an undirected graph.
    seed
        METIS's random seed (``options.seed``), so a run is reproducible.

    Returns
    -------
    list[int]
        ``gpu_of[v]`` in ``0 .. K-1``.

    Notes
    -----
    Vertex weight p_v (compute time: METIS balances the work), edge weight
    c_uv + 1 (communication volume; the + 1 keeps free edges worth keeping
    together, as in `kl_partition`, and METIS's weights positive).
    """
    pymetis = _load_pymetis()
    if instance.gpus == 1:
        return [0] * instance.n
    neighbours: list[list[tuple[int, int]]] = [[] for _ in range(instance.n)]
    for edge in instance.edges:
        weight = int(edge.delay) + 1
        neighbours[edge.u].append((edge.v, weight))
        neighbours[edge.v].append((edge.u, weight))
    starts: list[int] = [0]
    adjacent: list[int] = []
    edge_weights: list[int] = []
    for row in neighbours:
        adjacent.extend(v for v, _ in row)
        edge_weights.extend(w for _, w in row)
        starts.append(len(adjacent))
    options = pymetis.Options()
    options.seed = seed
    partition = pymetis.part_graph(
        instance.gpus,
        pymetis.CSRAdjacency(starts, adjacent),
        vweights=list(instance.times),
        eweights=edge_weights,
        options=options,
    )
    return [int(part) for part in partition.vertex_part]


def metis(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """METIS K-way partition (pymetis; weights: compute time, communication), then repair and scheduling.

    ParDNN's baseline partitioner: METIS balances Σ p per part and cuts
    as little communication as it can, without looking at the DAG's
    order; then, as every heuristic here, colocation units, the greedy
    overflow repair and the shared list scheduler (upward-rank order).

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method (METIS itself is not interruptible; the
        deadline is checked after it).
    seed
        METIS's random seed.
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE with the schedule, or NOT_APPLICABLE when the overflow
        repair finds no assignment within memory (proves nothing).

    Raises
    ------
    SolverUnavailableError
        When pymetis is not installed (the optional extra ``metis``).
    """
    deadline = Deadline.after(time_limit)
    _load_pymetis()  # fail before any work when the backend is missing
    bounds.require_feasible(instance)
    gpu_of = metis_parts(instance, seed)
    deadline.check("partitioning (METIS)")
    return finish(instance, gpu_of, deadline, "METIS K-way partition (pymetis), vertex weight p, edge weight c + 1")
