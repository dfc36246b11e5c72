"""Polynomial special cases: tasks of equal duration.

Objective 1 (makespan, local only), equal durations ``p``
    Theorem (flow formulation): a local assignment with every server load at
    most ``T`` tasks exists iff the network source -(1)-> task -(1)-> replica
    server -(T)-> sink carries n units (integrality of max-flow). The optimum
    is ``p * T*`` for the smallest such ``T``.

    Theorem (Harvey, Ladner, Lovasz, Tamir 2006): an *optimal semi-matching*
    (tasks to replica servers) minimizes ``sum_i f(load_i)`` for every
    strictly convex ``f`` at once, hence every L_p norm of the load vector,
    L_inf included: its largest load is ``T*``. It is the min-cost flow of
    source -(1)-> task -(1)-> replica server -> sink where the k-th unit
    into server i costs k (convex costs as parallel unit arcs, k = 1..T*
    suffice since the optimum has largest load T*): the cost is
    ``sum_i load_i (load_i + 1) / 2 = (sum_i load_i^2 + n) / 2``.
    Three implementations of the makespan, one of the semi-matching:

    * `semi_matching` — the default, and a true optimal semi-matching. First
      `semi_matching_assignment` (optimal largest load ``T*``, below); if its
      loads differ by at most one the assignment is already an optimal
      semi-matching (such a load vector is majorized by every integer vector
      with the same sum, so it minimizes every convex sum: no flow needed,
      the usual case for random replicas with r >= 2); otherwise
      `optimal_semi_matching_assignment` solves the min-cost flow above with
      OR-Tools' C++ ``SimpleMinCostFlow``, tasks with the same replica set
      merged into one node (slower: ~30 s at n = 10^6).
    * `semi_matching_assignment` — optimal largest load only (not balanced
      below it). A vectorized push-relabel on the
      *server* graph: start from a batched power-of-r-choices assignment, then move tasks from
      overloaded servers along shortest residual paths (arc a -> b for every
      task on a with a replica on b) computed by a global BFS from the
      servers below ``T``. When some overloaded server cannot reach a server
      below ``T``, every task *on* the unreachable set ``S`` has all its
      replicas in ``S``, so ``ceil(load(S)/|S|)`` is a proven lower bound
      (Hall) larger than ``T``; ``T`` jumps to it and the search goes on.
      The final ``T`` is both achieved and proven, hence optimal. For
      n >= 200 000 the search first lets only a sample of the tasks move
      (every 8th); a stuck sample proves nothing, so the sample doubles, up
      to all tasks. Memory is O(n r) integers, no per-arc Python object.
    * `unit_flow` — the generic network solved by OR-Tools' C++
      ``SimpleMaxFlow`` (arrays in, arrays out), smallest ``T`` found by
      trying the lower bound, then bisection. The cross-check at scale.
    * `unit_flow_networkx` — the same network in networkx (small instances).

Objective 2 (communication, no idle), equal durations, ``remote_cost = 0``
    With equal durations and no remote penalty, the no-idle rule
    ``max start <= min completion`` holds iff server task counts differ by at
    most one, i.e. every server runs ``q = floor(n/m)`` tasks and
    ``rho = n mod m`` of them one more. The largest number of local tasks is
    the max-flow of source -(1)-> task -(1)-> replica -> server with
    server -(q)-> sink and server -(1)-> extra -(rho)-> sink (the extra node
    lets the flow choose which servers get the ``q+1``-th task). The optimal
    non-local count is ``n - maxflow`` (`quota_flow`). With ``remote_cost > 0``
    a remote task is longer and the equivalence breaks: NOT_APPLICABLE.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..core.result import Result, Status
from .model import Instance, Solution

NAME = "locality"
_INFINITE_LABEL = np.iinfo(np.int32).max


def equal_duration(instance: Instance) -> int | None:
    """The common duration when all tasks have the same one, else None."""
    first = int(instance.durations[0])
    return first if bool(np.all(instance.durations == first)) else None


def _ortools_version() -> str:
    import ortools

    return f"ortools-maxflow {ortools.__version__}"


def _not_applicable(method: str, why: str) -> Result:
    return Result(NAME, method, Status.NOT_APPLICABLE, notes=(why,))


def _padded_replicas(instance: Instance) -> np.ndarray:
    """n x r replica matrix with missing slots pointing to a sentinel server m."""
    matrix = instance.replica_matrix()
    if np.any(matrix < 0):
        matrix = np.where(matrix < 0, instance.servers, matrix)
    return matrix


# --------------------------------------------------------- semi-matching
def semi_matching_assignment(instance: Instance, *, seed: int = 0, movable_fraction: float | None = None,
                             max_phases: int = 100_000) -> tuple[int, np.ndarray, dict[str, Any]]:
    """Local assignment of equal-duration tasks with the optimal largest task count ``T*``.

    Only the largest count is optimized: servers below ``T*`` are not
    balanced among themselves, so this is *not* an optimal semi-matching in
    general (`optimal_semi_matching_assignment` is).

    After the batched start only a small share of the tasks must move, so the
    augmenting phase first works on a *sample* of movable tasks (every k-th
    task; the others keep their start server). If the sample reaches the
    lower bound ``ceil(n/m)``, the assignment is optimal; if it gets stuck,
    the sample doubles, up to all tasks, where a stuck search is a proven
    Hall violation that raises ``T``. ``movable_fraction`` (default 1/8 for
    n >= 200 000, else 1) sets the first sample.

    Returns
    -------
    (T, server_of_task, stats)
        ``T`` is the smallest achievable largest task count per server (a
        proven optimum), ``server_of_task`` an int32 array achieving it.
    """
    m, n = instance.servers, instance.num_tasks
    replicas = _padded_replicas(instance)  # sentinel m for missing slots
    rng = np.random.default_rng(seed)
    server_of_task, loads = batched_least_loaded_start(replicas, m)
    target = max(math.ceil(n / m), 1)
    stats = {"phases": 0, "rounds": 0, "moves": 0, "bfs_levels": 0, "hall_jumps": 0, "samples": 0}
    if movable_fraction is None:
        movable_fraction = 0.125 if n >= 200_000 else 1.0
    step = max(1, int(round(1.0 / movable_fraction)))
    while True:
        stats["samples"] += 1
        if step > 1:
            movable = np.arange(int(rng.integers(step)), n, step)
            sample = server_of_task[movable]
            columns = [np.ascontiguousarray(replicas[movable, k]) for k in range(replicas.shape[1])]
        else:
            movable, sample = None, server_of_task
            # Column copies: gathers over contiguous columns OR-ed together
            # are far faster than numpy's any(axis=1) over a short axis.
            columns = [np.ascontiguousarray(replicas[:, k]) for k in range(replicas.shape[1])]
        reached = _push_relabel(columns, sample, loads, target, rng, stats, prove=step == 1, max_phases=max_phases)
        if movable is not None:
            server_of_task[movable] = sample  # moves made so far are kept: loads stay consistent
        if reached is not None:
            return reached, server_of_task, stats
        step //= 2


def _push_relabel(columns: list[np.ndarray], server_of_task: np.ndarray, loads: np.ndarray, target: int,
                  rng: np.random.Generator, stats: dict[str, int], *, prove: bool, max_phases: int) -> int | None:
    """Move the given tasks until every load is <= target; returns the final target.

    ``loads`` (all m servers, including tasks not in ``columns``) and
    ``server_of_task`` are updated in place. With ``prove`` (all tasks are
    movable) a stuck search raises the target by the Hall bound of the
    unreachable servers; without it, a stuck search returns None.
    """
    m = loads.size
    options_matrix_width = len(columns)
    labels = np.empty(m + 1, dtype=np.int32)
    big = np.iinfo(np.int64).max // 4
    for _ in range(max_phases):
        overloaded = loads > target
        if not overloaded.any():
            return target
        stats["phases"] += 1
        # Global relabel: BFS distance (in task moves) to a server below target.
        labels.fill(_INFINITE_LABEL)
        frontier = np.zeros(m + 1, dtype=bool)
        frontier[:m] = loads < target
        labels[:m][frontier[:m]] = 0
        level = 0
        missing = np.count_nonzero(overloaded)
        while missing and frontier.any():
            stats["bfs_levels"] += 1
            touches = frontier[columns[0]]
            for column in columns[1:]:
                touches |= frontier[column]
            reached = np.zeros(m + 1, dtype=bool)
            reached[server_of_task[touches]] = True
            reached &= labels == _INFINITE_LABEL
            level += 1
            labels[reached] = level
            missing -= np.count_nonzero(reached[:m] & overloaded)
            frontier = reached
        if missing:
            if not prove:
                return None
            # Hall violation: S = unlabeled servers, all at load >= target,
            # one above; every task on S has all its replicas in S.
            unreachable = labels[:m] == _INFINITE_LABEL
            target = max(target + 1, math.ceil(loads[unreachable].sum() / np.count_nonzero(unreachable)))
            stats["hall_jumps"] += 1
            continue
        # Pushes along admissible arcs (label drops by one) until stuck. A
        # label-0 server stops being admissible once full (its label is
        # stale), and each task picks a random admissible replica so that
        # the pushes of one round spread over the free servers.
        while True:
            excess = loads - target
            active = (excess > 0) & (labels[:m] > 0) & (labels[:m] < _INFINITE_LABEL)
            if not active.any():
                break
            candidates = np.flatnonzero(active[server_of_task])
            source = server_of_task[candidates]
            options = np.empty((candidates.size, options_matrix_width), dtype=columns[0].dtype)
            for k, column in enumerate(columns):
                options[:, k] = column[candidates]
            open_server = np.ones(m + 1, dtype=bool)
            open_server[:m] = (labels[:m] > 0) | (loads < target)
            admissible = (labels[options] == (labels[source] - 1)[:, None]) & open_server[options]
            usable = admissible.any(axis=1)
            if not usable.any():
                break
            candidates, source, options, admissible = candidates[usable], source[usable], options[usable], admissible[usable]
            pick = np.argmax(admissible * rng.random(admissible.shape), axis=1)
            destination = options[np.arange(candidates.size), pick]
            # Random order within each source, then at most its excess.
            shuffle = rng.permutation(candidates.size)
            candidates, source, destination = candidates[shuffle], source[shuffle], destination[shuffle]
            keep = _rank_within(source) < excess[source]
            candidates, source, destination = candidates[keep], source[keep], destination[keep]
            # A server below target takes no more than its spare room; a
            # server at target takes any number and pushes them on next round.
            room = np.where(labels[:m] == 0, target - loads, big)
            keep = _rank_within(destination) < room[destination]
            candidates, source, destination = candidates[keep], source[keep], destination[keep]
            if candidates.size == 0:
                break
            server_of_task[candidates] = destination
            loads -= np.bincount(source, minlength=m)
            loads += np.bincount(destination, minlength=m)
            stats["rounds"] += 1
            stats["moves"] += int(candidates.size)
    raise RuntimeError("semi-matching did not converge")  # pragma: no cover - a safety net


def batched_least_loaded_start(replicas: np.ndarray, m: int, batch: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Power-of-r-choices in vectorized batches: each batch of tasks picks the
    least-loaded replica given the loads after the previous batches.

    With batches of m/4 tasks the excess over ceil(n/m) left for the
    augmenting phase is a few tenths of a percent of n (it is what makes
    10^7 tasks fast). ``replicas`` may use the sentinel server ``m``.
    Returns (int32 server of each task, int64 loads of the m servers).
    """
    n = replicas.shape[0]
    batch = batch or max(1, m // 4)
    loads = np.zeros(m + 1, dtype=np.int64)
    loads[m] = np.iinfo(np.int64).max // 2  # never pick the sentinel
    server_of_task = np.empty(n, dtype=np.int32)
    for start in range(0, n, batch):
        block = replicas[start : start + batch]
        picked = block[np.arange(block.shape[0]), np.argmin(loads[block], axis=1)]
        server_of_task[start : start + batch] = picked
        loads += np.bincount(picked, minlength=m + 1)
    return server_of_task, loads[:m].copy()


def _rank_within(groups: np.ndarray) -> np.ndarray:
    """Position of each element among the elements of the same group (stable)."""
    order = np.argsort(groups, kind="stable")
    sorted_groups = groups[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_groups[1:] != sorted_groups[:-1])))
    run_lengths = np.diff(np.concatenate((starts, [groups.size])))
    ranks_sorted = np.arange(groups.size) - np.repeat(starts, run_lengths)
    ranks = np.empty(groups.size, dtype=np.int64)
    ranks[order] = ranks_sorted
    return ranks


def optimal_semi_matching_assignment(instance: Instance, *, seed: int = 0) -> tuple[int, np.ndarray, dict[str, Any]]:
    """An optimal semi-matching of the tasks to their replica servers (Harvey et al. 2006).

    Minimizes the sum of squared task counts per server, hence every L_p
    norm of the counts and the largest count (see the module docstring).
    `semi_matching_assignment` gives the optimal largest count ``T*``; when
    its counts differ by at most one it is returned as is, else the min-cost
    flow with unit arcs of cost k = 1..T* per server is solved.

    Returns
    -------
    (T, server_of_task, stats)
        ``T = T*``, the largest count; ``server_of_task`` an int64 array;
        ``stats`` as `semi_matching_assignment`'s, plus ``"balancing"``.
    """
    m = instance.servers
    target, server_of_task, stats = semi_matching_assignment(instance, seed=seed)
    counts = np.bincount(server_of_task, minlength=m)
    if int(counts.max()) - int(counts.min()) <= 1:
        stats["balancing"] = "none (counts differ by at most 1)"
        return target, server_of_task.astype(np.int64), stats
    server_of_task, arcs = _min_cost_semi_matching(instance, target)
    stats["balancing"] = f"min-cost flow ({arcs} arcs)"
    return target, server_of_task, stats


def _min_cost_semi_matching(instance: Instance, target: int) -> tuple[np.ndarray, int]:
    """The min-cost flow of the module docstring (OR-Tools); returns (server of each task, arc count)."""
    from ortools.graph.python import min_cost_flow

    n, m = instance.num_tasks, instance.servers
    # Tasks with the same replica set are interchangeable: one node per set.
    matrix = np.sort(instance.replica_matrix(), axis=1)  # -1 pads a shorter set
    sets, group_of_task, group_size = np.unique(matrix, axis=0, return_inverse=True, return_counts=True)
    group_of_task = group_of_task.reshape(-1)
    groups = sets.shape[0]
    group_of_entry = np.repeat(np.arange(groups, dtype=np.int32), sets.shape[1])
    server_of_entry = sets.reshape(-1)
    real = server_of_entry >= 0
    group_of_entry, server_of_entry = group_of_entry[real], server_of_entry[real].astype(np.int64)
    # Server i receives at most min(T*, number of tasks listing i) units: one arc of cost k per slot k.
    degree = np.bincount(server_of_entry, weights=group_size[group_of_entry], minlength=m).astype(np.int64)
    slots = np.minimum(degree, target)
    slot_server = np.repeat(np.arange(m, dtype=np.int64), slots)
    slot_cost = np.arange(slot_server.size, dtype=np.int64) - np.repeat(np.cumsum(slots) - slots, slots) + 1
    sink = groups + m
    flow = min_cost_flow.SimpleMinCostFlow()
    entry_arcs = np.asarray(flow.add_arcs_with_capacity_and_unit_cost(
        group_of_entry, (server_of_entry + groups).astype(np.int32), group_size[group_of_entry].astype(np.int64),
        np.zeros(group_of_entry.size, dtype=np.int64)))
    flow.add_arcs_with_capacity_and_unit_cost(
        (slot_server + groups).astype(np.int32), np.full(slot_server.size, sink, dtype=np.int32),
        np.ones(slot_server.size, dtype=np.int64), slot_cost)
    flow.set_nodes_supplies(np.arange(groups + m + 1, dtype=np.int32),
                            np.concatenate((group_size, np.zeros(m, dtype=np.int64), [-n])).astype(np.int64))
    status = flow.solve()
    if status != flow.OPTIMAL:  # pragma: no cover - T* slots per server admit the flow
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    sent = np.asarray(flow.flows(entry_arcs), dtype=np.int64)
    # Entries are group-major, so the repeated servers line up with the tasks sorted by group.
    server_of_task = np.empty(n, dtype=np.int64)
    server_of_task[np.argsort(group_of_task, kind="stable")] = np.repeat(server_of_entry, sent)
    return server_of_task, int(entry_arcs.size + slot_server.size)


def _min_cost_flow_version() -> str:
    import ortools

    return f"ortools-mincostflow {ortools.__version__}"


def semi_matching(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Optimal semi-matching for equal durations: optimal makespan, and every L_p norm of the loads minimal."""
    if instance.objective != "makespan":
        return _not_applicable("semi-matching", "objective 1 (makespan) only; use quota-flow for objective 2")
    duration = equal_duration(instance)
    if duration is None:
        return _not_applicable("semi-matching", "tasks have different durations (NP-hard case)")
    started = time.perf_counter()
    target, server_of_task, stats = optimal_semi_matching_assignment(instance, seed=seed)
    solution = Solution.from_assignment(server_of_task, instance.servers)
    notes = (
        f"max tasks per server {target} (proven by a Hall set or the n/m bound); "
        + ", ".join(f"{key} {value}" for key, value in stats.items()),
    )
    solver = _min_cost_flow_version() if str(stats["balancing"]).startswith("min-cost") else None
    return Result(NAME, "semi-matching", Status.OPTIMAL, objective=float(duration * target), bound=float(duration * target),
                  runtime_s=time.perf_counter() - started, solution=solution, notes=notes, solver=solver)


# ------------------------------------------------------ OR-Tools max-flow
class _UnitNetwork:
    """source -> task (1) -> replica server (1) -> sink (T), as numpy arrays in OR-Tools."""

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

    def max_flow(self, capacity: int) -> int:
        self.flow.set_arcs_capacity(self.sink_arcs, np.full(self.m, capacity, dtype=np.int64))
        status = self.flow.solve(self.source, self.sink)
        if status != self.flow.OPTIMAL:  # pragma: no cover
            raise RuntimeError(f"OR-Tools max-flow failed with status {status}")
        self.last_capacity, self.last_value = capacity, int(self.flow.optimal_flow())
        return self.last_value

    def assignment(self) -> np.ndarray:
        used = np.asarray(self.flow.flows(self.replica_arcs)) > 0
        return self.replica_servers[used].astype(np.int64)  # CSR order: one entry per task, by task


def _greedy_upper_bound(instance: Instance) -> int:
    """Largest count when each task goes to its least-listed replica (an achievable T)."""
    replicas = _padded_replicas(instance)
    degree = np.bincount(replicas.ravel(), minlength=instance.servers + 1)
    degree[instance.servers] = np.iinfo(np.int64).max
    chosen = replicas[np.arange(instance.num_tasks), np.argmin(degree[replicas], axis=1)]
    return int(np.bincount(chosen, minlength=instance.servers).max())


def smallest_capacity(feasible, low: int, high: int) -> tuple[int, int]:
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


def unit_flow(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Optimal makespan for equal durations: OR-Tools C++ max-flow, smallest T by bisection."""
    if instance.objective != "makespan":
        return _not_applicable("unit-flow", "objective 1 (makespan) only; use quota-flow for objective 2")
    duration = equal_duration(instance)
    if duration is None:
        return _not_applicable("unit-flow", "tasks have different durations (NP-hard case)")
    started = time.perf_counter()
    network = _UnitNetwork(instance)
    n, m = instance.num_tasks, instance.servers
    low = max(math.ceil(n / m), 1)
    high = _greedy_upper_bound(instance)
    target, solves = smallest_capacity(lambda capacity: network.max_flow(capacity) == n, low, high)
    if getattr(network, "last_capacity", None) != target:  # the flow in memory must be the one at T
        solves += 1
        if network.max_flow(target) != n:  # pragma: no cover - the bisection ends on a feasible T
            raise RuntimeError("max-flow bisection ended on an infeasible capacity")
    solution = Solution.from_assignment(network.assignment(), m)
    return Result(NAME, "unit-flow", Status.OPTIMAL, objective=float(duration * target), bound=float(duration * target),
                  runtime_s=time.perf_counter() - started, solution=solution,
                  notes=(f"max tasks per server {target}; {solves} max-flow solves",), solver=_ortools_version())


def unit_flow_networkx(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, max_tasks: int = 20_000, **options: Any
) -> Result:
    """The same flow in networkx (cross-check for small instances)."""
    import networkx as nx

    if instance.objective != "makespan":
        return _not_applicable("unit-flow-networkx", "objective 1 (makespan) only")
    duration = equal_duration(instance)
    if duration is None:
        return _not_applicable("unit-flow-networkx", "tasks have different durations (NP-hard case)")
    limit = int(max_tasks)
    if instance.num_tasks > limit:
        return _not_applicable("unit-flow-networkx", f"more than {limit} tasks; use unit-flow or semi-matching")
    n, m = instance.num_tasks, instance.servers

    def solve(capacity: int):
        graph = nx.DiGraph()
        for j in range(n):
            graph.add_edge("s", ("t", j), capacity=1)
            for server in instance.replicas(j).tolist():
                graph.add_edge(("t", j), ("m", server), capacity=1)
        for server in range(m):
            graph.add_edge(("m", server), "z", capacity=capacity)
        return nx.maximum_flow(graph, "s", "z")

    low, high = max(math.ceil(n / m), 1), _greedy_upper_bound(instance)
    target, _ = smallest_capacity(lambda capacity: solve(capacity)[0] == n, low, high)
    value, flows = solve(target)
    server_of_task = np.empty(n, dtype=np.int64)
    for j in range(n):
        server_of_task[j] = next(node[1] for node, amount in flows[("t", j)].items() if amount > 0)
    return Result(NAME, "unit-flow-networkx", Status.OPTIMAL, objective=float(duration * target),
                  bound=float(duration * target), solution=Solution.from_assignment(server_of_task, m),
                  notes=(f"max tasks per server {target}",), solver=f"networkx {nx.__version__}")


# ------------------------------------------------------------ quota flow
def quota_flow_assignment(instance: Instance) -> tuple[int, np.ndarray]:
    """(largest number of local tasks, server of each task) under the quotas of the module docstring."""
    from ortools.graph.python import max_flow

    n, m = instance.num_tasks, instance.servers
    quota, extra = divmod(n, m)
    source, sink, spare = n + m, n + m + 1, n + m + 2
    flow = max_flow.SimpleMaxFlow()
    tasks = np.arange(n, dtype=np.int32)
    flow.add_arcs_with_capacity(np.full(n, source, dtype=np.int32), tasks, np.ones(n, dtype=np.int64))
    entry_task = np.repeat(tasks, instance.replica_counts)
    replica_arcs = np.asarray(flow.add_arcs_with_capacity(
        entry_task, (instance.replica_servers + n).astype(np.int32), np.ones(entry_task.size, dtype=np.int64)), dtype=np.int32)
    server_nodes = np.arange(n, n + m, dtype=np.int32)
    flow.add_arcs_with_capacity(server_nodes, np.full(m, sink, dtype=np.int32), np.full(m, quota, dtype=np.int64))
    extra_arcs = np.asarray(flow.add_arcs_with_capacity(server_nodes, np.full(m, spare, dtype=np.int32), np.ones(m, dtype=np.int64)), dtype=np.int32)
    flow.add_arcs_with_capacity(np.array([spare], dtype=np.int32), np.array([sink], dtype=np.int32), np.array([extra], dtype=np.int64))
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
    return local, server_of_task


def quota_flow(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Fewest non-local tasks for equal durations and remote_cost 0 (quota max-flow)."""
    if instance.objective != "communication":
        return _not_applicable("quota-flow", "objective 2 (communication) only")
    duration = equal_duration(instance)
    if duration is None:
        return _not_applicable("quota-flow", "tasks have different durations (NP-hard case)")
    if instance.remote_cost != 0:
        return _not_applicable("quota-flow", "remote_cost > 0: remote tasks are longer and quotas no longer equal no-idle")
    started = time.perf_counter()
    local, server_of_task = quota_flow_assignment(instance)
    nonlocal_count = instance.num_tasks - local
    return Result(NAME, "quota-flow", Status.OPTIMAL, objective=float(nonlocal_count), bound=float(nonlocal_count),
                  runtime_s=time.perf_counter() - started,
                  solution=Solution.from_assignment(server_of_task, instance.servers),
                  notes=(f"{local} local tasks (max-flow)",), solver=_ortools_version())
