"""Brute force: every assignment of a tiny instance, the reference every other method is checked against."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ..model import Instance, Solution
from .common import CHECK_EVERY, not_applicable


@dataclass(frozen=True)
class BruteForceParams:
    """Options of `brute_force`.

    Attributes
    ----------
    max_assignments
        Largest number of assignments enumerated (more: NOT_APPLICABLE).
    """

    max_assignments: int = 300_000

    def __post_init__(self) -> None:
        at_least("max_assignments", self.max_assignments, 1)


@dataclass(frozen=True)
class _Best:
    """The best assignment so far and its value: (count,) under objective 1, (count, makespan) under objective 2."""

    value: tuple[int, ...]
    assignment: tuple[int, ...]


def _no_idle_order_ok(lengths_by_server: list[list[int]]) -> bool:
    """Whether queues run longest task last satisfy max start <= min completion."""
    latest = max((sum(lengths) - max(lengths) for lengths in lengths_by_server if lengths), default=0)
    earliest = min(sum(lengths) for lengths in lengths_by_server)
    return latest <= earliest


class _Enumeration:
    """The value of one assignment under the instance's objective (None: it breaks the no-idle rule)."""

    def __init__(self, instance: Instance):
        self.instance = instance
        self.durations = instance.durations.tolist()
        self.replica_sets = [instance.replicas(j).tolist() for j in range(instance.num_tasks)]
        everywhere = list(range(instance.servers))
        self.choices = self.replica_sets if instance.objective == "makespan" else [everywhere] * instance.num_tasks

    def count(self, limit: int) -> int | None:
        """The number of assignments, or None when it exceeds ``limit``."""
        count = 1
        for options in self.choices:
            count *= len(options)
            if count > limit:
                return None
        return count

    def value(self, assignment: Sequence[int]) -> tuple[int, ...] | None:
        if self.instance.objective == "makespan":
            loads = [0] * self.instance.servers
            for j, server in enumerate(assignment):
                loads[server] += self.durations[j]
            return (max(loads),)
        lengths: list[list[int]] = [[] for _ in range(self.instance.servers)]
        remote = 0
        for j, server in enumerate(assignment):
            is_local = server in self.replica_sets[j]
            remote += not is_local
            lengths[server].append(self.durations[j] + (0 if is_local else self.instance.remote_cost))
        if not _no_idle_order_ok(lengths):
            return None
        return (remote, max(sum(lengths_i) for lengths_i in lengths))  # count, then makespan

    def search(self, deadline: Deadline) -> _Best | None:
        """The best assignment (the first one in product order among equals); raises `TimeLimitReached`."""
        best: _Best | None = None
        for index, assignment in enumerate(itertools.product(*self.choices)):
            if index % CHECK_EVERY == 0:
                deadline.check("enumerating assignments")
            value = self.value(assignment)
            if value is not None and (best is None or value < best.value):
                best = _Best(value, assignment)
        return best

    def solution(self, assignment: tuple[int, ...]) -> Solution:
        """Queues of ``assignment``; under objective 2 each queue runs its longest task last."""
        server_of_task = np.asarray(assignment, dtype=np.int64)
        m = self.instance.servers
        if self.instance.objective == "makespan":
            return Solution.from_assignment(server_of_task, m)
        local = np.array([server_of_task[j] in self.replica_sets[j] for j in range(self.instance.num_tasks)])
        length = self.instance.durations + np.where(local, 0, self.instance.remote_cost)
        return Solution.from_assignment(server_of_task, m, sort_key=length)


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceParams | None) -> Result:
    """Enumerate every assignment (tiny instances; at most ``max_assignments``).

    Parameters
    ----------
    instance
        Either objective; NOT_APPLICABLE beyond ``max_assignments`` assignments.
    time_limit
        Seconds; checked every 4096 assignments (an unfinished enumeration
        proves nothing: TIME_LIMIT_NO_SOLUTION).
    seed
        Unused (deterministic).
    params
        `BruteForceParams`; None: the defaults.

    Returns
    -------
    Result
        OPTIMAL with the best assignment (objective 2: fewest non-local
        tasks, then smallest makespan).
    """
    params = params or BruteForceParams()
    enumeration = _Enumeration(instance)
    count = enumeration.count(params.max_assignments)
    if count is None:
        return not_applicable(f"more than {params.max_assignments} assignments")
    try:
        best = enumeration.search(Deadline.after(time_limit))
    except TimeLimitReached as reached:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(str(reached),))
    if best is None:  # pragma: no cover - list scheduling is always feasible
        return Result(status=Status.INFEASIBLE, notes=("no assignment satisfies the no-idle rule",))
    value = float(best.value[0])
    return Result(
        status=Status.OPTIMAL,
        objective=value,
        bound=value,
        solution=enumeration.solution(best.assignment),
        notes=(f"{count} assignments enumerated",),
    )
