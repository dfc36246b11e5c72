"""Balanced min-cut partitions, then repair and scheduling: Kernighan–Lin (networkx) and METIS (pymetis)."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline
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

    pymetis is not installed here, so this stands in for ParDNN's METIS
    baseline: the undirected graph (edge weight c_uv + 1) is split in two
    parts of ⌊K/2⌋ and ⌈K/2⌉ GPUs' worth of nodes (the initial split is a
    topological prefix, which KL's swaps then improve keeping the part
    sizes), recursively, until each part is one GPU. Balance is by node
    count (networkx's KL does not weigh nodes). Then units, overflow repair
    and list scheduling as every heuristic here.
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
