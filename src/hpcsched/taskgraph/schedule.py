"""Schedules of task graphs on machines, and their validator.

The vocabulary shared by every problem that places the tasks of a DAG on
machines (``hetero``: CPUs and GPUs; ``partition``: K GPUs):

* a machine is a pair ``(machine_class, index)``: ``index`` in
  ``range(machines[machine_class])``; machines of one class are identical;
* an `Edge` ``(u, v, delay)`` says that task ``v`` starts after ``u`` ends,
  plus ``delay`` when the two run apart: on different *classes* when the
  rule is ``"class"`` (hetero's cross-type communication), on different
  *machines* when it is ``"machine"`` (partition's transfers);
* a `Placement` is where and when a task runs: ``(machine_class, machine,
  start, duration)``.

`validate_machine_schedule` is written from these definitions alone. It
shares no code with the list-scheduling engine (`hpcsched.taskgraph.engine`),
so the tests can hold one against the other.
"""

from __future__ import annotations

import math
import numbers
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..core.violation import Violation

#: When an edge's delay is charged: ``"class"`` (endpoints on different
#: machine classes) or ``"machine"`` (endpoints on different machines).
DelayRule = Literal["class", "machine"]


@dataclass(frozen=True)
class Edge:
    """Precedence ``u -> v`` (task indices) with the delay charged when they run apart."""

    u: int
    v: int
    delay: float = 0


@dataclass(frozen=True)
class Placement:
    """Where and when one task runs.

    Attributes
    ----------
    machine_class
        The class of the machine (``"cpu"``, ``"gpu"``, ...).
    machine
        Index of the machine within its class.
    start
        Start time.
    duration
        Time the task occupies the machine (its processing time there).
    """

    machine_class: Hashable
    machine: int
    start: float
    duration: float

    @property
    def end(self) -> float:
        return self.start + self.duration


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def charged_delay(edge: Edge, first: Placement, second: Placement, rule: DelayRule) -> float:
    """The delay of ``edge`` between the placements of its endpoints under ``rule``."""
    if rule == "class":
        apart = first.machine_class != second.machine_class
    else:
        apart = (first.machine_class, first.machine) != (second.machine_class, second.machine)
    return edge.delay if apart else 0


def validate_machine_schedule(
    placements: Sequence[Placement],
    machines: Mapping[Hashable, int],
    edges: Sequence[Edge],
    *,
    rule: DelayRule,
    names: Sequence[str] | None = None,
) -> list[Violation]:
    """Every rule of a schedule on machines that ``placements`` breaks ([] = feasible).

    Parameters
    ----------
    placements
        One `Placement` per task, in task order.
    machines
        Machine class -> number of identical machines of that class.
    edges
        Precedence edges between task indices.
    rule
        When an edge's delay is charged (see `DelayRule`).
    names
        Task names for the messages (default ``task <index>``).

    Returns
    -------
    list of Violation
        Rules: ``machine-class`` (unknown class), ``machine-index`` (index
        outside ``0..count-1``), ``start`` (non-finite or negative start),
        ``duration`` (non-finite or negative duration), ``overlap`` (two
        tasks on one machine at the same time; an empty interval
        ``[s, s)`` overlaps nothing), ``precedence`` (``start_v <
        end_u + charged delay``).
    """
    label = _TaskLabel(names)
    violations: list[Violation] = []
    well_formed = []
    for j, placed in enumerate(placements):
        found = _placement_violations(placed, machines, label(j))
        violations += found
        well_formed.append(not found)
    violations += _overlap_violations(placements, well_formed, label)
    violations += _precedence_violations(placements, well_formed, edges, rule, label)
    return violations


@dataclass(frozen=True)
class _TaskLabel:
    """How the messages name a task: ``task 3 'conv1'``, or ``task 3`` without names."""

    names: Sequence[str] | None

    def __call__(self, j: int) -> str:
        return f"task {j} '{self.names[j]}'" if self.names is not None else f"task {j}"


def _placement_violations(placed: Placement, machines: Mapping[Hashable, int], task: str) -> list[Violation]:
    """What is wrong with one placement on its own: its machine, its start, its duration."""
    violations = []
    if placed.machine_class not in machines:
        violations.append(Violation("machine-class", f"{task} runs on unknown machine class {placed.machine_class!r}"))
    elif not (
        isinstance(placed.machine, numbers.Integral)
        and not isinstance(placed.machine, bool)
        and 0 <= placed.machine < machines[placed.machine_class]
    ):
        violations.append(
            Violation(
                "machine-index",
                f"{task} runs on {placed.machine_class} {placed.machine!r}, which does not exist "
                f"({machines[placed.machine_class]} machines of that class)",
            )
        )
    if not _finite_non_negative(placed.start):
        violations.append(Violation("start", f"{task} starts at {placed.start!r} (must be finite and >= 0)"))
    if not _finite_non_negative(placed.duration):
        violations.append(Violation("duration", f"{task} lasts {placed.duration!r} (must be finite and >= 0)"))
    return violations


def _finite_non_negative(value: object) -> bool:
    return _is_number(value) and math.isfinite(value) and value >= 0  # type: ignore[arg-type,operator]


@dataclass(frozen=True, order=True)
class _Busy:
    """A task's non-empty interval on its machine (ordered by start, then end, then task)."""

    start: float
    end: float
    task: int


def _overlap_violations(
    placements: Sequence[Placement], well_formed: Sequence[bool], label: _TaskLabel
) -> list[Violation]:
    """One task at a time per machine: sort the non-empty intervals of each machine by start
    and compare each with the latest end seen so far."""
    by_machine: dict[tuple, list[_Busy]] = defaultdict(list)
    for j, placed in enumerate(placements):
        if well_formed[j] and placed.duration > 0:
            by_machine[(placed.machine_class, placed.machine)].append(_Busy(placed.start, placed.end, j))
    violations = []
    for (machine_class, machine), intervals in sorted(by_machine.items(), key=lambda item: repr(item[0])):
        intervals.sort()
        latest_end, latest_task = -math.inf, -1
        for busy in intervals:
            if busy.start < latest_end:
                violations.append(
                    Violation(
                        "overlap",
                        f"{label(busy.task)} runs on {machine_class} {machine} during [{busy.start}, {busy.end}) "
                        f"while {label(latest_task)} holds it until {latest_end}",
                    )
                )
            if busy.end > latest_end:
                latest_end, latest_task = busy.end, busy.task
    return violations


def _precedence_violations(
    placements: Sequence[Placement],
    well_formed: Sequence[bool],
    edges: Sequence[Edge],
    rule: DelayRule,
    label: _TaskLabel,
) -> list[Violation]:
    """Edges naming no task, and tasks that start before a predecessor's end plus the charged delay."""
    violations = []
    for edge in edges:
        if not (0 <= edge.u < len(placements) and 0 <= edge.v < len(placements)):
            violations.append(Violation("edge", f"edge {edge.u} -> {edge.v} names a task that does not exist"))
            continue
        if not (well_formed[edge.u] and well_formed[edge.v]):
            continue
        first, second = placements[edge.u], placements[edge.v]
        ready = first.end + charged_delay(edge, first, second, rule)
        if second.start < ready:
            violations.append(
                Violation(
                    "precedence",
                    f"{label(edge.v)} starts at {second.start} before {label(edge.u)} ends at {first.end}"
                    + (f" plus delay {ready - first.end}" if ready != first.end else "")
                    + f" (ready at {ready})",
                )
            )
    return violations


def makespan(placements: Sequence[Placement]) -> float:
    """Latest end of a placement (0 for no task)."""
    return max((p.end for p in placements), default=0)
