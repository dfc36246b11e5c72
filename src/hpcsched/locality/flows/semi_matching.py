"""The optimal semi-matching of equal-duration tasks to their replica servers.

Two stages (the proofs are in ``docs/locality.md``, section "Special cases"):
`semi_matching_assignment` finds the optimal largest task count ``T*`` by a
vectorized push-relabel on the *server* graph, and
`optimal_semi_matching_assignment` balances the servers below ``T*`` (a
min-cost flow, only when the counts differ by more than one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..model import Instance
from .networks import padded_replicas

_INFINITE_LABEL = np.iinfo(np.int32).max
#: How `SemiMatching.balancing` starts when the min-cost flow ran.
MIN_COST_BALANCING = "min-cost flow"


@dataclass
class SearchStats:
    """Counters of the push-relabel search, reported in the method's notes."""

    phases: int = 0
    rounds: int = 0
    moves: int = 0
    bfs_levels: int = 0
    hall_jumps: int = 0
    samples: int = 0


@dataclass(frozen=True)
class SemiMatching:
    """A local assignment of equal-duration tasks whose largest task count ``target`` is optimal (proven).

    Attributes
    ----------
    target
        The smallest achievable largest number of tasks on one server, ``T*``.
    server_of_task
        The server of each task.
    stats
        What the push-relabel search did.
    balancing
        How the counts below ``T*`` were balanced ("" when they were not:
        `semi_matching_assignment` alone).
    """

    target: int
    server_of_task: np.ndarray
    stats: SearchStats = field(default_factory=SearchStats)
    balancing: str = ""

    def describe(self) -> str:
        """The counters and the balancing, as one line for the notes."""
        parts = [f"{name} {value}" for name, value in vars(self.stats).items()]
        if self.balancing:
            parts.append(f"balancing {self.balancing}")
        return ", ".join(parts)


def semi_matching_assignment(
    instance: Instance, *, seed: int = 0, movable_fraction: float | None = None, max_phases: int = 100_000
) -> SemiMatching:
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
    SemiMatching
        ``target`` is the smallest achievable largest task count per server
        (a proven optimum), ``server_of_task`` an int32 array achieving it.
    """
    m, n = instance.servers, instance.num_tasks
    replicas = padded_replicas(instance)  # sentinel m for missing slots
    rng = np.random.default_rng(seed)
    server_of_task, loads = batched_least_loaded_start(replicas, m)
    target = max(math.ceil(n / m), 1)
    stats = SearchStats()
    if movable_fraction is None:
        movable_fraction = 0.125 if n >= 200_000 else 1.0
    step = max(1, round(1.0 / movable_fraction))
    while True:
        stats.samples += 1
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
            return SemiMatching(reached, server_of_task, stats)
        step //= 2


def _push_relabel(
    columns: list[np.ndarray],
    server_of_task: np.ndarray,
    loads: np.ndarray,
    target: int,
    rng: np.random.Generator,
    stats: SearchStats,
    *,
    prove: bool,
    max_phases: int,
) -> int | None:
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
        stats.phases += 1
        # Global relabel: BFS distance (in task moves) to a server below target.
        labels.fill(_INFINITE_LABEL)
        frontier = np.zeros(m + 1, dtype=bool)
        frontier[:m] = loads < target
        labels[:m][frontier[:m]] = 0
        level = 0
        missing = np.count_nonzero(overloaded)
        while missing and frontier.any():
            stats.bfs_levels += 1
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
            stats.hall_jumps += 1
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
            candidates, source, options, admissible = (
                candidates[usable],
                source[usable],
                options[usable],
                admissible[usable],
            )
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
            stats.rounds += 1
            stats.moves += int(candidates.size)
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


def optimal_semi_matching_assignment(instance: Instance, *, seed: int = 0) -> SemiMatching:
    """An optimal semi-matching of the tasks to their replica servers (Harvey et al. 2006).

    Minimizes the sum of squared task counts per server, hence every L_p
    norm of the counts and the largest count (see ``docs/locality.md``).
    `semi_matching_assignment` gives the optimal largest count ``T*``; when
    its counts differ by at most one it is returned as is, else the min-cost
    flow with unit arcs of cost k = 1..T* per server is solved.

    Returns
    -------
    SemiMatching
        ``target = T*``, the largest count; ``server_of_task`` an int64
        array; ``balancing`` says whether the min-cost flow ran.
    """
    m = instance.servers
    found = semi_matching_assignment(instance, seed=seed)
    counts = np.bincount(found.server_of_task, minlength=m)
    if int(counts.max()) - int(counts.min()) <= 1:
        return SemiMatching(
            found.target, found.server_of_task.astype(np.int64), found.stats, "none (counts differ by at most 1)"
        )
    server_of_task, arcs = _min_cost_semi_matching(instance, found.target)
    return SemiMatching(found.target, server_of_task, found.stats, f"{MIN_COST_BALANCING} ({arcs} arcs)")


def _min_cost_semi_matching(instance: Instance, target: int) -> tuple[np.ndarray, int]:
    """The min-cost flow of ``docs/locality.md`` (OR-Tools); returns (server of each task, arc count)."""
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
    entry_arcs = np.asarray(
        flow.add_arcs_with_capacity_and_unit_cost(
            group_of_entry,
            (server_of_entry + groups).astype(np.int32),
            group_size[group_of_entry].astype(np.int64),
            np.zeros(group_of_entry.size, dtype=np.int64),
        )
    )
    flow.add_arcs_with_capacity_and_unit_cost(
        (slot_server + groups).astype(np.int32),
        np.full(slot_server.size, sink, dtype=np.int32),
        np.ones(slot_server.size, dtype=np.int64),
        slot_cost,
    )
    flow.set_nodes_supplies(
        np.arange(groups + m + 1, dtype=np.int32),
        np.concatenate((group_size, np.zeros(m, dtype=np.int64), [-n])).astype(np.int64),
    )
    status = flow.solve()
    if status != flow.OPTIMAL:  # pragma: no cover - T* slots per server admit the flow
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    sent = np.asarray(flow.flows(entry_arcs), dtype=np.int64)
    # Entries are group-major, so the repeated servers line up with the tasks sorted by group.
    server_of_task = np.empty(n, dtype=np.int64)
    server_of_task[np.argsort(group_of_task, kind="stable")] = np.repeat(server_of_entry, sent)
    return server_of_task, int(entry_arcs.size + slot_server.size)


def min_cost_flow_version() -> str:
    """The name and version of the min-cost flow backend, for `Result.solver`."""
    # The distribution's metadata: ortools' own type information omits ``__version__``.
    from importlib.metadata import version as distribution_version

    return f"ortools-mincostflow {distribution_version('ortools')}"
