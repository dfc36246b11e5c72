"""Phase order of a preemptive LP solution (`order_phases`; see `special_cases` for the theorem).

The LP's phases, in any order, are a schedule of the same makespan; ordering
them so that each kernel's phases are consecutive removes its preemptions.
That is possible for every kernel exactly when each component of the support
graph is a caterpillar, and then `order_phases` finds such an order.
"""

from __future__ import annotations

import networkx as nx

#: A phase of a preemptive schedule: the kernels that run in it (one or two) and its length.
Phase = tuple[tuple[int, ...], float]


def order_phases(
    solo_times: dict[int, float],
    pair_times: dict[tuple[int, int], float],
    n: int,
    *,
    tries: int = 6,
    improve_limit: int = 300,
) -> list[Phase]:
    """Order LP phases so each kernel's phases are as consecutive as possible (see module doc).

    Each component is ordered from the spanning trees of up to ``tries``
    breadth-first roots; the order with the fewest preemptions is kept, then
    (components of at most ``improve_limit`` phases) improved by moving single
    phases next to another phase of one of their kernels.
    """
    graph = nx.Graph()
    for i in range(n):
        graph.add_node(("k", i))
    for (a, b), t in pair_times.items():
        graph.add_edge(("k", a), ("k", b), phase=((a, b), t))
    for i, t in solo_times.items():
        graph.add_edge(("k", i), ("s", i), phase=((i,), t))
    sequence: list[Phase] = []
    for component in sorted(nx.connected_components(graph), key=min):
        sub = graph.subgraph(component)
        if sub.number_of_edges() == 0:
            continue
        nodes = sorted(component)
        roots = nodes[:: max(1, len(nodes) // tries)][:tries]
        blocks = [_component_order(sub, root) for root in roots]
        best = min(blocks, key=_preemptions_of)
        if _preemptions_of(best) > 0 and len(best) <= improve_limit:
            best = _improve_order(best)
        sequence += best
    return sequence


def _improve_order(block: list[Phase], passes: int = 3) -> list[Phase]:
    """Move single phases next to another phase of one of their kernels while that removes preemptions.

    Any order of the phases is a schedule of the same makespan, so this local
    search only trades preemptions.
    """
    current = _preemptions_of(block)
    for _ in range(passes):
        improved = False
        for position in range(len(block)):
            phase = block[position]
            rest = block[:position] + block[position + 1 :]
            targets = {q + offset for q, (ks, _) in enumerate(rest) if set(ks) & set(phase[0]) for offset in (0, 1)}
            for target in sorted(targets):
                candidate = [*rest[:target], phase, *rest[target:]]
                value = _preemptions_of(candidate)
                if value < current:
                    block, current, improved = candidate, value, True
                    break
            if current == 0:
                return block
        if not improved:
            break
    return block


def _preemptions_of(phases: list[Phase]) -> int:
    last_seen: dict[int, int] = {}
    preemptions = 0
    for position, (kernels, _) in enumerate(phases):
        for k in kernels:
            if k in last_seen and last_seen[k] != position - 1:
                preemptions += 1
            last_seen[k] = position
    return preemptions


def _component_order(sub: nx.Graph, root) -> list[Phase]:
    tree = nx.bfs_tree(sub, root).to_undirected()
    spine = _longest_path(tree)
    on_spine = set(spine)
    block: list[Phase] = []

    def branch(child, parent):
        # Phases of the subtree hanging from ``child`` (post-order, iteratively: trees can be deep),
        # each node's edge to its parent right after its own subtree.
        out, stack = [], [(child, parent, False)]
        while stack:
            node, up, expanded = stack.pop()
            if expanded:
                out.append(sub.edges[node, up]["phase"])
                continue
            stack.append((node, up, True))
            for below in sorted(tree.neighbors(node), reverse=True):
                if below != up:
                    stack.append((below, node, False))
        return out

    for position, node in enumerate(spine):
        if position > 0:
            block.append(sub.edges[spine[position - 1], node]["phase"])
        for other in sorted(tree.neighbors(node)):
            if other not in on_spine:
                block += branch(other, node)
    for u, v in sub.edges():
        if tree.has_edge(u, v):
            continue
        phase = sub.edges[u, v]["phase"]
        options = []
        for kernel in phase[0]:
            last = max((k for k, (ks, _) in enumerate(block) if kernel in ks), default=len(block) - 1)
            options.append([*block[: last + 1], phase, *block[last + 1 :]])
        block = min(options, key=_preemptions_of)
    return block


def _longest_path(tree: nx.Graph) -> list:
    """A longest path of a tree (two breadth-first sweeps)."""
    start = next(iter(sorted(tree.nodes)))
    far = max(nx.single_source_shortest_path_length(tree, start).items(), key=lambda kv: (kv[1], kv[0]))[0]
    paths = nx.single_source_shortest_path(tree, far)
    other = max(paths, key=lambda node: (len(paths[node]), node))
    return paths[other]
