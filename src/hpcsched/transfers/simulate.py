"""Order-based simulator: orders in, earliest-start schedule out.

Given a transfer order π and a compute order σ (a permutation schedule when
σ = π), `Simulator.run` starts every operation as early as the link, the
device, the memory and the task's own transfer allow:

* the next computation in σ starts as soon as its task's data has arrived
  and the device is free; it is always placed before the next transfer is
  considered, so that its release time is known;
* otherwise the next transfer in π starts at the earliest time ``x`` at or
  after the end of the previous transfer at which its footprint fits, given
  the release times (compute ends) known so far. Tasks that are on the device
  but whose computation is not yet placed hold their memory indefinitely; if
  even then the footprint can never fit, the order pair deadlocks (σ asks for
  a task that π cannot bring in) and `run` returns None.

Operations of length zero occupy no machine (as in the validator): they
keep their place in their order (they start no earlier than the operation
before them) but do not push back the operations after them.

Releases are kept in a heap, so one simulation costs O(n log n).

This module is used by the heuristics and the brute force. The validator in
`hpcsched.transfers.model` does not use it (it is written from the definition).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from .model import Instance, Solution


class Simulator:
    """Earliest-start schedules of order pairs on one instance.

    Parameters
    ----------
    instance
        The instance; its data are copied into plain lists once, because the
        heuristics call `makespan` many thousand times.
    """

    def __init__(self, instance: Instance):
        self.instance = instance
        self.transfer = list(instance.transfer)
        self.compute = list(instance.compute)
        self.memory = list(instance.memory)
        self.capacity = instance.capacity

    def starts(
        self, transfer_order: Sequence[int], compute_order: Sequence[int] | None = None
    ) -> tuple[list[int], list[int]] | None:
        """Transfer and compute starts (lists indexed by task, -1 for tasks not
        in the orders), or None when the order pair deadlocks on memory.

        The orders may cover a subset of the tasks (NEH scores partial
        sequences); both must cover the same subset.
        """
        compute_order = transfer_order if compute_order is None else compute_order
        c, p, m, capacity = self.transfer, self.compute, self.memory, self.capacity
        n = len(c)
        transfer_start = [-1] * n
        compute_start = [-1] * n
        releases: list[tuple[int, int]] = []  # (release time, bytes) of placed computations
        known_held = 0  # bytes of tasks in `releases` not yet released
        pending_held = 0  # bytes of tasks on the device whose computation is not placed yet
        link_free = device_free = 0
        last_transfer_start = 0  # transfers start in π order, even zero-length ones
        next_transfer = 0
        count = len(compute_order)
        k = 0
        while k < count:
            task = compute_order[k]
            if transfer_start[task] >= 0:
                ready = transfer_start[task] + c[task]
                start = max(device_free, ready) if p[task] else ready
                compute_start[task] = start
                if p[task]:
                    device_free = start + p[task]
                pending_held -= m[task]
                known_held += m[task]
                heapq.heappush(releases, (start + p[task], m[task]))
                k += 1
                continue
            if next_transfer >= len(transfer_order):
                raise ValueError("compute order names a task that the transfer order does not")
            task = transfer_order[next_transfer]
            start = max(link_free, last_transfer_start) if c[task] else last_transfer_start
            while releases and releases[0][0] <= start:
                known_held -= heapq.heappop(releases)[1]
            while known_held + pending_held + m[task] > capacity:
                if not releases:
                    return None  # only releases of unplaced computations could help: deadlock
                released_at, size = heapq.heappop(releases)
                known_held -= size
                start = max(start, released_at)
                while releases and releases[0][0] <= start:
                    known_held -= heapq.heappop(releases)[1]
            transfer_start[task] = start
            last_transfer_start = start
            if c[task]:
                link_free = start + c[task]
            pending_held += m[task]
            next_transfer += 1
        return transfer_start, compute_start

    def schedule(self, transfer_order: Sequence[int], compute_order: Sequence[int] | None = None) -> Solution | None:
        """The earliest-start `Solution` of a complete order pair (None on deadlock)."""
        starts = self.starts(transfer_order, compute_order)
        if starts is None:
            return None
        return Solution(tuple(starts[0]), tuple(starts[1]))

    def makespan(self, transfer_order: Sequence[int], compute_order: Sequence[int] | None = None) -> float:
        """Makespan of the earliest-start schedule (``inf`` on deadlock)."""
        starts = self.starts(transfer_order, compute_order)
        if starts is None:
            return float("inf")
        compute_order = transfer_order if compute_order is None else compute_order
        return max((starts[1][i] + self.compute[i] for i in compute_order), default=0)


def johnson_order(instance: Instance) -> list[int]:
    """Johnson's rule for F2||Cmax (link = first machine, device = second).

    Tasks with c_i ≤ p_i first, by c ascending; then the others by p
    descending. Ties by task index, so the order is deterministic (stable
    sorts of the index order; the times are integers below 2^53, exact in int64).
    """
    transfer, compute = _times(instance)
    first = np.flatnonzero(transfer <= compute)
    last = np.flatnonzero(transfer > compute)
    first = first[np.argsort(transfer[first], kind="stable")]
    last = last[np.argsort(-compute[last], kind="stable")]
    return np.concatenate([first, last]).tolist()


def _times(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """c and p as int64 arrays (task order)."""
    return np.array(instance.transfer, dtype=np.int64), np.array(instance.compute, dtype=np.int64)


def flow_shop_makespan(instance: Instance, order: Sequence[int]) -> int:
    """Makespan of `flow_shop_starts`'s schedule, max_k (c_1 + ... + c_k + p_k + ... + p_n) along ``order``.

    The recurrence's last completion in closed form: the device's last busy
    stretch starts at the end of some transfer k and runs p_k .. p_n without a gap.
    """
    transfer, compute = _times(instance)
    index = np.asarray(order, dtype=np.int64)
    return int(np.max(np.cumsum(transfer[index]) + np.cumsum(compute[index][::-1])[::-1]))


def flow_shop_starts(instance: Instance, order: Sequence[int]) -> tuple[list[int], list[int]]:
    """Earliest-start permutation schedule of ``order`` ignoring memory (F2 recurrence)."""
    transfer_start = [0] * instance.n
    compute_start = [0] * instance.n
    link_free = device_free = 0
    for i in order:
        task = instance.tasks[i]
        transfer_start[i] = link_free
        link_free += task.transfer
        compute_start[i] = max(link_free, device_free)
        device_free = compute_start[i] + task.compute
    return transfer_start, compute_start
