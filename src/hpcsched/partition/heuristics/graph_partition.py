"""Balanced min-cut partitions, then repair and scheduling: Kernighan–Lin (networkx) and METIS (pymetis)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from ...core.deadline import Deadline
from ...core.errors import SolverUnavailableError
from ...core.forked import call_within
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


#: Two halves of a node set.
Bisection = tuple[set[int], set[int]]

#: Nodes up to which Kernighan–Lin runs in this process (milliseconds); above, in a child stopped at the deadline.
IN_PROCESS_KL_NODES = 200

#: The share of the time left that the child running Kernighan–Lin gets.
KL_SHARE = 0.5


def kl_partition(instance: Instance, /, *, time_limit: float, seed: int, params: KlParams | None) -> Result:
    """Balanced min-cut partition (Kernighan–Lin recursive bisection, networkx), then repair and scheduling.

    A pure-networkx counterpart of `metis` (which needs the optional
    pymetis): the undirected graph (edge weight c_uv + 1) is split in two
    parts of ⌊K/2⌋ and ⌈K/2⌉ GPUs' worth of nodes (the initial split is a
    topological prefix, which KL's swaps then improve keeping the part
    sizes), recursively, until each part is one GPU. Balance is by node
    count (networkx's KL does not weigh nodes). Then units, overflow repair
    and list scheduling as every heuristic here.

    networkx's Kernighan–Lin cannot be interrupted, so above
    `IN_PROCESS_KL_NODES` nodes it runs in a forked child that is stopped
    after half the time limit (`KL_SHARE`; the rest is for the repair and the
    list schedule); then the split KL starts from (each GPU a run of ⌊n/K⌋
    or ⌈n/K⌉ consecutive nodes in topological order) stands in, and the notes
    say so.

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
    params = params or KlParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    note = "Kernighan–Lin recursive bisection (networkx), balance by node count"
    remaining = deadline.remaining()
    gpu_of: list[int] | None
    if remaining is None or instance.n <= IN_PROCESS_KL_NODES:
        gpu_of = kl_parts(instance, seed, params.max_iterations)
    else:
        # half the time for KL, half for the repair and the list schedule that follow it
        gpu_of = _kl_parts_within(instance, seed, params.max_iterations, remaining * KL_SHARE)
    if gpu_of is None:
        gpu_of = topological_split(instance)
        note = "Kernighan–Lin stopped at half the time limit: the topological-prefix split it starts from"
    deadline.check("bisecting (Kernighan–Lin)")
    return finish(instance, gpu_of, deadline, note)


def topological_split(instance: Instance) -> list[int]:
    """Each GPU a run of consecutive nodes in topological order: the parts `kl_parts` starts from.

    A bisection of m nodes over c GPUs cuts at ⌊m ⌊c/2⌋ / c⌋; this is `recursive_bisection` with no
    swap made.
    """
    return recursive_bisection(instance, lambda nodes, left, right: (left, right))


def _kl_parts_within(instance: Instance, seed: int, max_iterations: int, seconds: float) -> list[int] | None:
    """`kl_parts` in a forked child (`core.forked.call_within`), or None when it has not answered within ``seconds``."""
    done, parts = call_within(kl_parts, (instance, seed, max_iterations), seconds)
    return cast(list[int], parts) if done else None


def kl_parts(instance: Instance, seed: int, max_iterations: int) -> list[int]:
    """The GPU of every node after the Kernighan–Lin recursive bisection (see `kl_partition`)."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(instance.n))
    for edge in instance.edges:
        graph.add_edge(edge.u, edge.v, weight=edge.delay + 1)

    def swap(nodes: list[int], left: set[int], right: set[int]) -> tuple[set[int], set[int]]:
        return nx.algorithms.community.kernighan_lin_bisection(
            graph.subgraph(nodes), partition=(left, right), max_iter=max_iterations, weight="weight", seed=seed
        )

    return recursive_bisection(instance, swap)


def recursive_bisection(instance: Instance, refine: Callable[[list[int], set[int], set[int]], Bisection]) -> list[int]:
    """The GPU of every node: halve the GPUs and the nodes (in topological order) recursively.

    At each level the nodes are cut at ⌊m ⌊c/2⌋ / c⌋ in topological order and ``refine(nodes, left,
    right)`` may move nodes between the two halves (Kernighan–Lin swaps them).
    """
    position = {v: i for i, v in enumerate(topological_order(instance.n, instance.edges))}
    gpu_of = [0] * instance.n

    def split(nodes: list[int], first_gpu: int, count: int) -> None:
        if count == 1 or len(nodes) <= 1:
            for v in nodes:
                gpu_of[v] = first_gpu
            return
        left_count = count // 2
        nodes = sorted(nodes, key=lambda v: position[v])
        cut = len(nodes) * left_count // count
        left, right = set(nodes[:cut]), set(nodes[cut:])
        if left and right:
            left, right = refine(nodes, left, right)
        split(sorted(left), first_gpu, left_count)
        split(sorted(right), first_gpu + left_count, count - left_count)

    split(list(range(instance.n)), 0, instance.gpus)
    return gpu_of


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
    deadline.check("checking feasibility")
    gpu_of = metis_parts(instance, seed)
    deadline.check("partitioning (METIS)")
    return finish(instance, gpu_of, deadline, "METIS K-way partition (pymetis), vertex weight p, edge weight c + 1")
