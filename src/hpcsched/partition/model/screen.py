"""The validator's rules on numpy arrays: whether a schedule breaks any, and its peak memory per GPU.

`validate` asks `Screen.clean` first; only a schedule that breaks some rule
goes through the rule-by-rule Python checks of ``validate.py``, which word
the violations. Each screen decides exactly what its rule decides, at numpy
speed: at 10^5 nodes the Python rules took about half a second, the
screens a few hundredths. `evaluate` reads the peaks from the same arrays.

- Overlap: the non-empty intervals of a GPU sorted by start overlap exactly
  when one starts before the end of the one before it (if none does, the
  ends increase, so the latest end so far is the previous one).
- Memory: the items of `validate.memory_items` (the same intervals, empty
  ones dropped) swept per GPU; the level after all the events of an instant
  is the profile's level at that instant, and a GPU breaks M exactly when
  its highest level does.

A GPU index outside ``0..K-1``, a negative start, or values whose sums may
leave int64 are left to the Python rules (`Screen.of` returns None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.memo import LastOf
from .data import Instance, Solution

#: Largest magnitude (times, byte sums) the screens handle in int64.
_SAFE = 2**62


@dataclass(frozen=True)
class _Arrays:
    """What the screens read from an instance (built once per instance)."""

    time: np.ndarray
    persistent: np.ndarray
    output: np.ndarray
    pin: np.ndarray  # -1: unpinned
    group_first: np.ndarray  # the first node of the node's group (itself without a group)
    source: np.ndarray
    target: np.ndarray
    transfer: np.ndarray
    safe: bool

    @classmethod
    def of(cls, instance: Instance) -> _Arrays:
        nodes = instance.nodes
        first: dict = {}
        group_first = [v if node.group is None else first.setdefault(node.group, v) for v, node in enumerate(nodes)]
        edges = instance.edges
        arrays = {
            "time": [node.time for node in nodes],
            "persistent": [node.persistent for node in nodes],
            "output": [node.output for node in nodes],
            "transfer": [int(edge.delay) for edge in edges],
        }
        biggest = sum(arrays["time"]) + sum(arrays["transfer"]) + 1
        byte_sum = sum(arrays["persistent"]) + 2 * sum(arrays["output"]) * (len(edges) + 1)
        safe = biggest < _SAFE and byte_sum < _SAFE
        as_array = {key: np.array(value if safe else [], dtype=np.int64) for key, value in arrays.items()}
        return cls(
            pin=np.array([-1 if node.pin is None else node.pin for node in nodes], dtype=np.int64),
            group_first=np.array(group_first, dtype=np.int64),
            source=np.array([edge.u for edge in edges], dtype=np.int64),
            target=np.array([edge.v for edge in edges], dtype=np.int64),
            safe=safe,
            **as_array,
        )


#: The arrays of the last instance screened (the registry checks many answers on one instance).
_last_arrays: LastOf[_Arrays] = LastOf()


def _arrays(instance: Instance) -> _Arrays:
    return _last_arrays.get((instance,), lambda: _Arrays.of(instance))


@dataclass(frozen=True)
class Screen:
    """The verdict of each rule on one schedule of the right size, and its peak memory per GPU."""

    peaks: tuple[int, ...]
    schedule_ok: bool  # overlap and precedence
    placement_ok: bool  # pins and colocation groups
    memory_ok: bool

    @classmethod
    def of(cls, instance: Instance, solution: Solution) -> Screen | None:
        """The screen of ``solution`` (n GPUs and starts), or None when the Python rules must decide alone."""
        arrays = _arrays(instance)
        if not arrays.safe:
            return None
        try:
            gpu = np.array(solution.gpu, dtype=np.int64)
            start = np.array(solution.start, dtype=np.int64)
        except OverflowError:
            return None
        if len(gpu) and (gpu.min() < 0 or gpu.max() >= instance.gpus or start.min() < 0 or start.max() >= _SAFE // 2):
            return None
        end = start + arrays.time
        peaks = _peaks(instance, arrays, gpu, start, end)
        return cls(
            peaks=peaks,
            schedule_ok=_overlap_ok(arrays, gpu, start, end) and _precedence_ok(arrays, gpu, start, end),
            placement_ok=not (
                ((arrays.pin >= 0) & (gpu != arrays.pin)).any() or (gpu != gpu[arrays.group_first]).any()
            ),
            memory_ok=max(peaks, default=0) <= instance.memory,
        )

    def clean(self) -> bool:
        """True exactly when the Python rules find no violation (the size being right)."""
        return self.schedule_ok and self.placement_ok and self.memory_ok


def _overlap_ok(arrays: _Arrays, gpu: np.ndarray, start: np.ndarray, end: np.ndarray) -> bool:
    busy = np.flatnonzero(arrays.time > 0)  # an empty interval overlaps nothing
    gpu, start, end = gpu[busy], start[busy], end[busy]
    order = np.lexsort((end, start, gpu))
    gpu, start, end = gpu[order], start[order], end[order]
    return not ((gpu[1:] == gpu[:-1]) & (start[1:] < end[:-1])).any()


def _precedence_ok(arrays: _Arrays, gpu: np.ndarray, start: np.ndarray, end: np.ndarray) -> bool:
    u, v = arrays.source, arrays.target
    ready = end[u] + np.where(gpu[u] != gpu[v], arrays.transfer, 0)
    return not (start[v] < ready).any()


def _peaks(instance: Instance, arrays: _Arrays, gpu: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[int, ...]:
    """Per GPU, `validate.peak_memory`: Σ (w + s) (static) or the highest level of the dynamic profile."""
    peaks = np.zeros(instance.gpus, dtype=np.int64)
    if instance.memory_model == "static":
        np.add.at(peaks, gpu, arrays.persistent + arrays.output)
        return tuple(int(p) for p in peaks)
    u, v, output = arrays.source, arrays.target, arrays.output
    horizon = end.max(initial=0)
    local = gpu[u] == gpu[v]
    last_local_end = end.copy()
    np.maximum.at(last_local_end, u[local], end[v[local]])
    cut = ~local & (output[u] > 0)
    item_gpu = np.concatenate((gpu, gpu[v[cut]], gpu))
    begin = np.concatenate((np.zeros(len(gpu), dtype=np.int64), end[u[cut]] + arrays.transfer[cut], start))
    finish = np.concatenate((np.full(len(gpu), horizon, dtype=np.int64), end[v[cut]], last_local_end))
    size = np.concatenate((arrays.persistent, output[u[cut]], output))
    keep = (finish > begin) & (size > 0)
    item_gpu, begin, finish, size = item_gpu[keep], begin[keep], finish[keep], size[keep]
    if not len(size):
        return tuple(int(p) for p in peaks)
    event_gpu = np.concatenate((item_gpu, item_gpu))
    times = np.concatenate((begin, finish))
    delta = np.concatenate((size, -size))
    order = np.lexsort((times, event_gpu))
    event_gpu, times, delta = event_gpu[order], times[order], delta[order]
    running = np.cumsum(delta)
    gpu_start = np.r_[True, event_gpu[1:] != event_gpu[:-1]]
    first = np.maximum.accumulate(np.where(gpu_start, np.arange(len(delta)), 0))
    level = running - (running[first] - delta[first])  # the running sum of the GPU's own events
    instant_end = np.r_[(event_gpu[1:] != event_gpu[:-1]) | (times[1:] != times[:-1]), True]
    np.maximum.at(peaks, event_gpu[instant_end], level[instant_end])
    return tuple(int(p) for p in peaks)
