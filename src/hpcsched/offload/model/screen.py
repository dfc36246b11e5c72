"""The validator's rules on numpy arrays: whether a schedule breaks any, and its peak memory.

`validate` asks `Screen.clean` first; only a schedule that breaks some rule
goes through the rule-by-rule Python checks of ``validate.py``, which word
the violations. Each screen decides exactly what its rule decides (the
same intervals, the same tie rules), at numpy speed: at 10^5 layers the
Python rules took about a second, the screens a few hundredths.

- Memory: at an instant, releases come before allocations, so usage after an
  allocation is highest after the last one of its instant, which is the usage
  after every event of that instant. The sweep is broken exactly when some
  instant with an allocation ends above the budget.
- Channels: transfers sorted by (start, end) overlap exactly when one starts
  before the latest end of those before it (ties in start overlap whatever
  their order).

Values beyond int64 (a solution file may hold any integer) are left to the
Python rules (`Screen.of` returns None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .instance import Instance
from .solution import Solution

#: Largest magnitude (times, byte sums) the screens handle in int64 without overflow.
_SAFE = 2**60


@dataclass(frozen=True)
class Screen:
    """The residency intervals and step times of one schedule as arrays."""

    instance: Instance
    solution: Solution
    starts: np.ndarray  # residency intervals, those of positive size and length
    ends: np.ndarray
    sizes: np.ndarray
    forward_start: np.ndarray
    backward_start: np.ndarray
    offloaded: np.ndarray  # sorted indices
    offload_start: np.ndarray  # in the order of `offloaded`
    prefetch_start: np.ndarray

    @classmethod
    def of(cls, instance: Instance, solution: Solution) -> Screen | None:
        """The arrays of ``solution`` (structurally valid), or None when a value may overflow int64."""
        n = instance.n_layers
        offloaded = np.array(solution.offloaded, dtype=np.int64)
        values = (*solution.forward_start, *solution.backward_start)
        values += tuple(solution.offload_start.values()) + tuple(solution.prefetch_start.values())
        byte_sum = 3 * sum(instance.activation) + sum(instance.workspace_forward) + sum(instance.workspace_backward)
        if max(map(abs, values), default=0) > _SAFE or byte_sum > _SAFE or (len(offloaded) and offloaded[-1] >= n):
            return None
        order = solution.offloaded
        starts, ends, sizes = _residency(instance, solution, offloaded)
        return cls(
            instance,
            solution,
            starts,
            ends,
            sizes,
            np.array(solution.forward_start, dtype=np.int64),
            np.array(solution.backward_start, dtype=np.int64),
            offloaded,
            np.array([solution.offload_start[i] for i in order], dtype=np.int64),
            np.array([solution.prefetch_start[i] for i in order], dtype=np.int64),
        )

    def clean(self) -> bool:
        """True when no rule after the structure's is broken (order, transfers, channels, memory)."""
        return not (
            self._order_broken()
            or self._transfers_broken()
            or self._channels_broken()
            or self._zero_duration_broken()
            or self.peak_after_allocation() > self.instance.memory
        )

    def _order_broken(self) -> bool:
        instance = self.instance
        starts = np.concatenate((self.forward_start, self.backward_start[::-1]))
        durations = np.concatenate((_array(instance.forward), _array(instance.backward)[::-1]))
        return bool(starts[0] < 0 or np.any(starts[1:] < starts[:-1] + durations[:-1]))

    def _transfers_broken(self) -> bool:
        if not len(self.offloaded):
            return False
        instance, o = self.instance, self.offloaded
        forward = _array(instance.forward)
        out_end = self.offload_start + _array(instance.offload_times)[o]
        in_end = self.prefetch_start + _array(instance.prefetch_times)[o]
        produced = np.where(o == 0, 0, self.forward_start[o - 1] + forward[o - 1])
        return bool(
            np.any(self.offload_start < produced)
            or np.any(self.prefetch_start < out_end)
            or np.any(in_end > self.backward_start[o])
        )

    def _channels_broken(self) -> bool:
        if not len(self.offloaded):
            return False
        instance, o = self.instance, self.offloaded
        offloads = (self.offload_start, self.offload_start + _array(instance.offload_times)[o])
        prefetches = (self.prefetch_start, self.prefetch_start + _array(instance.prefetch_times)[o])
        if instance.duplex == "full":
            return _overlap(*offloads) or _overlap(*prefetches)
        return _overlap(np.concatenate((offloads[0], prefetches[0])), np.concatenate((offloads[1], prefetches[1])))

    def _zero_duration_broken(self) -> bool:
        instance, n = self.instance, self.instance.n_layers
        s = _array(instance.activation)
        kept_items = s[: n - 1].copy()
        kept_items[self.offloaded[self.offloaded < n - 1]] = 0
        kept = np.concatenate(([0], np.cumsum(kept_items)))  # kept[k - 1]: a_0..a_{k-2} kept, k = 1..n
        gradient_in = s[1 : n + 1]  # δ_k, and a_L for B_L
        forward_floor = s[:n] + s[1:] + _array(instance.workspace_forward)
        backward_floor = 2 * s[:n] + gradient_in + _array(instance.workspace_backward)
        zero_f, zero_b = _array(instance.forward) == 0, _array(instance.backward) == 0
        too_big_f, too_big_b = kept + forward_floor > instance.memory, kept + backward_floor > instance.memory
        return bool(np.any(zero_f & too_big_f) or np.any(zero_b & too_big_b))

    def _usage_at_instants(self) -> tuple[np.ndarray, np.ndarray]:
        """(usage after every event of each instant, whether the instant has an allocation), in time order."""
        times = np.concatenate((self.starts, self.ends))
        deltas = np.concatenate((self.sizes, -self.sizes))
        allocates = np.concatenate((np.ones(len(self.starts), dtype=bool), np.zeros(len(self.ends), dtype=bool)))
        if not len(times):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        order = np.argsort(times, kind="stable")
        times, usage, allocates = times[order], np.cumsum(deltas[order]), allocates[order]
        last = np.flatnonzero(np.append(times[1:] != times[:-1], True))  # the last event of each instant
        first = np.concatenate(([0], last[:-1] + 1))
        return usage[last], np.logical_or.reduceat(allocates, first)

    def peak(self) -> int:
        """The highest memory in use (`memory_profile`'s highest level; 0 when nothing is resident)."""
        usage, _ = self._usage_at_instants()
        return int(usage.max()) if len(usage) else 0

    def peak_after_allocation(self) -> int:
        """The highest usage right after an allocation, releases first (the sweep's measure)."""
        usage, allocates = self._usage_at_instants()
        usage = usage[allocates]
        return int(usage.max()) if len(usage) else 0


def _array(values: tuple[int, ...]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _overlap(starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether two of the transfers [start, end) of positive length overlap."""
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if len(starts) < 2:
        return False
    order = np.lexsort((ends, starts))
    starts, ends = starts[order], ends[order]
    return bool(np.any(starts[1:] < np.maximum.accumulate(ends)[:-1]))


def _residency(instance: Instance, solution: Solution, offloaded: np.ndarray) -> tuple[np.ndarray, ...]:
    """(starts, ends, sizes) of the residency intervals of the definition, positive size and length only."""
    n = instance.n_layers
    s = _array(instance.activation)
    fs, bs = np.array(solution.forward_start, dtype=np.int64), np.array(solution.backward_start, dtype=np.int64)
    f_end, b_end = fs + _array(instance.forward), bs + _array(instance.backward)
    born = np.concatenate(([0], fs))  # a_i is born when F_i starts (a_0 at 0)
    last_use = np.append(b_end, b_end[n - 1])  # read by B_{i+1} (a_L by B_L)
    kept = np.ones(n + 1, dtype=bool)
    kept[offloaded] = False
    out_end = np.maximum(
        np.array([solution.offload_start[i] for i in solution.offloaded], dtype=np.int64)
        + _array(instance.offload_times)[offloaded],
        f_end[offloaded],
    )
    prefetch = np.array([solution.prefetch_start[i] for i in solution.offloaded], dtype=np.int64)
    gradient_end = np.concatenate(([b_end[0]], b_end[: n - 1]))  # δ_i until B_i ends (δ_0 with B_1)
    starts = (born[kept], born[offloaded], prefetch, bs, fs, bs)
    ends = (last_use[kept], out_end, last_use[offloaded], gradient_end, f_end, b_end)
    sizes = (
        s[kept],
        s[offloaded],
        s[offloaded],
        s[:n],
        _array(instance.workspace_forward),
        _array(instance.workspace_backward),
    )
    start, end, size = np.concatenate(starts), np.concatenate(ends), np.concatenate(sizes)
    keep = (size > 0) & (end > start)
    return start[keep], end[keep], size[keep]
