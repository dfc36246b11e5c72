"""The validator and the objective of partition, written from the definition (`hpcsched.partition.model`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...core.memo import LastOf
from ...core.violation import Violation
from ...taskgraph import Placement, validate_machine_schedule
from .data import MACHINE_CLASS, Instance, Solution
from .screen import Screen

#: The last (instance, solution) screened and its verdicts: the registry's validate and evaluate share them.
_last_screen: LastOf[Screen | None] = LastOf()


def _screen(instance: Instance, solution: Solution) -> Screen | None:
    """The screen of a ``solution`` of the right size (None: the Python rules decide), computed once per pair."""
    right_size = len(solution.gpu) == instance.n and len(solution.start) == instance.n
    return _last_screen.get((instance, solution), lambda: Screen.of(instance, solution) if right_size else None)


# --- memory per the definition (the validator's, shared with nothing) ---------------------------------


def memory_items(instance: Instance, solution: Solution) -> list[tuple[int, int, int, int]]:
    """Every ``(gpu, begin, end, bytes)`` the dynamic model holds (module docstring), empty ones dropped.

    Persistent memory is given the interval ``[0, makespan)`` (the whole
    iteration); for a makespan of 0 nothing is ever held.
    """
    nodes = instance.nodes
    ends = [s + node.time for s, node in zip(solution.start, nodes, strict=False)]
    horizon = max(ends, default=0)
    items = [(solution.gpu[v], 0, horizon, node.persistent) for v, node in enumerate(nodes) if node.persistent]
    last_local_end = list(ends)
    for edge in instance.edges:
        u, v = edge.u, edge.v
        if solution.gpu[u] == solution.gpu[v]:
            last_local_end[u] = max(last_local_end[u], ends[v])
        elif nodes[u].output:
            # transfers are integers (Instance.__post_init__); the shared Edge types its delay as float
            items.append((solution.gpu[v], ends[u] + int(edge.delay), ends[v], nodes[u].output))
    for u, node in enumerate(nodes):
        if node.output:
            items.append((solution.gpu[u], solution.start[u], last_local_end[u], node.output))
    return [item for item in items if item[2] > item[1] and item[3] > 0]


def memory_profile(instance: Instance, solution: Solution) -> dict[int, list[tuple[int, int]]]:
    """Per GPU, ``(time, bytes held from that time on)`` at every change of the dynamic model's level.

    Releases and allocations at one instant are applied together (half-open intervals).
    """
    deltas: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for gpu, begin, end, size in memory_items(instance, solution):
        deltas[gpu][begin] += size
        deltas[gpu][end] -= size
    profile = {}
    for gpu, changes in deltas.items():
        level, steps = 0, []
        for time in sorted(changes):
            level += changes[time]
            steps.append((time, level))
        profile[gpu] = steps
    return profile


def peak_memory(instance: Instance, solution: Solution) -> list[int]:
    """Peak bytes per GPU under the instance's memory model."""
    peaks = [0] * instance.gpus
    if instance.memory_model == "static":
        for v, node in enumerate(instance.nodes):
            if 0 <= solution.gpu[v] < instance.gpus:
                peaks[solution.gpu[v]] += node.persistent + node.output
        return peaks
    for gpu, steps in memory_profile(instance, solution).items():
        if 0 <= gpu < instance.gpus:
            peaks[gpu] = max(level for _, level in steps)
    return peaks


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Rules: ``size`` (one GPU and start per node); the shared schedule rules
    of `hpcsched.taskgraph.validate_machine_schedule` with the delay charged
    between GPUs (``machine-index``: GPU outside ``0..K-1``; ``start``;
    ``overlap``; ``precedence``: S_v >= C_u + c_uv when apart); ``pin`` (a
    pinned node elsewhere); ``colocation`` (two nodes of one group on two
    GPUs); ``memory`` (static: Σ (w + s) per GPU > M; dynamic: the level of
    the sweep in the module docstring exceeds M at some instant). A numpy
    screen (`screen.Screen`) answers [] first when no rule is broken.
    """
    n = instance.n
    if len(solution.gpu) != n or len(solution.start) != n:
        return [Violation("size", f"expected {n} GPUs and starts, got {len(solution.gpu)} and {len(solution.start)}")]
    screen = _screen(instance, solution)
    if screen is not None and screen.clean():
        return []
    names = [node.name for node in instance.nodes]
    placements = [
        Placement(MACHINE_CLASS, g, s, node.time)
        for g, s, node in zip(solution.gpu, solution.start, instance.nodes, strict=False)
    ]
    violations = validate_machine_schedule(placements, instance.machines, instance.edges, rule="machine", names=names)
    for v, node in enumerate(instance.nodes):
        if node.pin is not None and solution.gpu[v] != node.pin:
            violations.append(
                Violation(
                    "pin", f"node {v} '{node.name}' is pinned to GPU {node.pin} but runs on GPU {solution.gpu[v]}"
                )
            )
    first_of_group: dict[Any, int] = {}
    for v, node in enumerate(instance.nodes):
        if node.group is None:
            continue
        first = first_of_group.setdefault(node.group, v)
        if solution.gpu[v] != solution.gpu[first]:
            violations.append(
                Violation(
                    "colocation",
                    f"node {v} '{node.name}' runs on GPU {solution.gpu[v]} but node {first} '{names[first]}' "
                    f"of its group {node.group!r} runs on GPU {solution.gpu[first]}",
                )
            )
    if any(v.rule in ("machine-index", "start") for v in violations):
        return violations  # memory per GPU is meaningless on a GPU that does not exist
    if instance.memory_model == "static":
        for gpu, level in enumerate(peak_memory(instance, solution)):
            if level > instance.memory:
                violations.append(
                    Violation(
                        "memory", f"GPU {gpu} holds Σ(persistent + output) = {level} bytes > M = {instance.memory}"
                    )
                )
    else:
        for gpu, steps in sorted(memory_profile(instance, solution).items()):
            for time, level in steps:
                if level > instance.memory:
                    violations.append(
                        Violation("memory", f"GPU {gpu} holds {level} bytes at time {time} > M = {instance.memory}")
                    )
                    break
    return violations


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective) and KPIs.

    KPIs: ``makespan``; ``cut_edges`` (edges whose ends run on different
    GPUs), ``communication`` (their Σ c_uv) and ``bytes_moved`` (Σ s_u over
    cut edges: one copy per edge); ``peak_memory_gpu<g>`` per GPU and
    ``peak_memory`` (the largest, per the memory model) with
    ``peak_memory_fraction`` (of M); ``load_balance`` (largest GPU busy time
    over the mean, 1 = perfect); ``gpus_used``.
    """
    nodes = instance.nodes
    ends = [s + node.time for s, node in zip(solution.start, nodes, strict=False)]
    makespan = max(ends, default=0)
    cut = [e for e in instance.edges if solution.gpu[e.u] != solution.gpu[e.v]]
    load = [0] * instance.gpus
    for g, node in zip(solution.gpu, nodes, strict=False):
        if 0 <= g < instance.gpus:
            load[g] += node.time
    screen = _screen(instance, solution)
    peaks = list(screen.peaks) if screen is not None else peak_memory(instance, solution)
    mean = sum(load) / instance.gpus
    kpis = {
        "objective": float(makespan),
        "makespan": float(makespan),
        "cut_edges": float(len(cut)),
        "communication": float(sum(e.delay for e in cut)),
        "bytes_moved": float(sum(nodes[e.u].output for e in cut)),
        "peak_memory": float(max(peaks)),
        "peak_memory_fraction": max(peaks) / instance.memory if instance.memory else 0.0,
        "load_balance": max(load) / mean if mean else 1.0,
        "gpus_used": float(len(set(solution.gpu))),
    }
    for g, peak in enumerate(peaks):
        kpis[f"peak_memory_gpu{g}"] = float(peak)
    return kpis
