"""Small random instances for the locality tests (independent of the generators)."""

from __future__ import annotations

import numpy as np

from hpcsched.locality import Instance


def random_instance(
    seed: int,
    *,
    n: int,
    m: int,
    r: int,
    unit: bool,
    objective: str = "makespan",
    remote_cost: int = 0,
    max_duration: int = 6,
    variable_r: bool = False,
) -> Instance:
    rng = np.random.default_rng(seed)
    replicas = []
    for _ in range(n):
        size = int(rng.integers(1, r + 1)) if variable_r else r
        replicas.append(sorted(rng.choice(m, size=min(size, m), replace=False).tolist()))
    durations = np.ones(n, dtype=np.int64) if unit else rng.integers(1, max_duration + 1, size=n)
    return Instance.create(
        m, durations, replicas, objective=objective, remote_cost=remote_cost, name=f"test-{seed}", source={"test": seed}
    )


def networkx_unit_optimum(instance: Instance) -> int:
    """The optimal makespan of an equal-duration instance from a plain networkx max-flow (a test oracle).

    The smallest T for which source -(1)-> task -(1)-> replica server -(T)-> sink
    carries every task, by trying T = ceil(n/m), ceil(n/m) + 1, ... (small
    instances only): independent of the OR-Tools networks and of the
    semi-matching it checks.
    """
    import math

    import networkx as nx

    n, m = instance.num_tasks, instance.servers
    durations = set(instance.durations.tolist())
    assert len(durations) == 1, "equal durations only"
    capacity = max(math.ceil(n / m), 1)
    while True:
        graph = nx.DiGraph()
        for j in range(n):
            graph.add_edge("s", ("t", j), capacity=1)
            for server in instance.replicas(j).tolist():
                graph.add_edge(("t", j), ("m", server), capacity=1)
        for server in range(m):
            graph.add_edge(("m", server), "z", capacity=capacity)
        if nx.maximum_flow_value(graph, "s", "z") == n:
            return durations.pop() * capacity
        capacity += 1
