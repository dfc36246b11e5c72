"""The validator written from the definition, the objective and the placements of a solution."""

from __future__ import annotations

from ...core.violation import Violation
from ...taskgraph import Placement, validate_machine_schedule
from .data import TYPES, Instance
from .solution import Solution


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Rules: ``size`` (one type, machine and start per task); ``type`` (not
    ``"cpu"``/``"gpu"``); ``forbidden-type`` (the task's time on the chosen
    type is null); then the shared schedule rules of
    `hpcsched.taskgraph.validate_machine_schedule`: ``machine-index``
    (outside ``0..m-1`` / ``0..k-1``; any index is out of range on a type
    with no machine), ``start`` (negative), ``overlap``, ``precedence``
    (S_v >= C_u, + c_uv when the types differ).
    """
    n = instance.n
    if not (len(solution.type) == len(solution.machine) == len(solution.start) == n):
        return [
            Violation(
                "size",
                f"expected {n} types, machines and starts, got {len(solution.type)}, "
                f"{len(solution.machine)} and {len(solution.start)}",
            )
        ]
    violations = []
    placements = []
    for j, (kind, machine, start) in enumerate(zip(solution.type, solution.machine, solution.start, strict=False)):
        task = instance.tasks[j]
        if kind not in TYPES:
            violations.append(Violation("type", f"task {j} '{task.name}' has type {kind!r} (must be cpu or gpu)"))
            placements.append(Placement("invalid", machine, start, 0))
            continue
        duration = task.time(kind)
        if duration is None:
            violations.append(Violation("forbidden-type", f"task {j} '{task.name}' cannot run on a {kind.upper()}"))
            duration = 0
        placements.append(Placement(kind, machine, start, duration))
    schedule_violations = validate_machine_schedule(
        placements,
        {"cpu": instance.cpus, "gpu": instance.gpus, "invalid": 0},
        instance.edges,
        rule="class",
        names=[t.name for t in instance.tasks],
    )
    # A task of an invalid type was reported above; its "machine-index" on the dummy class is noise.
    return violations + [
        v for v in schedule_violations if not (v.rule == "machine-index" and "runs on invalid" in v.message)
    ]


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective) and KPIs.

    KPIs: ``makespan``; ``cpu_utilization`` and ``gpu_utilization`` (busy
    time / (machines x makespan), 0 without such machines); ``gpu_work_share``
    (GPU busy time / total busy time); ``tasks_on_gpu``; ``cross_type_edges``
    (edges whose endpoints run on different types) and ``communication``
    (their total c_uv).
    """
    busy = {"cpu": 0, "gpu": 0}
    ends = []
    for j, (kind, start) in enumerate(zip(solution.type, solution.start, strict=False)):
        duration = instance.tasks[j].time(kind) or 0
        busy[kind] += duration
        ends.append(start + duration)
    makespan = max(ends, default=0)
    cross = [e for e in instance.edges if solution.type[e.u] != solution.type[e.v]]
    total = busy["cpu"] + busy["gpu"]
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "cpu_utilization": busy["cpu"] / (instance.cpus * makespan) if instance.cpus and makespan else 0.0,
        "gpu_utilization": busy["gpu"] / (instance.gpus * makespan) if instance.gpus and makespan else 0.0,
        "gpu_work_share": busy["gpu"] / total if total else 0.0,
        "tasks_on_gpu": float(sum(1 for kind in solution.type if kind == "gpu")),
        "cross_type_edges": float(len(cross)),
        "communication": float(sum(e.delay for e in cross)),
    }


def schedule_of(instance: Instance, solution: Solution) -> list[Placement]:
    """The placements of a (valid) solution, for plots and heuristics."""
    return [
        Placement(kind, machine, start, instance.tasks[j].time(kind) or 0)
        for j, (kind, machine, start) in enumerate(zip(solution.type, solution.machine, solution.start, strict=False))
    ]
