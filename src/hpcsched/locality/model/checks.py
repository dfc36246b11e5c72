"""Checks of the fields of an `Instance`, one helper per field family, and the helpers instances and solutions share.

Every error names the field as it appears in an instance file (``data.tasks[3].replicas``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.fields import LARGEST_INTEGER, require_str


def frozen(array: np.ndarray) -> np.ndarray:
    """A read-only, contiguous view of ``array`` (instances and solutions are immutable)."""
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def default_name(index: int) -> str:
    """The name of task ``index`` when the file gives none."""
    return f"j{index}"


def _check_total_duration(durations: np.ndarray) -> int:
    """Refuse durations whose total exceeds 2^53 (`LARGEST_INTEGER`).

    Loads, bounds and flow capacities are sums of durations: in int64 (numpy,
    CP-SAT, OR-Tools flows) a larger total may overflow, in doubles (HiGHS) it
    is no longer exact. Names the first task at which the running total
    passes the limit. Returns the total.
    """
    too_large = np.flatnonzero(durations > LARGEST_INTEGER)
    if too_large.size:
        task = int(too_large[0])
        raise InvalidInstanceError(
            f"data.tasks[{task}].duration",
            f"magnitude must be at most 2^53 = {LARGEST_INTEGER}, got {float(durations[task]):.3g}",
        )
    # Chunks of 1023 durations <= 2^53 each sum exactly in int64 (1023 * 2^53 < 2^63).
    chunk = 1023
    starts = np.arange(0, durations.size, chunk)
    total = 0
    for start, chunk_sum in zip(starts.tolist(), np.add.reduceat(durations, starts).tolist(), strict=True):
        if total + chunk_sum > LARGEST_INTEGER:
            for offset, duration in enumerate(durations[start : start + chunk].tolist()):
                total += duration
                if total > LARGEST_INTEGER:
                    raise InvalidInstanceError(
                        f"data.tasks[{start + offset}].duration",
                        f"the total duration of tasks 0..{start + offset} exceeds 2^53 = {LARGEST_INTEGER} "
                        "(sums of durations must stay exact in int64 and in doubles)",
                    )
        total += chunk_sum
    return total


def checked_durations(durations: Any, objective: str, remote_cost: int) -> np.ndarray:
    """The durations as int64, each >= 1, their total (plus n remote costs under objective 2) at most 2^53."""
    durations = np.asarray(durations)
    if durations.ndim != 1 or (durations.size and durations.dtype.kind not in "iu"):
        raise InvalidInstanceError("data.tasks[].duration", "must be integers")
    durations = durations.astype(np.int64, copy=False)
    n = durations.size
    if n == 0:
        raise InvalidInstanceError("data.tasks", "must have at least 1 entries, got 0")
    bad = np.flatnonzero(durations < 1)
    if bad.size:
        raise InvalidInstanceError(f"data.tasks[{bad[0]}].duration", f"must be >= 1, got {durations[bad[0]]}")
    total_duration = _check_total_duration(durations)
    if objective == "communication" and total_duration + n * remote_cost > LARGEST_INTEGER:
        # Objective 2 sums p_j + c over queues: all tasks remote is the largest such sum.
        raise InvalidInstanceError(
            "data.remote_cost",
            f"total duration {total_duration} plus {n} tasks x remote_cost {remote_cost} exceeds 2^53 = "
            f"{LARGEST_INTEGER} (sums of durations must stay exact in int64 and in doubles)",
        )
    return durations


def checked_replicas(offsets: Any, servers: Any, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, servers) of the CSR replica sets: non-empty, servers in range, distinct within each set."""
    offsets = np.asarray(offsets, dtype=np.int64)
    servers = np.asarray(servers)
    if servers.size and servers.dtype.kind not in "iu":
        raise InvalidInstanceError("data.tasks[].replicas", "must be integers")
    servers = servers.astype(np.int32 if m < 2**31 else np.int64, copy=False)
    if offsets.shape != (n + 1,) or offsets[0] != 0 or offsets[-1] != servers.size:
        raise InvalidInstanceError("data.tasks[].replicas", "replica offsets do not match the tasks")
    counts = np.diff(offsets)
    empty = np.flatnonzero(counts < 1)
    if empty.size:
        raise InvalidInstanceError(f"data.tasks[{empty[0]}].replicas", "must have at least 1 entries, got 0")
    out_of_range = np.flatnonzero((servers < 0) | (servers >= m))
    if out_of_range.size:
        entry = out_of_range[0]
        task = int(np.searchsorted(offsets, entry, side="right") - 1)
        raise InvalidInstanceError(
            f"data.tasks[{task}].replicas[{entry - offsets[task]}]",
            f"server {servers[entry]} does not exist (valid: 0..{m - 1})",
        )
    _check_distinct_replicas(servers, counts)
    return offsets, servers


def _check_distinct_replicas(servers: np.ndarray, counts: np.ndarray) -> None:
    """Refuse a server listed twice in one replica set, naming the first such task.

    Sorts within each task and compares neighbours (a row-wise sort when every
    task has r replicas: cheap at 10^7 tasks).
    """
    n = counts.size
    width = int(counts[0])
    if np.all(counts == width):
        rows = np.sort(servers.reshape(n, width), axis=1)
        same = rows[:, 1:] == rows[:, :-1]
        bad_rows = np.flatnonzero(same.any(axis=1))
        if bad_rows.size:
            task = int(bad_rows[0])
            server = rows[task, 1:][same[task]][0]
            raise InvalidInstanceError(f"data.tasks[{task}].replicas", f"server {server} is listed twice")
        return
    task_of_entry = np.repeat(np.arange(n, dtype=np.int64), counts)
    order = np.lexsort((servers, task_of_entry))
    sorted_servers, sorted_tasks = servers[order], task_of_entry[order]
    duplicate = np.flatnonzero((sorted_servers[1:] == sorted_servers[:-1]) & (sorted_tasks[1:] == sorted_tasks[:-1]))
    if duplicate.size:
        task = int(sorted_tasks[duplicate[0]])
        raise InvalidInstanceError(
            f"data.tasks[{task}].replicas", f"server {sorted_servers[duplicate[0]]} is listed twice"
        )


def checked_names(task_names: Sequence[str], n: int) -> tuple[str, ...] | None:
    """The task names, distinct strings, one per task; None when they are the defaults ``j0, j1, ...``."""
    names = tuple(task_names)
    if len(names) != n:
        raise InvalidInstanceError("data.tasks[].name", f"{len(names)} names for {n} tasks")
    seen: dict[str, int] = {}
    for index, task_name in enumerate(names):
        require_str(task_name, f"data.tasks[{index}].name")
        if task_name in seen:
            raise InvalidInstanceError(
                f"data.tasks[{index}].name", f"duplicates task {seen[task_name]} ({task_name!r})"
            )
        seen[task_name] = index
    if all(task_name == default_name(i) for i, task_name in enumerate(names)):
        return None
    return names
