"""Seeded generators: training DAGs (forward/backward), random DAGs, chains."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...core.generation import AT_LEAST_ONE, NON_NEGATIVE, POSITIVE, PROBABILITY, check_size, checked, size
from ..model import Instance
from .options import MAX_GENERATED_NODES, int_option, memory_for, model_option, number_option

#: ``random`` draws one number per pair of nodes and keeps its edge probability as n grows (edges
#: ~ n^2): at most this many nodes and (expected) edges (docs/architecture.md "Generator sizes").
MAX_RANDOM_NODES, MAX_EDGES = 5_000, 1_000_000


@checked(n=size(MAX_GENERATED_NODES, "nodes", minimum=3), nodes=size(MAX_GENERATED_NODES, "nodes", minimum=3))
def generate_training(
    *,
    seed: int = 0,
    n: int | None = None,
    nodes: int = 200,
    gpus: int = 4,
    max_width: int = 4,
    memory_slack: float = 1.3,
    memory_model: str = "static",
    colocate: bool = True,
) -> Instance:
    """A forward/backward training DAG of about ``nodes`` nodes (forward layers, a loss, mirrored backward).

    Forward: layers of 1..``max_width`` nodes, each node fed by 1-2 nodes of
    the previous layer. Backward: one node per forward node (time 2x its
    forward time, as a backward pass costs about twice the forward), edges
    mirrored, and each forward node's activation feeding its backward node
    (the long-lived activations of training). Weights (persistent) on
    about half the forward nodes; output sizes random; transfer =
    ⌈output / 2^20⌉ (1 MiB per time unit). With ``colocate``, a forward
    node and its backward node share a group (as the real graphs'
    colorClass). M = ⌈``memory_slack`` x Σ(w + s) / K⌉.
    """
    nodes = int_option(nodes if n is None else n, "nodes" if n is None else "n", 3, MAX_GENERATED_NODES)
    gpus = int_option(gpus, "gpus", 1, 4096)
    max_width = int_option(max_width, "max_width", 1, 10**6)
    memory_slack = number_option(memory_slack, "memory_slack", 0.0, 1e6)
    memory_model = model_option(memory_model)
    rng = np.random.default_rng(seed)
    # the draws happen in this order (widths, forward data, parents): a fixed seed gives a fixed graph
    f = (nodes - 1) // 2  # forward nodes; then the loss and f backward nodes
    layers = _forward_layers(rng, f, max_width)
    forward_time = rng.integers(1, 101, size=f)
    weights = np.where(rng.random(f) < 0.5, rng.integers(1, 64, size=f) * 2**20, 0)
    outputs = rng.integers(1, 32, size=f) * 2**20
    edges = _with_backward_pass(_forward_edges(rng, layers), layers, f)
    n = 2 * f + 1
    time = [int(t) for t in forward_time] + [1] + [int(2 * t) for t in forward_time]
    persistent = [int(w) for w in weights] + [0] + [0] * f
    output = [int(s) for s in outputs] + [2**20] + [int(s) for s in outputs]
    group = [f"L{v}" for v in range(f)] + [None] + [f"L{v}" for v in range(f)] if colocate else None
    unique = sorted(set(edges))
    edge_list = [(u, v, math.ceil(output[u] / 2**20)) for u, v in unique]
    total = sum(persistent) + sum(output)
    names = [f"fwd{v}" for v in range(f)] + ["loss"] + [f"bwd{v}" for v in range(f)]
    return Instance.create(
        time,
        edge_list,
        gpus=gpus,
        memory=memory_for(total, gpus, memory_slack),
        persistent=persistent,
        output=output,
        group=group,
        memory_model=memory_model,
        names=names,
        name=f"training-n{n}-K{gpus}-s{seed}",
        time_unit=None,
        source={
            "generator": "training",
            "seed": seed,
            "parameters": {
                "nodes": nodes,
                "gpus": gpus,
                "max_width": max_width,
                "memory_slack": memory_slack,
                "memory_model": memory_model,
                "colocate": colocate,
            },
        },
    )


def _forward_layers(rng: np.random.Generator, forward_count: int, max_width: int) -> list[list[int]]:
    """Consecutive node indices 0..forward_count-1 cut into layers of 1..``max_width`` nodes."""
    widths, placed = [], 0
    while placed < forward_count:
        widths.append(min(int(rng.integers(1, max_width + 1)), forward_count - placed))
        placed += widths[-1]
    layers, next_id = [], 0
    for width in widths:
        layers.append(list(range(next_id, next_id + width)))
        next_id += width
    return layers


def _forward_edges(rng: np.random.Generator, layers: list[list[int]]) -> list[tuple[int, int]]:
    """Each node fed by 1-2 nodes of the previous layer; a node that feeds nothing feeds the next layer's first."""
    edges = []
    for previous, layer in itertools.pairwise(layers):
        for v in layer:
            parents = rng.choice(previous, size=min(len(previous), int(rng.integers(1, 3))), replace=False)
            for u in sorted(int(p) for p in parents):
                edges.append((u, v))
    # every node of a layer but the last must feed something: link orphans to the next layer's first node
    has_child = set(u for u, _ in edges)
    for previous, layer in itertools.pairwise(layers):
        for u in previous:
            if u not in has_child:
                edges.append((u, layer[0]))
    return edges


def _with_backward_pass(edges: list[tuple[int, int]], layers: list[list[int]], f: int) -> list[tuple[int, int]]:
    """The forward edges plus the loss (node f), the mirrored backward edges (backward of v is f + 1 + v) and each
    forward node's activation feeding its backward node."""
    loss = f
    backward = [f + 1 + v for v in range(f)]
    edges = list(edges)
    edges += [(u, loss) for u in layers[-1]]
    edges += [(loss, backward[u]) for u in layers[-1]]
    edges += [(backward[v], backward[u]) for u, v in list(edges) if u < f and v < f]
    edges += [(v, backward[v]) for v in range(f)]
    return edges


@checked(
    n=size(MAX_RANDOM_NODES, "nodes"),
    nodes=size(MAX_RANDOM_NODES, "nodes"),
    edge_probability=PROBABILITY,
    max_time=NON_NEGATIVE,
    max_transfer=NON_NEGATIVE,
    memory_slack=POSITIVE,
    groups=NON_NEGATIVE,
)
def generate_random(
    *,
    seed: int = 0,
    n: int | None = None,
    nodes: int = 6,
    gpus: int = 2,
    edge_probability: float = 0.3,
    max_time: int = 9,
    max_transfer: int = 5,
    memory_slack: float = 1.5,
    memory_model: str = "static",
    groups: int = 0,
) -> Instance:
    """A random DAG (edges u -> v with u < v, each with ``edge_probability``), small integer data.

    Memory sizes in 1..9 bytes (w) and 0..5 (s); M = ⌈``memory_slack`` x
    Σ(w + s) / K⌉, at least the largest node; ``groups`` > 0 puts the first
    2·groups nodes in pairs.
    """
    nodes = int_option(nodes if n is None else n, "nodes" if n is None else "n", 1, MAX_RANDOM_NODES)
    gpus = int_option(gpus, "gpus", 1, 4096)
    # The edge loop draws one number per pair (edges ~ nodes^2 at a fixed probability): refuse its size first.
    expected_edges = round(nodes * (nodes - 1) / 2 * edge_probability)
    check_size(
        "nodes" if n is None else "n", expected_edges, MAX_EDGES, "edges", f"nodes(nodes-1)/2 x {edge_probability:g}"
    )
    rng = np.random.default_rng(seed)
    time = [int(t) for t in rng.integers(0, max_time + 1, size=nodes)]
    persistent = [int(w) for w in rng.integers(1, 10, size=nodes)]
    output = [int(s) for s in rng.integers(0, 6, size=nodes)]
    edges = [
        (u, v, int(rng.integers(0, max_transfer + 1)))
        for u in range(nodes)
        for v in range(u + 1, nodes)
        if rng.random() < edge_probability
    ]
    group = [f"g{i // 2}" if i < 2 * groups else None for i in range(nodes)]
    total = sum(persistent) + sum(output)
    memory = max(
        max(w + s for w, s in zip(persistent, output, strict=False)) * (2 if groups else 1),
        memory_for(total, gpus, memory_slack),
    )
    return Instance.create(
        time,
        edges,
        gpus=gpus,
        memory=memory,
        persistent=persistent,
        output=output,
        group=group,
        memory_model=model_option(memory_model),
        name=f"random-n{nodes}-K{gpus}-s{seed}",
        source={
            "generator": "random",
            "seed": seed,
            "parameters": {
                "nodes": nodes,
                "gpus": gpus,
                "edge_probability": edge_probability,
                "max_time": max_time,
                "max_transfer": max_transfer,
                "memory_slack": memory_slack,
                "memory_model": memory_model,
                "groups": groups,
            },
        },
    )


@checked(
    n=size(MAX_GENERATED_NODES, "nodes"),
    nodes=size(MAX_GENERATED_NODES, "nodes"),
    max_time=AT_LEAST_ONE,
    max_transfer=NON_NEGATIVE,
    memory_slack=POSITIVE,
)
def generate_chain(
    *,
    seed: int = 0,
    n: int | None = None,
    nodes: int = 12,
    gpus: int = 3,
    max_time: int = 20,
    max_transfer: int = 6,
    memory_slack: float = 1.2,
) -> Instance:
    """A layer chain v0 -> v1 -> ... with random times, weights and transfers (static memory)."""
    nodes = int_option(nodes if n is None else n, "nodes" if n is None else "n", 1, MAX_GENERATED_NODES)
    gpus = int_option(gpus, "gpus", 1, 4096)
    rng = np.random.default_rng(seed)
    time = [int(t) for t in rng.integers(1, max_time + 1, size=nodes)]
    persistent = [int(w) for w in rng.integers(1, 20, size=nodes)]
    edges = [(v, v + 1, int(rng.integers(0, max_transfer + 1))) for v in range(nodes - 1)]
    memory = max(max(persistent), memory_for(sum(persistent), gpus, memory_slack))
    return Instance.create(
        time,
        edges,
        gpus=gpus,
        memory=memory,
        persistent=persistent,
        name=f"chain-n{nodes}-K{gpus}-s{seed}",
        source={
            "generator": "chain",
            "seed": seed,
            "parameters": {
                "nodes": nodes,
                "gpus": gpus,
                "max_time": max_time,
                "max_transfer": max_transfer,
                "memory_slack": memory_slack,
            },
        },
    )
