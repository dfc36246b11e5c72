"""The partial schedules of `dp`: labels, their dominance, and the simulator's placement rules on them.

A label is a prefix of one simulator run (the operations placed so far,
summarized); `Placements.successors` applies the simulator's rules to place
one more operation, `Placements.completion_bound` bounds every completion of
a prefix, and `dominates` says when one prefix is at least as early as
another in every respect that the rules look at. The argument is in
docs/transfers.md ("The dynamic program").
"""

from __future__ import annotations

import typing
from collections.abc import Iterator

from .. import bounds
from ..model import Instance, Solution
from ..simulate import johnson_order

#: Key of a label's bucket: transferred set, computed set (bit masks), task whose transfer was placed last (-1: none).
LabelKey = tuple[int, int, int]


class Label(typing.NamedTuple):
    """A prefix of one simulator run: the operations placed so far, summarized.

    The bucket of a label (its transferred and computed task sets, and the task
    whose transfer was placed last, if that was the last operation) is its key
    in the layer dictionary, not a field.
    """

    link_free: int  # end of the last positive-length transfer
    last_transfer_start: int  # transfers start in order, even zero-length ones
    device_free: int  # end of the last positive-length computation
    makespan: int  # latest computation end so far
    arrival: tuple[int, ...]  # transfer end of every transferred task (-1: not yet)
    releases: tuple[tuple[int, int], ...]  # (end, bytes) of placed computations still held at last_transfer_start
    waiting: int  # bytes of transferred tasks whose computation is not placed
    bound: int  # lower bound on the makespan of every completion
    parent: Label | None
    operation: tuple[int, int, int] | None  # (0: transfer / 1: computation, task, start)


def members(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``."""
    members = []
    while mask:
        low = mask & -mask
        members.append(low.bit_length() - 1)
        mask ^= low
    return members


def _held(releases: typing.Sequence[tuple[int, int]], time: int) -> int:
    """Bytes of placed computations still held at ``time`` (released at their end)."""
    return sum(size for end, size in releases if end > time)


def dominates(first: Label, second: Label, waiting_tasks: list[int]) -> bool:
    """Whether every continuation of ``second`` does at least as well from ``first`` (same bucket)."""
    if (
        first.link_free > second.link_free
        or first.last_transfer_start > second.last_transfer_start
        or first.device_free > second.device_free
        or first.makespan > second.makespan
    ):
        return False
    if any(first.arrival[i] > second.arrival[i] for i in waiting_tasks):
        return False
    # Future transfers of `second` start at or after its last transfer start: compare the
    # held bytes there and at every release after it (both are step functions).
    if first.releases == second.releases:
        return True
    since = second.last_transfer_start
    later = [(end, size) for end, size in first.releases if end > since]
    if not later:
        return True
    checkpoints = {since, *(end for end, _ in later), *(end for end, _ in second.releases if end > since)}
    return all(_held(later, x) <= _held(second.releases, x) for x in checkpoints)


def _run_on_device(device_free: int, makespan: int, release: int, length: int) -> tuple[int, int]:
    """One computation placed as early as possible on the device (a zero-length one occupies nothing)."""
    if length:
        device_free = (device_free if device_free > release else release) + length
        return device_free, (makespan if makespan > device_free else device_free)
    return device_free, (makespan if makespan > release else release)


class Placements:
    """The placement rules of the simulator on one instance, for `dp` (data copied into lists once)."""

    def __init__(self, instance: Instance):
        self.n = instance.n
        self.transfer = list(instance.transfer)
        self.compute = list(instance.compute)
        self.memory = list(instance.memory)
        self.capacity = instance.capacity
        self.johnson = johnson_order(instance)
        self.by_transfer = sorted(range(self.n), key=lambda i: self.transfer[i])
        self.by_memory = sorted(range(self.n), key=lambda i: self.memory[i])
        self._flow_shop: dict[int, tuple[int, bool]] = {}

    def flow_shop(self, transferred: int) -> tuple[int, bool]:
        """Johnson's F2 makespan of the untransferred tasks from time 0, and whether one has c = 0 (cached)."""
        cached = self._flow_shop.get(transferred)
        if cached is None:
            link = device = 0
            for i in self.johnson:
                if not transferred >> i & 1:
                    link += self.transfer[i]
                    device = (device if device > link else link) + self.compute[i]
            cached = device, any(not self.transfer[i] for i in range(self.n) if not transferred >> i & 1)
            self._flow_shop[transferred] = cached
        return cached

    def completion_bound(
        self,
        transferred: int,
        computed: int,
        link_free: int,
        last_transfer_start: int,
        device_free: int,
        makespan: int,
        arrival: tuple[int, ...],
    ) -> int:
        """Lower bound on every completion of a prefix: the largest of three relaxations.

        * The device still has to run every computation not placed, each no
          earlier than its task's arrival (known for transferred tasks; for
          the others at least their transfer time after the link's next free
          instant): the earliest-release-date order solves that one-machine
          relaxation exactly.
        * The link still has to bring the untransferred tasks in, and the
          two-machine flow shop of those tasks alone (Johnson's rule) from the
          link's next free instant bounds their last computation.
        * `overlap_completion`: the only part that sees memory (which tasks
          may run a transfer and a computation side by side).
        """
        c, p = self.transfer, self.compute
        link_floor = link_free if link_free > last_transfer_start else last_transfer_start
        # Earliest-release-date order: waiting tasks by arrival, merged into the untransferred ones,
        # whose releases (link_floor + c, or last_transfer_start for c = 0) follow the order of c.
        waiting = sorted((arrival[i], p[i]) for i in members(transferred & ~computed))
        device, bound, w = device_free, makespan, 0
        for i in self.by_transfer:
            if transferred >> i & 1:
                continue
            release = (link_floor if c[i] else last_transfer_start) + c[i]
            while w < len(waiting) and waiting[w][0] <= release:
                device, bound = _run_on_device(device, bound, *waiting[w])
                w += 1
            device, bound = _run_on_device(device, bound, release, p[i])
        for arrived, length in waiting[w:]:
            device, bound = _run_on_device(device, bound, arrived, length)
        bound = max(bound, device)
        flow_shop, has_empty_transfer = self.flow_shop(transferred)
        # A zero-length transfer may start at the last transfer start, before the link is free.
        link = last_transfer_start if has_empty_transfer else link_floor
        if flow_shop:
            bound = max(bound, link + flow_shop)
        return max(bound, self.overlap_completion(transferred, computed, min(link, device_free)))

    def overlap_completion(self, transferred: int, computed: int, start: int) -> int:
        """`bounds.overlap_bound` for the operations not placed yet, all of which run after ``start``.

        From ``start`` on, the link still carries the untransferred tasks and
        the device the uncomputed ones; a computation and a transfer overlap
        only when both tasks fit together, and `bounds.max_overlap` (the
        nested-prefix greedy of `bounds.overlap_bound`) gives the largest overlap.
        """
        c, p, m = self.transfer, self.compute, self.memory
        transfers = [(c[j], m[j]) for j in self.by_memory if not transferred >> j & 1]
        computations = [(p[i], m[i]) for i in reversed(self.by_memory) if not computed >> i & 1]
        overlap = bounds.max_overlap(transfers, computations, self.capacity)
        return start + sum(length for length, _ in transfers) + sum(length for length, _ in computations) - overlap

    def successors(self, key: LabelKey, label: Label) -> Iterator[tuple[LabelKey, Label]]:
        """The operations the simulator could place next, as (key, label) pairs.

        A computation may follow its own transfer or another computation (the
        simulator places the next computation of its order as soon as that
        task has arrived); a transfer may come at any point, when its task
        fits next to the tasks waiting on the device.
        """
        c, p, m, capacity = self.transfer, self.compute, self.memory, self.capacity
        transferred, computed, last = key
        waiting_set = transferred & ~computed
        candidates = [last] if last >= 0 else members(waiting_set)
        for i in candidates:
            start = max(label.device_free, label.arrival[i]) if p[i] else label.arrival[i]
            device_free = start + p[i] if p[i] else label.device_free
            makespan = max(label.makespan, start + p[i])
            releases = tuple(sorted((*label.releases, (start + p[i], m[i]))))
            new_key = (transferred, computed | 1 << i, -1)
            bound = self.completion_bound(
                transferred,
                new_key[1],
                label.link_free,
                label.last_transfer_start,
                device_free,
                makespan,
                label.arrival,
            )
            yield (
                new_key,
                label._replace(
                    device_free=device_free,
                    makespan=makespan,
                    releases=releases,
                    waiting=label.waiting - m[i],
                    bound=bound,
                    parent=label,
                    operation=(1, i, start),
                ),
            )
        for k in range(self.n):
            if transferred >> k & 1 or label.waiting + m[k] > capacity:
                continue
            start = max(label.link_free, label.last_transfer_start) if c[k] else label.last_transfer_start
            first_try = start
            held = _held(label.releases, first_try)
            for end, size in label.releases:  # sorted by end: wait for releases until k fits
                if end <= first_try:
                    continue  # released before the first try: not in `held`
                if end > start:
                    if held + label.waiting + m[k] <= capacity:
                        break
                    start = end
                held -= size
            link_free = start + c[k] if c[k] else label.link_free
            arrival = (*label.arrival[:k], start + c[k], *label.arrival[k + 1 :])
            releases = tuple(r for r in label.releases if r[0] > start)
            new_key = (transferred | 1 << k, computed, k)
            bound = self.completion_bound(
                new_key[0], computed, link_free, start, label.device_free, label.makespan, arrival
            )
            yield (
                new_key,
                label._replace(
                    link_free=link_free,
                    last_transfer_start=start,
                    arrival=arrival,
                    releases=releases,
                    waiting=label.waiting + m[k],
                    bound=bound,
                    parent=label,
                    operation=(0, k, start),
                ),
            )


def insert(layer: dict[LabelKey, list[Label]], key: LabelKey, label: Label) -> None:
    """Add ``label`` to its bucket unless a label there dominates it; drop the labels it dominates."""
    bucket = layer.get(key)
    if bucket is None:
        layer[key] = [label]
        return
    transferred, computed, _ = key
    waiting_tasks = members(transferred & ~computed)
    if any(dominates(other, label, waiting_tasks) for other in bucket):
        return
    bucket[:] = [other for other in bucket if not dominates(label, other, waiting_tasks)]
    bucket.append(label)


def schedule_of(instance: Instance, label: Label) -> Solution:
    """Read the starts back along the parent chain of a complete label."""
    transfer_start, compute_start = [0] * instance.n, [0] * instance.n
    current: Label | None = label
    while current is not None and current.operation is not None:
        kind, task, start = current.operation
        (compute_start if kind else transfer_start)[task] = start
        current = current.parent
    return Solution(tuple(transfer_start), tuple(compute_start))
