"""Flow networks of equal-duration tasks: the unit network, the quota network, the capacity search.

The theorems behind them are in ``docs/locality.md`` (section "Special
cases"): a local assignment with at most ``T`` tasks per server exists iff
source -(1)-> task -(1)-> replica server -(T)-> sink carries n units; under
objective 2 with ``remote_cost = 0`` the largest number of local tasks is the
max-flow of the quota network. Everything here takes and returns numpy
arrays (OR-Tools' C++ flows, no Python object per arc).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..model import Instance


def equal_duration(instance: Instance) -> int | None:
    """The common duration when all tasks have the same one, else None."""
    first = int(instance.durations[0])
    return first if bool(np.all(instance.durations == first)) else None


def maxflow_version() -> str:
    """The name and version of the max-flow backend, for `Result.solver`."""
    # The distribution's metadata: ortools' own type information omits ``__version__``.
    from importlib.metadata import version as distribution_version

    return f"ortools-maxflow {distribution_version('ortools')}"


def padded_replicas(instance: Instance) -> np.ndarray:
    """n x r replica matrix with missing slots pointing to a sentinel server m."""
    matrix = instance.replica_matrix()
    if np.any(matrix < 0):
        matrix = np.where(matrix < 0, instance.servers, matrix)
    return matrix


class UnitNetwork:
    """source -> task (1) -> replica server (1) -> sink (T), as numpy arrays in OR-Tools.

    The network is built once; `max_flow` changes only the sink capacities.
    """

    def __init__(self, instance: Instance):
        from ortools.graph.python import max_flow

        n, m = instance.num_tasks, instance.servers
        self.n, self.m = n, m
        self.source, self.sink = n + m, n + m + 1
        self.flow = max_flow.SimpleMaxFlow()
        tasks = np.arange(n, dtype=np.int32)
        self.flow.add_arcs_with_capacity(np.full(n, self.source, dtype=np.int32), tasks, np.ones(n, dtype=np.int64))
        entry_task = np.repeat(tasks, instance.replica_counts)
        self.replica_arcs = np.asarray(
            self.flow.add_arcs_with_capacity(
                entry_task, (instance.replica_servers + n).astype(np.int32), np.ones(entry_task.size, dtype=np.int64)
            ),
            dtype=np.int32,
        )
        del entry_task
        self.sink_arcs = np.asarray(
            self.flow.add_arcs_with_capacity(
                np.arange(n, n + m, dtype=np.int32), np.full(m, self.sink, dtype=np.int32), np.zeros(m, dtype=np.int64)
            ),
            dtype=np.int32,
        )
        self.replica_servers = instance.replica_servers
        self.last_capacity: int | None = None

    def max_flow(self, capacity: int) -> int:
        """The max-flow value with every server -> sink arc at ``capacity``."""
        self.flow.set_arcs_capacity(self.sink_arcs, np.full(self.m, capacity, dtype=np.int64))
        status = self.flow.solve(self.source, self.sink)
        if status != self.flow.OPTIMAL:  # pragma: no cover
            raise RuntimeError(f"OR-Tools max-flow failed with status {status}")
        self.last_capacity = capacity
        return int(self.flow.optimal_flow())

    def assignment(self) -> np.ndarray:
        """The server of each task in the last flow solved (every task must have been routed)."""
        used = np.asarray(self.flow.flows(self.replica_arcs)) > 0
        return self.replica_servers[used].astype(np.int64)  # CSR order: one entry per task, by task


def greedy_upper_bound(instance: Instance) -> int:
    """Largest count when each task goes to its least-listed replica (an achievable T)."""
    replicas = padded_replicas(instance)
    degree = np.bincount(replicas.ravel(), minlength=instance.servers + 1)
    degree[instance.servers] = np.iinfo(np.int64).max
    chosen = replicas[np.arange(instance.num_tasks), np.argmin(degree[replicas], axis=1)]
    return int(np.bincount(chosen, minlength=instance.servers).max())


def smallest_capacity(feasible: Callable[[int], bool], low: int, high: int) -> tuple[int, int]:
    """Smallest T in [low, high] with ``feasible(T)`` (monotone), trying low and low+1 first.

    Returns (T, number of max-flow solves).
    """
    solves = 0
    for guess in (low, low + 1):
        if guess >= high:
            return high, solves
        solves += 1
        if feasible(guess):
            return guess, solves
        low = guess + 1
    while low < high:
        middle = (low + high) // 2
        solves += 1
        if feasible(middle):
            high = middle
        else:
            low = middle + 1
    return low, solves


@dataclass(frozen=True)
class UnitFlowAssignment:
    """The smallest largest task count ``target`` (proven), an assignment reaching it, and the max-flow solves."""

    target: int
    server_of_task: np.ndarray
    solves: int


def unit_flow_assignment(instance: Instance) -> UnitFlowAssignment:
    """Smallest ``T`` for which the unit network carries n units: ``ceil(n/m)``, then ``+1``, then bisection.

    The upper end is `greedy_upper_bound`, an achievable ``T``.
    """
    network = UnitNetwork(instance)
    n, m = instance.num_tasks, instance.servers
    low = max(math.ceil(n / m), 1)
    high = greedy_upper_bound(instance)
    target, solves = smallest_capacity(lambda capacity: network.max_flow(capacity) == n, low, high)
    if network.last_capacity != target:  # the flow in memory must be the one at T
        solves += 1
        if network.max_flow(target) != n:  # pragma: no cover - the bisection ends on a feasible T
            raise RuntimeError("max-flow bisection ended on an infeasible capacity")
    return UnitFlowAssignment(target, network.assignment(), solves)


@dataclass(frozen=True)
class QuotaAssignment:
    """The largest number of local tasks under the quotas, and an assignment reaching it."""

    local: int
    server_of_task: np.ndarray


def quota_flow_assignment(instance: Instance) -> QuotaAssignment:
    """Largest number of local tasks when every server runs ``floor(n/m)`` tasks and ``n mod m`` of them one more.

    The network: source -(1)-> task -(1)-> replica server, server -(q)-> sink
    and server -(1)-> extra -(rho)-> sink (the extra node lets the flow choose
    which servers get the ``q+1``-th task). Remote tasks fill the remaining
    quota slots.
    """
    from ortools.graph.python import max_flow

    n, m = instance.num_tasks, instance.servers
    quota, extra = divmod(n, m)
    source, sink, spare = n + m, n + m + 1, n + m + 2
    flow = max_flow.SimpleMaxFlow()
    tasks = np.arange(n, dtype=np.int32)
    flow.add_arcs_with_capacity(np.full(n, source, dtype=np.int32), tasks, np.ones(n, dtype=np.int64))
    entry_task = np.repeat(tasks, instance.replica_counts)
    replica_arcs = np.asarray(
        flow.add_arcs_with_capacity(
            entry_task, (instance.replica_servers + n).astype(np.int32), np.ones(entry_task.size, dtype=np.int64)
        ),
        dtype=np.int32,
    )
    server_nodes = np.arange(n, n + m, dtype=np.int32)
    flow.add_arcs_with_capacity(server_nodes, np.full(m, sink, dtype=np.int32), np.full(m, quota, dtype=np.int64))
    extra_arcs = np.asarray(
        flow.add_arcs_with_capacity(server_nodes, np.full(m, spare, dtype=np.int32), np.ones(m, dtype=np.int64)),
        dtype=np.int32,
    )
    flow.add_arcs_with_capacity(
        np.array([spare], dtype=np.int32), np.array([sink], dtype=np.int32), np.array([extra], dtype=np.int64)
    )
    if flow.solve(source, sink) != flow.OPTIMAL:  # pragma: no cover
        raise RuntimeError("OR-Tools max-flow failed")
    local = int(flow.optimal_flow())
    used = np.asarray(flow.flows(replica_arcs)) > 0
    server_of_task = np.full(n, -1, dtype=np.int64)
    server_of_task[entry_task[used]] = instance.replica_servers[used]
    # Quotas: servers whose extra arc carries flow already hold q+1; the
    # remaining rho - (used extras) "+1" slots go to other servers.
    capacity = np.full(m, quota, dtype=np.int64)
    has_extra = np.asarray(flow.flows(extra_arcs)) > 0
    capacity[has_extra] += 1
    free_extra = extra - int(has_extra.sum())
    if free_extra:
        capacity[np.flatnonzero(~has_extra)[:free_extra]] += 1
    room = capacity - np.bincount(server_of_task[server_of_task >= 0], minlength=m)
    remote_tasks = np.flatnonzero(server_of_task < 0)
    server_of_task[remote_tasks] = np.repeat(np.arange(m), room)  # room sums to the number of remote tasks
    return QuotaAssignment(local, server_of_task)
