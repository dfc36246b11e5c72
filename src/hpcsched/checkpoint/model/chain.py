"""Kind ``chain``: the held values of a sequence, its memory profile, evaluate and validate.

Written from the definition (see `data` for the modelling choices); shares no
code with the formulations, special cases or heuristics.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from ...core.violation import Violation
from .data import LINK_OPERATIONS, Instance
from .solution import Solution


@dataclass
class _Trace:
    """Held intervals (first op, last op, bytes, value) and refused reads of one sequence."""

    intervals: list[tuple[int, int, int, str]]
    problems: list[Violation]


@dataclass(frozen=True)
class _Positions:
    """Where a sequence produces xbar_i (``Fall i-1``), reads it explicitly (``B i-1``) and runs ``B i`` first."""

    xbar_productions: dict[int, list[int]]
    explicit_xbar_reads: dict[int, list[int]]
    backward_at: dict[int, int]


def _positions(length: int, sequence: tuple[tuple[str, int], ...]) -> _Positions:
    """The xbar productions, explicit xbar reads and first backward positions of ``sequence``."""
    xbar_productions: dict[int, list[int]] = {i: [] for i in range(1, length + 1)}
    explicit_xbar_reads: dict[int, list[int]] = {i: [] for i in range(1, length + 1)}
    backward_at: dict[int, int] = {}
    for t, (name, i) in enumerate(sequence):
        if name == "Fall":
            xbar_productions[i + 1].append(t)
        elif name == "B":
            backward_at.setdefault(i, t)
            if i < length:
                explicit_xbar_reads[i + 1].append(t)
    return _Positions(xbar_productions, explicit_xbar_reads, backward_at)


def _xbar_intervals(positions: _Positions, n: int) -> dict[int, list[tuple[int, int]]]:
    """xbar_i: held from producer to its last explicit read before the next production.

    The spans of one xbar_i are disjoint and in sequence order (each ends before the next production).
    """
    xbar_interval: dict[int, list[tuple[int, int]]] = {}
    for i, starts in positions.xbar_productions.items():
        reads = positions.explicit_xbar_reads[i]  # in sequence order: the last one before `stop` by bisection
        spans = []
        for k, start in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else n
            last = bisect_left(reads, stop) - 1
            spans.append((start, reads[last] if last >= 0 and reads[last] > start else start))
        xbar_interval[i] = spans
    return xbar_interval


def _backward_read_problems(positions: _Positions, t: int, i: int, n: int) -> list[Violation]:
    """``B i`` at t (i < L) reads xbar_{i+1} and delta_{i+1}: both must have been produced before."""
    problems = []
    productions = positions.xbar_productions[i + 1]  # in sequence order
    if not (productions and productions[0] < t):
        problems.append(Violation("not-held", f"operation {t} (B {i}) reads xbar_{i + 1}, never produced before"))
    if positions.backward_at.get(i + 1, n) >= t:
        problems.append(Violation("not-held", f"operation {t} (B {i}) reads delta_{i + 1}, not produced before"))
    return problems


def _trace(instance: Instance, sequence: tuple[tuple[str, int], ...]) -> _Trace:
    """Apply rules 1-2 of the definition: who serves each read, how long each value is held."""
    L, n = instance.length, len(sequence)
    problems: list[Violation] = []
    positions = _positions(L, sequence)
    xbar_interval = _xbar_intervals(positions, n)

    def served_by_xbar(i: int, t: int) -> bool:
        # the spans are disjoint and ordered: only the last one starting before t can hold t
        if i < 1:
            return False
        last = bisect_left(positions.xbar_productions[i], t) - 1
        return last >= 0 and t <= xbar_interval[i][last][1]

    x_production_end: dict[tuple[int, int], int] = {}  # (i, producer position) -> last read
    latest_x: dict[int, int] = {0: -1}  # i -> position of the most recent production (-1: x_0 at the start)
    x0_last = 0
    for t, (name, i) in enumerate(sequence):
        # every operation reads x_i (F i, Fall i, B i; B L reads x_L)
        if served_by_xbar(i, t):
            pass
        elif i not in latest_x:
            problems.append(Violation("not-held", f"operation {t} ({name} {i}) reads x_{i}, which is not held"))
        elif i == 0:
            x0_last = t
        else:
            x_production_end[(i, latest_x[i])] = t
        if name == "B" and i < L:
            problems += _backward_read_problems(positions, t, i, n)
        if name == "F":
            latest_x[i + 1] = t
            x_production_end[(i + 1, t)] = t
    intervals = [(0, x0_last, instance.x[0], "x_0")]
    intervals += [(start, end, instance.x[i], f"x_{i}") for (i, start), end in x_production_end.items()]
    for i, spans in xbar_interval.items():
        intervals += [(start, end, instance.xbar[i], f"xbar_{i}") for start, end in spans]
    for i, start in positions.backward_at.items():
        end = n - 1 if i == 0 else positions.backward_at.get(i - 1, start)
        intervals.append((start, max(start, end), instance.x[i], f"delta_{i}"))
    return _Trace(intervals, problems)


def _operation_time(instance: Instance, name: str, stage: int) -> int:
    return instance.bw[stage] if name == "B" else instance.fw[stage]


def _transient(instance: Instance, name: str, stage: int) -> int:
    return instance.btmp[stage] if name == "B" else instance.ftmp[stage]


def memory_profile(instance: Instance, solution: Solution) -> list[int]:
    """Bytes held during each operation, its transient included (rule 3's left-hand side)."""
    return _profile(instance, solution.sequence, _trace(instance, solution.sequence))


def _profile(instance: Instance, sequence: tuple[tuple[str, int], ...], trace: _Trace) -> list[int]:
    """`memory_profile` from the sequence's trace."""
    n = len(sequence)
    if n == 0:  # nothing runs, nothing is measured (validate reports the missing backwards)
        return []
    delta = [0] * (n + 1)
    for start, end, size, _ in trace.intervals:
        delta[start] += size
        delta[min(end, n - 1) + 1] -= size
    profile, held = [], 0
    for t, (name, stage) in enumerate(sequence):
        held += delta[t]
        profile.append(held + _transient(instance, name, stage))
    return profile


def evaluate_chain(instance: Instance, solution: Solution) -> dict[str, float]:
    """Total time (the objective) and KPIs of a sequence.

    KPIs: ``total_time``; ``recomputation_time`` = objective − Σfw − Σbw;
    ``peak_memory`` (bytes) and ``peak_memory_fraction`` (of M);
    ``forward_ops`` (F and Fall operations run); ``operations``.
    Kind ``chain-offload``: see `two_levels.evaluate` (objective = makespan).
    """
    if any(name in LINK_OPERATIONS for name, _ in solution.sequence):
        nan = float("nan")
        return {
            "objective": nan,
            "total_time": nan,
            "recomputation_time": nan,
            "peak_memory": nan,
            "peak_memory_fraction": nan,
            "forward_ops": nan,
            "operations": float(len(solution.sequence)),
        }
    in_range = all(
        stage <= (instance.length if name == "B" else instance.length - 1) for name, stage in solution.sequence
    )
    if not in_range:  # `validate` reports the stage; nothing here can be measured
        nan = float("nan")
        return {
            "objective": nan,
            "total_time": nan,
            "recomputation_time": nan,
            "peak_memory": nan,
            "peak_memory_fraction": nan,
            "forward_ops": nan,
            "operations": float(len(solution.sequence)),
        }
    total = sum(_operation_time(instance, name, stage) for name, stage in solution.sequence)
    profile = memory_profile(instance, solution) if solution.sequence else [0]
    peak = max(profile)
    return {
        "objective": float(total),
        "total_time": float(total),
        "recomputation_time": float(total - instance.compute_time),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.memory if instance.memory else float("inf"),
        "forward_ops": float(sum(1 for name, _ in solution.sequence if name != "B")),
        "operations": float(len(solution.sequence)),
    }


def validate_chain(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = valid).

    Rules: ``stage`` (an operation on a stage that does not exist),
    ``not-held`` (rule 1: a read value is not held), ``backward-order``
    (rule 4: each ``B i`` once, in the order L..0), ``memory`` (rule 3).
    Kind ``chain-offload``: `two_levels.validate`, the definition over time.
    """
    link = [f"{name} {stage}" for name, stage in solution.sequence if name in LINK_OPERATIONS]
    if link:
        return [Violation("no-host", f"kind 'chain' has no host level; link operations {link[:3]} are not allowed")]
    L = instance.length
    for t, (name, stage) in enumerate(solution.sequence):
        top = L if name == "B" else L - 1
        if stage > top:
            return [Violation("stage", f"operation {t} ({name} {stage}) names a stage > {top}")]
    violations: list[Violation] = []
    backwards = [stage for name, stage in solution.sequence if name == "B"]
    if backwards != list(range(L, -1, -1)):
        violations.append(
            Violation(
                "backward-order",
                f"the backward operations must be B {L}..B 0, once each, in that order; got {backwards}",
            )
        )
    trace = _trace(instance, solution.sequence)
    violations.extend(trace.problems)
    for t, used in enumerate(_profile(instance, solution.sequence, trace)):
        if used > instance.memory:
            name, stage = solution.sequence[t]
            violations.append(
                Violation(
                    "memory",
                    f"operation {t} ({name} {stage}) needs {used} bytes, budget is {instance.memory} "
                    f"(over by {used - instance.memory})",
                )
            )
    return violations
