"""Whole-instance checks: the block graph is acyclic, and memory is balanced and never negative.

These are rules of the definition (docs/pipeline.md, "Instance rules"); each
failure is bad input, one `InvalidInstanceError` naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...core.errors import InvalidInstanceError

if TYPE_CHECKING:
    from .instance import Block, Edge


def check_acyclic(blocks: Sequence[Block], edges: Sequence[Edge]) -> None:
    """Refuse a block graph with a cycle, naming one."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(blocks)))
    graph.add_edges_from((edge.source, edge.target) for edge in edges)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return
    names = " -> ".join(blocks[u].name for u, _ in cycle) + f" -> {blocks[cycle[0][0]].name}"
    raise InvalidInstanceError("data.edges", f"the block graph has a cycle: {names}")


def check_memory_balance(blocks: Sequence[Block], devices: int) -> None:
    """Refuse a device whose memory deltas of one micro-batch do not sum to 0.

    What a micro-batch allocates on a device it must free there: otherwise the
    level grows with every micro-batch and no steady state exists.
    """
    total = [0] * devices
    for block in blocks:
        for device in block.devices:
            total[device] += block.memory
    for device, value in enumerate(total):
        if value != 0:
            raise InvalidInstanceError(
                "data.blocks",
                f"on device {device} the memory deltas of one micro-batch sum to {value}, not 0 "
                "(what a micro-batch allocates on a device it must free there)",
            )


def lowest_level(blocks: Sequence[Block], edges: Sequence[Edge], device: int) -> tuple[int, list[int]]:
    """The lowest level one micro-batch can leave on ``device``, and a set of blocks that leaves it.

    The blocks that have run at some instant form a predecessor-closed set (an
    ideal of the block graph); its level on ``device`` is the sum of the
    deltas of its blocks there. The minimum over ideals is a maximum-weight
    closure problem, solved as a minimum cut (Picard 1976): source -> v with
    capacity -delta_v when delta_v < 0, v -> sink with capacity delta_v when
    delta_v > 0, and v -> u of infinite capacity for every edge u -> v (v in
    the set forces u in it). The source side of a minimum cut is a lowest ideal.
    """
    import networkx as nx

    weights = {b: block.memory for b, block in enumerate(blocks) if device in block.devices and block.memory}
    if not any(value < 0 for value in weights.values()):
        return 0, []
    graph = nx.DiGraph()
    graph.add_nodes_from(["source", "sink"])
    for b, value in weights.items():
        if value < 0:
            graph.add_edge("source", b, capacity=-value)
        else:
            graph.add_edge(b, "sink", capacity=value)
    for edge in edges:
        graph.add_edge(edge.target, edge.source)  # no capacity attribute: infinite
    gain = -sum(value for value in weights.values() if value < 0)
    cut, (source_side, _) = nx.minimum_cut(graph, "source", "sink")
    ideal = sorted(b for b in source_side if b != "source")
    return -(gain - cut), ideal


def check_levels_nonnegative(blocks: Sequence[Block], edges: Sequence[Edge], devices: int) -> None:
    """Refuse an instance in which some blocks could run before the allocations they free.

    Rule: every predecessor-closed set of blocks (what may have run at some
    instant) leaves a level >= 0 on every device. A block that frees memory
    must therefore come, through the edges, after blocks that allocated it.
    """
    for device in range(devices):
        level, ideal = lowest_level(blocks, edges, device)
        if level < 0:
            names = ", ".join(blocks[b].name for b in ideal[:8]) + (", ..." if len(ideal) > 8 else "")
            raise InvalidInstanceError(
                "data.edges",
                f"on device {device} the blocks {{{names}}} may run before any other block and leave the level at "
                f"{level} < 0: a block that frees memory must depend (through the edges) on the blocks that "
                "allocate it",
            )
