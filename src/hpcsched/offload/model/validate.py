"""Evaluation and validation of an offload schedule, written from the definition (docs/offload.md).

Residency intervals are half-open and the memory sweep applies releases
before allocations at equal times. The validator shares no code with the
simulator, the formulations or the heuristics. The rules are screened on
numpy arrays first (`screen.Screen`); the Python rules below run only on a
schedule that breaks one, to word the violations. `validate` and `evaluate`
share the last schedule's arrays (the registry calls them in turn on the
same objects).
"""

from __future__ import annotations

import itertools

from ...core.memo import LastOf
from ...core.violation import Violation
from .floors import step_floor
from .instance import Instance
from .screen import Screen
from .solution import Solution

#: The last (instance, solution) screened and its arrays: the registry's validate and evaluate share them.
_last_screen: LastOf[Screen | None] = LastOf()


def _screen(instance: Instance, solution: Solution) -> Screen | None:
    """The arrays of a structurally valid ``solution`` (None: values beyond int64), computed once per pair."""
    return _last_screen.get((instance, solution), lambda: Screen.of(instance, solution))


def _residency(instance: Instance, solution: Solution) -> list[tuple[int, int, int, str]]:
    """Every residency interval ``(start, end, bytes, what)`` from the definition."""
    n, s = instance.n_layers, instance.activation
    fs, bs = solution.forward_start, solution.backward_start
    f_end = [fs[k] + instance.forward[k] for k in range(n)]
    b_end = [bs[k] + instance.backward[k] for k in range(n)]
    offloaded = set(solution.offloaded)
    intervals = []
    for i in range(n + 1):
        born = 0 if i == 0 else fs[i - 1]
        last_use = b_end[n - 1] if i == n else b_end[i]  # a_i is read by B_{i+1} (a_L by B_L)
        if i in offloaded:
            out_end = max(solution.offload_start[i] + instance.offload_time(i), f_end[i])
            intervals.append((born, out_end, s[i], f"a{i} (before offload)"))
            intervals.append((solution.prefetch_start[i], last_use, s[i], f"a{i} (prefetched)"))
        else:
            intervals.append((born, last_use, s[i], f"a{i}"))
    for i in range(n):  # δ_i written by B_{i+1}, read by B_i (δ_0 dies with B_1)
        intervals.append((bs[i], b_end[i - 1] if i >= 1 else b_end[0], s[i], f"grad{i}"))
    for k in range(n):
        intervals.append((fs[k], f_end[k], instance.workspace_forward[k], f"workspace F{k + 1}"))
        intervals.append((bs[k], b_end[k], instance.workspace_backward[k], f"workspace B{k + 1}"))
    return [interval for interval in intervals if interval[2] > 0 and interval[1] > interval[0]]


def memory_profile(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """Step function ``[(time, bytes in use from that time on), ...]``."""
    events: dict[int, int] = {}
    for start, end, size, _ in _residency(instance, solution):
        events[start] = events.get(start, 0) + size
        events[end] = events.get(end, 0) - size
    profile, usage = [], 0
    for time in sorted(events):
        usage += events[time]  # releases and allocations at one time are summed: release first
        profile.append((time, usage))
    return profile


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (objective), overhead, offloaded bytes/count, peak memory."""
    n = instance.n_layers
    makespan = max(
        [solution.backward_start[k] + instance.backward[k] for k in range(n)]
        + [solution.forward_start[k] + instance.forward[k] for k in range(n)]
    )
    screen = None if _structure_violations(instance, solution) else _screen(instance, solution)
    if screen is not None:
        peak = screen.peak()
    else:
        peak = max((usage for _, usage in memory_profile(instance, solution)), default=0)
    offloaded_bytes = sum(instance.activation[i] for i in solution.offloaded)
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "overhead": float(makespan - instance.compute_time),
        "offloaded_bytes": float(offloaded_bytes),
        "offloaded_count": float(len(solution.offloaded)),
        "peak_memory": float(peak),
    }


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible)."""
    structure = _structure_violations(instance, solution)
    if structure:
        return structure
    screen = _screen(instance, solution)
    if screen is not None and screen.clean():
        return []
    return [
        *_order_violations(instance, solution),
        *_transfer_violations(instance, solution),
        *_channel_violations(instance, solution),
        *_zero_duration_violations(instance, solution),
        *_sweep_violations(instance, solution),
    ]


def _structure_violations(instance: Instance, solution: Solution) -> list[Violation]:
    n = instance.n_layers
    if len(solution.forward_start) != n or len(solution.backward_start) != n:
        return [Violation("structure", f"expected {n} forward and backward starts")]
    violations = []
    offloaded = set(solution.offloaded)
    offloadable = set(instance.offloadable)  # a tuple's `in` made this quadratic in L
    for i in offloaded:
        if i not in offloadable:
            violations.append(Violation("structure", f"a{i} is offloaded but not offloadable"))
    for table_name, table in (("offload_start", solution.offload_start), ("prefetch_start", solution.prefetch_start)):
        if set(table) != offloaded:
            violations.append(
                Violation("structure", f"{table_name} keys {sorted(table)} differ from offloaded {sorted(offloaded)}")
            )
    return violations


def _order_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Compute order F_1..F_L, B_L..B_1 on one stream."""
    n, fs, bs = instance.n_layers, solution.forward_start, solution.backward_start
    f, b = instance.forward, instance.backward
    sequence = [(f"F{k + 1}", fs[k], f[k]) for k in range(n)]
    sequence += [(f"B{k}", bs[k - 1], b[k - 1]) for k in range(n, 0, -1)]
    violations = []
    if sequence[0][1] < 0:
        violations.append(Violation("order", f"F1 starts at {sequence[0][1]} < 0"))
    for (name_a, start_a, dur_a), (name_b, start_b, _) in itertools.pairwise(sequence):
        if start_b < start_a + dur_a:
            violations.append(
                Violation("order", f"{name_b} starts at {start_b} before {name_a} ends at {start_a + dur_a}")
            )
    return violations


def _transfer_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Transfers: release, offload before prefetch, prefetch before use."""
    fs, bs, f = solution.forward_start, solution.backward_start, instance.forward
    violations = []
    for i in sorted(solution.offloaded):
        out_start, in_start = solution.offload_start[i], solution.prefetch_start[i]
        out_end, in_end = out_start + instance.offload_time(i), in_start + instance.prefetch_time(i)
        produced = 0 if i == 0 else fs[i - 1] + f[i - 1]
        if out_start < produced:
            violations.append(
                Violation("offload-release", f"offload of a{i} starts at {out_start} before a{i} exists ({produced})")
            )
        if in_start < out_end:
            violations.append(
                Violation(
                    "prefetch-after-offload",
                    f"prefetch of a{i} starts at {in_start} before its offload ends at {out_end}",
                )
            )
        if in_end > bs[i]:
            violations.append(
                Violation("prefetch-deadline", f"prefetch of a{i} ends at {in_end} after B{i + 1} starts at {bs[i]}")
            )
    return violations


def _channel_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Transfers on one channel do not overlap (one per direction, or one shared on a half-duplex link)."""
    channels: dict[str, list[tuple[int, int, str]]] = {}
    for i in sorted(solution.offloaded):
        out_start, in_start = solution.offload_start[i], solution.prefetch_start[i]
        full = instance.duplex == "full"
        channels.setdefault("out" if full else "link", []).append(
            (out_start, out_start + instance.offload_time(i), f"offload a{i}")
        )
        channels.setdefault("in" if full else "link", []).append(
            (in_start, in_start + instance.prefetch_time(i), f"prefetch a{i}")
        )
    violations = []
    for channel, items in channels.items():
        latest = None  # the transfer seen so far that ends last
        for start, end, label in sorted(item for item in items if item[1] > item[0]):  # empty ones occupy nothing
            if latest is not None and start < latest[1]:
                violations.append(
                    Violation(
                        "channel",
                        f"{latest[2]} [{latest[0]},{latest[1]}) overlaps {label} [{start},{end}) "
                        f"on the {channel} channel",
                    )
                )
            if latest is None or end > latest[1]:
                latest = (start, end, label)
    return violations


def _zero_duration_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """A step of zero duration still reads its operands while the kept a_0..a_{k-2} are resident.

    Its residency intervals are empty at its instant, so the sweep cannot see
    it; this is the memory floor of `memory_floors` with the kept prefix, the
    row every exact model has. For a step of positive duration the sweep
    implies this row.
    """
    offloaded = set(solution.offloaded)
    f, b = instance.forward, instance.backward
    violations = []
    kept = 0
    for k in range(1, instance.n_layers + 1):
        if k >= 2:
            kept += 0 if (k - 2) in offloaded else instance.activation[k - 2]
        for step, duration in ((f"F{k}", f[k - 1]), (f"B{k}", b[k - 1])):
            need = kept + step_floor(instance, step)
            if duration == 0 and need > instance.memory:
                violations.append(
                    Violation(
                        "memory",
                        f"{step} (zero duration) needs {need} bytes with the kept activations before it "
                        f"> budget {instance.memory}",
                    )
                )
    return violations


def _sweep_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Memory sweep over all residency intervals, releases before allocations (the first five excesses)."""
    events = []
    for start, end, size, what in _residency(instance, solution):
        events.append((start, 1, size, what))
        events.append((end, 0, -size, what))
    events.sort(key=lambda e: (e[0], e[1]))
    violations: list[Violation] = []
    usage = 0
    for time, kind, delta, what in events:
        usage += delta
        if kind == 1 and usage > instance.memory and len(violations) < 5:
            violations.append(
                Violation(
                    "memory", f"{usage} bytes in use at time {time} (allocating {what}) > budget {instance.memory}"
                )
            )
    return violations
