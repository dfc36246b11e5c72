"""ParDNN-style refinement after the mapping: node switching and load balancing, each stage scheduled."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.deadline import Deadline
from ...core.result import Result
from ..model import Instance
from ..simulate import (
    Unit,
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
    load = [0] * instance.gpus
    for v in range(instance.n):
        load[gpu_of[v]] += times[v]
    limit = (1 + params.balance_slack) * sum(times) / instance.gpus
    memory = [0] * instance.gpus
    for v in range(instance.n):
        memory[gpu_of[v]] += own_memory(instance, v)
    moves = 0
    for _ in range(params.refinement_passes):
        deadline.check("refining (node switching)")
        changed = False
        for unit in unit_list:
            if unit.pin is not None or any(slack[v] <= 0 for v in unit.members):
                continue
            current = gpu_of[unit.members[0]]
            inside = set(unit.members)
            comm: dict[int, int] = defaultdict(int)
            for v in unit.members:
                for other, cost in incident[v]:
                    if other not in inside:
                        comm[gpu_of[other]] += cost
            if not comm:
                continue
            target = max(sorted(comm), key=lambda g: comm[g])
            if target == current or comm[target] <= comm.get(current, 0):
                continue
            unit_time = sum(times[v] for v in unit.members)
            unit_memory = sum(own_memory(instance, v) for v in unit.members)
            if load[target] + unit_time > limit or memory[target] + unit_memory > instance.memory:
                continue
            for v in unit.members:
                gpu_of[v] = target
            load[current] -= unit_time
            load[target] += unit_time
            memory[current] -= unit_memory
            memory[target] += unit_memory
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
    times = instance.times
    gpus = instance.gpus
    load = [0] * gpus
    for v in range(instance.n):
        load[gpu_of[v]] += times[v]
    memory = [0] * gpus
    for v in range(instance.n):
        memory[gpu_of[v]] += own_memory(instance, v)
    limit = (1 + params.balance_slack) * sum(times) / gpus
    moves = 0
    for _ in range(gpus * 4):
        deadline.check("refining (balancing)")
        source = max(range(gpus), key=lambda g: (load[g], -g))
        if load[source] <= limit:
            break
        candidates = []
        for u, unit in enumerate(unit_list):
            if unit.pin is not None or gpu_of[unit.members[0]] != source:
                continue
            unit_time = sum(times[v] for v in unit.members)
            if unit_time == 0:
                continue
            inside = set(unit.members)
            comm: dict[int, int] = defaultdict(int)
            for v in unit.members:
                for other, cost in incident[v]:
                    if other not in inside:
                        comm[gpu_of[other]] += cost
            for h in range(gpus):
                if h != source:
                    added = comm.get(source, 0) - comm.get(h, 0)
                    candidates.append(((1 + max(added, 0)) / unit_time, u, h, unit_time))
        candidates.sort()
        moved_units: set[int] = set()
        for _, u, h, unit_time in candidates:
            if load[source] <= limit:
                break
            if u in moved_units or load[h] + unit_time > limit or load[h] + unit_time >= load[source]:
                continue
            members = unit_list[u].members
            unit_memory = sum(own_memory(instance, v) for v in members)
            if memory[h] + unit_memory > instance.memory:
                continue
            for v in members:
                gpu_of[v] = h
            load[source] -= unit_time
            load[h] += unit_time
            memory[source] -= unit_memory
            memory[h] += unit_memory
            moved_units.add(u)
            moves += 1
        if not moved_units:
            break
    return moves
