"""ParDNN-style refinement after the mapping: node switching and load balancing, each stage scheduled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.deadline import Deadline
from ...core.result import Result
from ..model import Instance
from ..simulate import (
    Unit,
    communication_to,
    enforce_units,
    own_memory,
)
from .common import finish

if TYPE_CHECKING:  # pardnn imports this module; the options type only annotates
    from .pardnn import ParDnnParams


@dataclass(frozen=True)
class Refinement:
    """What the refinement stages share: colocation units, edges, slack, priority, options."""

    instance: Instance
    unit_list: tuple[Unit, ...]
    incident: list[list[tuple[int, int]]]
    slack: list[int]
    priority: list[int]
    params: ParDnnParams
    deadline: Deadline

    def _schedule(self, gpu_of: list[int], note: str) -> Result:
        return finish(self.instance, gpu_of, self.deadline, note, unit_list=self.unit_list, priority=self.priority)

    def stages(self, gpu_of: list[int], label: str) -> list[Result]:
        """Schedules after colocation, after node switching and after balancing (each stage that moved something)."""
        instance, params, deadline = self.instance, self.params, self.deadline
        gpu_of = enforce_units(instance, gpu_of, self.unit_list)
        results = [self._schedule(list(gpu_of), label)]
        moves = _switch_nodes(instance, gpu_of, self.unit_list, self.incident, self.slack, params, deadline)
        if moves:
            results.append(self._schedule(list(gpu_of), f"{label}; {moves} node switches"))
        balance_moves = _balance(instance, gpu_of, self.unit_list, self.incident, params, deadline)
        if balance_moves:
            note = f"{label}; {moves} node switches; {balance_moves} balancing moves"
            results.append(self._schedule(gpu_of, note))
        return results


@dataclass
class _Loads:
    """Work (Σ p) and static memory ledger (Σ (w + s)) per GPU, kept up to date as units move."""

    work: list[int]
    memory: list[int]

    @classmethod
    def of(cls, instance: Instance, gpu_of: list[int]) -> _Loads:
        work, memory = [0] * instance.gpus, [0] * instance.gpus
        for v, time in enumerate(instance.times):
            work[gpu_of[v]] += time
            memory[gpu_of[v]] += own_memory(instance, v)
        return cls(work, memory)

    def move(self, gpu_of: list[int], members, unit_time: int, unit_memory: int, source: int, target: int) -> None:
        """``members`` (a unit) from ``source`` to ``target``."""
        for v in members:
            gpu_of[v] = target
        self.work[source] -= unit_time
        self.work[target] += unit_time
        self.memory[source] -= unit_memory
        self.memory[target] += unit_memory


def _unit_memory(instance: Instance, members) -> int:
    return sum(own_memory(instance, v) for v in members)


def _switch_nodes(
    instance: Instance,
    gpu_of: list[int],
    unit_list,
    incident,
    slack: list[int],
    params: ParDnnParams,
    deadline: Deadline,
) -> int:
    """Refinement by node (unit) switching, in place; returns the number of moves.

    A unit moves to the GPU it has the most communication with when that
    saves communication, none of its nodes is on a critical path (slack =
    critical length - top - bottom > 0: moving a critical node would
    reorder the critical path), the target's work stays under
    (1 + ``balance_slack``) x the mean and its memory ledger (static part)
    within M.
    """
    times = instance.times
    loads = _Loads.of(instance, gpu_of)
    limit = (1 + params.balance_slack) * sum(times) / instance.gpus
    moves = 0
    for _ in range(params.refinement_passes):
        deadline.check("refining (node switching)")
        changed = False
        for unit in unit_list:
            if unit.pin is not None or any(slack[v] <= 0 for v in unit.members):
                continue
            current = gpu_of[unit.members[0]]
            comm = communication_to(instance, unit.members, gpu_of, incident)
            if not comm:
                continue
            target = max(sorted(comm), key=lambda g: comm[g])
            if target == current or comm[target] <= comm.get(current, 0):
                continue
            unit_time = sum(times[v] for v in unit.members)
            unit_memory = _unit_memory(instance, unit.members)
            if loads.work[target] + unit_time > limit or loads.memory[target] + unit_memory > instance.memory:
                continue
            loads.move(gpu_of, unit.members, unit_time, unit_memory, current, target)
            moves += 1
            changed = True
        if not changed:
            break
    return moves


def _balance(
    instance: Instance, gpu_of: list[int], unit_list, incident, params: ParDnnParams, deadline: Deadline
) -> int:
    """Refinement by load balancing, in place: move units off the busiest GPU, least communication per time moved first.

    Colocation can pull most of the work onto the GPU of the critical path
    (a forward node and its backward node share a group); this moves units
    from the GPU with the most work to the one with the least while the
    first exceeds (1 + ``balance_slack``) x the mean, choosing the unit of
    smallest (1 + communication added) / time, and keeping the target's
    memory ledger (static part) within M. Returns the number of moves.
    """
    gpus = instance.gpus
    loads = _Loads.of(instance, gpu_of)
    limit = (1 + params.balance_slack) * sum(instance.times) / gpus
    moves = 0
    for _ in range(gpus * 4):
        deadline.check("refining (balancing)")
        source = max(range(gpus), key=lambda g: (loads.work[g], -g))
        if loads.work[source] <= limit:
            break
        candidates = _balance_candidates(instance, gpu_of, unit_list, incident, source)
        moved = _balance_moves(instance, gpu_of, unit_list, loads, candidates, source, limit)
        if not moved:
            break
        moves += moved
    return moves


def _balance_candidates(
    instance: Instance, gpu_of: list[int], unit_list, incident, source: int
) -> list[tuple[float, int, int, int]]:
    """``(cost, unit, target, unit time)`` for every unpinned unit of positive time on ``source`` and every other GPU,
    cheapest first; cost = (1 + communication added) / time."""
    times = instance.times
    candidates = []
    for u, unit in enumerate(unit_list):
        if unit.pin is not None or gpu_of[unit.members[0]] != source:
            continue
        unit_time = sum(times[v] for v in unit.members)
        if unit_time == 0:
            continue
        comm = communication_to(instance, unit.members, gpu_of, incident)
        for h in range(instance.gpus):
            if h != source:
                added = comm.get(source, 0) - comm.get(h, 0)
                candidates.append(((1 + max(added, 0)) / unit_time, u, h, unit_time))
    candidates.sort()
    return candidates


def _balance_moves(
    instance: Instance,
    gpu_of: list[int],
    unit_list,
    loads: _Loads,
    candidates: list[tuple[float, int, int, int]],
    source: int,
    limit: float,
) -> int:
    """Make the candidate moves in order while ``source`` is above ``limit`` (each unit once, the target staying
    below the limit, below the source and within memory); returns how many."""
    moved_units: set[int] = set()
    for _, u, h, unit_time in candidates:
        if loads.work[source] <= limit:
            break
        if u in moved_units or loads.work[h] + unit_time > limit or loads.work[h] + unit_time >= loads.work[source]:
            continue
        members = unit_list[u].members
        unit_memory = _unit_memory(instance, members)
        if loads.memory[h] + unit_memory > instance.memory:
            continue
        loads.move(gpu_of, members, unit_time, unit_memory, source, h)
        moved_units.add(u)
    return len(moved_units)
