"""treemem's definition written out: memory profiles, validate, evaluate (re-exported by ``model``)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.violation import Violation
from . import out_of_core as out_of_core_model
from .data import Instance, Solution

# ----------------------------------------------------------------------------------------------
# The definition, written out step by step (no shared code with simulate.py or the methods).


def memory_profile(instance: Instance, order: Sequence[int], *, keep_sinks: bool = False) -> list[int]:
    """Memory held while each node of ``order`` runs (the definition, step by step).

    ``order`` must be a topological order of all nodes (`validate` checks it
    first). With ``keep_sinks`` the outputs of finished sinks stay held
    (memDAG's convention) instead of being freed at their own end.
    """
    successors, predecessors = instance.successors, instance.predecessors
    execs, outputs = instance.exec_sizes, instance.outputs
    unfinished_consumers = [len(s) for s in successors]
    held_bytes = 0  # sum of the outputs in memory between steps
    profile = []
    for i in order:
        profile.append(held_bytes + execs[i] + outputs[i])  # n_i is freed when i ends
        held_bytes += outputs[i]
        if not successors[i] and not keep_sinks:
            held_bytes -= outputs[i]  # a sink's output is freed at its own end
        for p in predecessors[i]:
            unfinished_consumers[p] -= 1
            if unfinished_consumers[p] == 0:  # i was p's last successor
                held_bytes -= outputs[p]
    return profile


def _order_indices(instance: Instance, order: Sequence[str]) -> tuple[list[Violation], list[int]]:
    """The violations of "a permutation of the nodes" and, when there are none, the order as node indices."""
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    violations = []
    seen: set[str] = set()
    for position, label in enumerate(order):
        if label not in index:
            violations.append(Violation("unknown-node", f"position {position} names unknown node '{label}'"))
        elif label in seen:
            violations.append(Violation("duplicate", f"node '{label}' runs twice (again at position {position})"))
        seen.add(label)
    missing = [node.name for node in instance.nodes if node.name not in seen]
    if missing:
        shown = ", ".join(missing[:5]) + (f" (+{len(missing) - 5} more)" if len(missing) > 5 else "")
        violations.append(Violation("missing", f"{len(missing)} node(s) never run: {shown}"))
    if violations:
        return violations, []
    return [], [index[label] for label in order]


def memory_levels(instance: Instance, start: Sequence[int]) -> list[tuple[int, int]]:
    """``(time, memory held from that time on)`` of a parallel schedule, at every time the level changes.

    Node i holds n_i on ``[s_i, e_i)`` and f_i on ``[s_i, L_i)``, L_i the
    latest end of its successors (its own end for a sink). All changes at
    one instant are applied together, which is "frees before allocations".
    The sums run in numpy (int64; in Python integers when the numbers could
    overflow it).
    """
    nodes = instance.nodes
    if not nodes:
        return []
    columns = [[v.time for v in nodes], [v.exec for v in nodes], [v.output for v in nodes], list(start)]
    wide = max(max(columns[3]) + max(columns[0]), sum(columns[1]) + sum(columns[2])) >= 1 << 62
    kind = object if wide else np.int64
    times, execs, outputs, begins = (np.array(column, dtype=kind) for column in columns)
    ends = begins + times
    released = ends.copy()  # a sink's output goes at its own end
    if instance.edges:
        u, v = np.array(instance.edges, dtype=np.int64).T
        consumed = np.array([-1] * len(nodes), dtype=kind)
        np.maximum.at(consumed, u, ends[v])
        released = np.where(consumed >= 0, consumed, released)
    at, size, until = [], [], []
    for hold_until, held in ((ends, execs), (released, outputs)):
        used = (held != 0) & (hold_until > begins)
        at.append(begins[used])
        size.append(held[used])
        until.append(hold_until[used])
    instants = np.concatenate([*at, *until])
    changes = np.concatenate([*size, *(-x for x in size)])
    if not len(instants):
        return []
    order = np.argsort(instants, kind="stable")
    instants, changes = instants[order], changes[order]
    held_after = np.cumsum(changes)
    last = np.append(instants[1:] != instants[:-1], True)  # the level after every change at one instant
    return [(int(t), int(h)) for t, h in zip(instants[last], held_after[last], strict=True)]


def _schedule_key_violations(names: Sequence[str], solution: Solution) -> list[Violation]:
    """Nodes the start and processor maps name but the instance lacks, or lack."""
    violations = []
    for key, mapping in (("start", solution.start or {}), ("processor", solution.processor or {})):
        unknown = sorted(set(mapping) - set(names))
        missing = [name for name in names if name not in mapping]
        if unknown:
            violations.append(Violation("unknown-node", f"{key} names unknown node(s) {', '.join(unknown[:5])}"))
        if missing:
            violations.append(Violation("missing", f"{key} lacks {len(missing)} node(s): {', '.join(missing[:5])}"))
    return violations


def _placement_violations(
    instance: Instance, names: Sequence[str], start: Sequence[int], processor: Sequence[int]
) -> list[Violation]:
    """Negative starts and processors outside 0..p-1."""
    violations = []
    for i, name in enumerate(names):
        if start[i] < 0:
            violations.append(Violation("negative-start", f"'{name}' starts at {start[i]} < 0"))
        if not 0 <= processor[i] < (instance.processors or 0):
            violations.append(
                Violation(
                    "processor",
                    f"'{name}' runs on processor {processor[i]}, valid: 0..{(instance.processors or 0) - 1}",
                )
            )
    return violations


def _precedence_violations(instance: Instance, names: Sequence[str], start: Sequence[int]) -> list[Violation]:
    """Edges (u, v) where v starts before u ends."""
    nodes = instance.nodes
    return [
        Violation(
            "precedence",
            f"'{names[v]}' starts at {start[v]} before its predecessor '{names[u]}' ends at {start[u] + nodes[u].time}",
        )
        for u, v in instance.edges
        if start[v] < start[u] + nodes[u].time
    ]


def _overlap_violations(
    instance: Instance, names: Sequence[str], start: Sequence[int], processor: Sequence[int]
) -> list[Violation]:
    """Two nodes on one processor at once (each node against the one before it by start)."""
    by_processor: dict[int, list[tuple[int, int, int]]] = {}
    for i in range(len(names)):
        by_processor.setdefault(processor[i], []).append((start[i], start[i] + instance.nodes[i].time, i))
    violations = []
    for proc, intervals in by_processor.items():
        intervals.sort()
        for (_s1, e1, i1), (s2, _, i2) in itertools.pairwise(intervals):
            if s2 < e1:
                violations.append(
                    Violation(
                        "overlap",
                        f"'{names[i2]}' starts at {s2} on processor {proc} while '{names[i1]}' runs until {e1}",
                    )
                )
    return violations


def _memory_violations(instance: Instance, start: Sequence[int]) -> list[Violation]:
    """Times from which more than M is held."""
    memory = instance.memory or 0
    return [
        Violation(
            "memory",
            f"{held} held from time {time} on, memory is {instance.memory} (over by {held - memory})",
        )
        for time, held in memory_levels(instance, start)
        if held > memory
    ]


def _validate_schedule(instance: Instance, solution: Solution) -> list[Violation]:
    if solution.start is None or solution.processor is None:
        return [Violation("kind", "the parallel question needs a start and a processor per node, got an order")]
    names = [node.name for node in instance.nodes]
    violations = _schedule_key_violations(names, solution)
    if violations:
        return violations
    start = [solution.start[name] for name in names]
    processor = [solution.processor[name] for name in names]
    return [
        *_placement_violations(instance, names, start, processor),
        *_precedence_violations(instance, names, start),
        *_overlap_violations(instance, names, start, processor),
        *_memory_violations(instance, start),
    ]


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Sequential rules: ``unknown-node``, ``duplicate``, ``missing`` (the order
    is a permutation of the nodes) and ``precedence`` (every edge u -> v has u
    before v). The sequential question has no memory limit: any topological
    order is feasible, its peak is the objective. Parallel rules: ``missing``
    / ``unknown-node`` (one start and one processor per node),
    ``negative-start``, ``processor`` (0..p-1), ``precedence`` (s_v >= s_u +
    w_u), ``overlap`` (one node at a time per processor), ``memory`` (held <=
    M at every instant, see `memory_levels`). Out-of-core: the sequential
    rules on the order, then ``io-kind``, ``io-position``,
    ``evict-not-resident``, ``reload-not-evicted``, ``input-not-resident``
    and ``memory`` (see `hpcsched.treemem.model.out_of_core`).
    """
    if instance.question == "parallel":
        return _validate_schedule(instance, solution)
    if solution.order is None:
        return [Violation("kind", "the sequential question needs an order, got a schedule")]
    order_violations, checked = _order_indices(instance, solution.order)
    if order_violations:
        return order_violations
    if solution.io is not None and instance.question != "out-of-core":
        return [
            Violation(
                "kind", f"io events answer the out-of-core question; the instance asks the {instance.question} one"
            )
        ]
    position = {node: k for k, node in enumerate(checked)}
    violations = []
    for u, v in instance.edges:
        if position[u] > position[v]:
            violations.append(
                Violation(
                    "precedence",
                    f"'{instance.nodes[v].name}' (position {position[v]}) runs before its predecessor "
                    f"'{instance.nodes[u].name}' (position {position[u]})",
                )
            )
    if instance.question == "out-of-core" and not violations:
        violations, _ = out_of_core_model.replay(instance, checked, solution)
    return violations


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Peak memory (the objective) and KPIs of a valid traversal.

    KPIs: ``peak_memory``; ``peak_position`` (first step at the peak);
    ``peak_keep_sinks`` (the peak under memDAG's convention, sink outputs
    kept); ``max_memreq`` (max over nodes of the memory of its own step
    alone, a lower bound); ``total_time`` (Σ w, the sequential makespan).
    """
    if instance.question == "parallel":
        return _evaluate_schedule(instance, solution)
    if solution.order is None:
        raise ValueError("the sequential questions need an order, got a schedule")
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    order = [index[label] for label in solution.order]
    if instance.question == "out-of-core":
        return out_of_core_model.evaluate(instance, order, solution)
    profile = memory_profile(instance, order)
    peak = max(profile)
    outputs = instance.outputs
    memreq = max(
        sum([outputs[p] for p in predecessors]) + size + output
        for predecessors, size, output in zip(instance.predecessors, instance.exec_sizes, outputs, strict=True)
    )
    return {
        "objective": float(peak),
        "peak_memory": float(peak),
        "peak_position": float(profile.index(peak)),
        "peak_keep_sinks": float(max(memory_profile(instance, order, keep_sinks=True))),
        "max_memreq": float(memreq),
        "total_time": float(sum(node.time for node in instance.nodes)),
    }


def _evaluate_schedule(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective), peak memory and utilisation of a valid parallel schedule."""
    names = [node.name for node in instance.nodes]
    start = [solution.start[name] for name in names]  # type: ignore[index]
    makespan = max(s + node.time for s, node in zip(start, instance.nodes, strict=False))
    peak = max((held for _, held in memory_levels(instance, start)), default=0)
    work = sum(node.time for node in instance.nodes)
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.memory if instance.memory else 0.0,
        "total_work": float(work),
        "processor_utilisation": work / (makespan * (instance.processors or 1)) if makespan else 0.0,
    }


def peak_of(instance: Instance, solution: Solution) -> int:
    """The integer peak memory (`evaluate`'s objective as an int)."""
    return int(evaluate(instance, solution)["objective"])


def other_question(instance: Instance, question: str) -> Any:
    """A NOT_APPLICABLE Result when ``instance`` asks another question than ``question``, else None."""
    if instance.question == question:
        return None
    from ...core.result import Result, Status

    return Result(
        status=Status.NOT_APPLICABLE,
        notes=(f"this method answers the {question} question; the instance asks the {instance.question} one",),
    )
