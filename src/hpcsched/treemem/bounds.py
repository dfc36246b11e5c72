"""Lower bounds on the optimal peak memory of a sequential traversal.

`memreq`: every node runs once, and while node i runs the outputs of all
its predecessors (not yet consumed by i) and its own n_i and f_i are held, so
every traversal reaches ``MemReq(i) = Σ_{p ∈ pred(i)} f_p + n_i + f_i`` at
i's step: the peak is at least ``max_i MemReq(i)``.

The DP's frontier bound (``formulations.dp`` on a time
limit) is the strongest bound shipped for DAGs; for in-trees Liu's algorithm
gives the optimum itself (``special_cases.tree_optimum``).
"""

from __future__ import annotations

from .model import Instance
from .simulate import Graph


def memreq(instance: Instance) -> int:
    """``max_i MemReq(i)`` (see the module docstring for the proof)."""
    graph = Graph.of(instance)
    return max(graph.memreq(i) for i in range(graph.n))


def best(instance: Instance) -> float:
    """The best cheap proven lower bound (`memreq`)."""
    return float(memreq(instance))
