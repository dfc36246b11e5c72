"""Lower bounds on the optimal peak memory of a sequential traversal.

`memreq`: every node runs once, and while node i runs the outputs of all
its predecessors (not yet consumed by i) and its own n_i and f_i are held, so
every traversal reaches ``MemReq(i) = Σ_{p ∈ pred(i)} f_p + n_i + f_i`` at
i's step: the peak is at least ``max_i MemReq(i)``.

The DP's frontier bound (``formulations.dp`` on a time
limit) is the strongest bound shipped for DAGs; for in-trees Liu's algorithm
gives the optimum itself (``special_cases.tree_optimum``).

Out-of-core (bytes written): `best` uses ``io_bounds.io_lower_bound``, proven
in ``io_bounds``.
"""

from __future__ import annotations

from .io_bounds import io_lower_bound
from .model import Instance
from .simulate import Graph


def memreq(instance: Instance) -> int:
    """``max_i MemReq(i)`` (see the module docstring for the proof)."""
    graph = Graph.of(instance)
    return max(graph.memreq(i) for i in range(graph.n))


def best(instance: Instance) -> float:
    """The best cheap proven lower bound on the question's objective.

    Sequential: `memreq` (peak memory); parallel: `parallel_lower_bound` (makespan); out-of-core:
    bytes written, `io_bounds.io_lower_bound` on in-forests (a best-first search over eviction sets
    with Liu's algorithm as the feasibility test, capped at ``io_bounds.DEFAULT_WORK`` / n nodes; at
    least max(0, P* − M), P* Liu's in-core optimum; the optimum itself when the search closes), 0 on
    other DAGs and on infeasible instances (see ``io_bounds`` for what holds on DAGs).
    """
    if instance.question == "parallel":
        return float(parallel_lower_bound(instance))
    if instance.question == "out-of-core":
        return io_lower_bound(instance)
    return float(memreq(instance))


def parallel_lower_bound(instance: Instance) -> int:
    """TOPC 2015 Lemma 1: the makespan is at least ⌈max(Σw/p, critical path, Σ_i m_i·w_i / M)⌉.

    Σw/p: p processors share the work. Critical path: a chain runs in
    sequence. Memory: while i runs it holds m_i, and the memory held at any
    instant is at most M, so ∫ memory ≥ Σ_i m_i·w_i and M·C ≥ ∫ memory. On an
    in-forest m_i = MemReq(i) (each output has one consumer, so the MemReqs
    of nodes running together count disjoint data); on a DAG an output may be
    shared by consumers running together, so only m_i = n_i + f_i is used.
    Makespans are integers (integer starts and times), hence the ceiling.
    """
    graph = Graph.of(instance)
    times = [node.time for node in instance.nodes]
    p = instance.processors or 1
    longest = [0] * graph.n
    order = _topological(graph)
    for i in reversed(order):
        longest[i] = times[i] + max((longest[s] for s in graph.successors[i]), default=0)
    tree = all(len(s) <= 1 for s in graph.successors)
    held = [graph.memreq(i) if tree else graph.step[i] for i in range(graph.n)]
    area = sum(h * w for h, w in zip(held, times, strict=False))
    memory = instance.memory or 0
    by_memory = -(-area // memory) if memory > 0 else 0
    return max(-(-sum(times) // p), max(longest), by_memory)


def _topological(graph: Graph) -> list[int]:
    missing = [len(p) for p in graph.predecessors]
    order = [i for i in range(graph.n) if missing[i] == 0]
    for i in order:  # grows while iterating
        for s in graph.successors[i]:
            missing[s] -= 1
            if missing[s] == 0:
                order.append(s)
    return order
