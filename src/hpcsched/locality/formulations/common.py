"""What the exact formulations share: the replica pairs, reading an assignment, an outcome as a Result."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.result import Result, Status
from ...solvers.outcome import Outcome
from ..model import Instance, Solution

#: Largest coefficient handed to a MILP: HiGHS refuses 1e15 and beyond (PuLP then fails with an
#: IndexError), and below 2^40 its 1e-6 tolerances stay far below one time unit of integer data.
MILP_LARGEST_COEFFICIENT = 2**40
#: Build loops check the deadline once per this many variables.
CHECK_EVERY = 4096
#: Relative tolerance of HiGHS' dual bound: a bound read from it is lowered by this share before rounding up.
MILP_BOUND_TOLERANCE = 1e-6


@dataclass(frozen=True)
class ReplicaPairs:
    """The (task, replica server) pairs of an instance, in CSR order: one assignment variable each."""

    task: np.ndarray
    server: np.ndarray

    @classmethod
    def of(cls, instance: Instance) -> ReplicaPairs:
        return cls(np.repeat(np.arange(instance.num_tasks), instance.replica_counts), instance.replica_servers)

    def rows(self) -> list[tuple[int, int]]:
        """``(task, server)`` of every pair, as Python ints."""
        return list(zip(self.task.tolist(), self.server.tolist(), strict=True))


def not_applicable(why: str) -> Result:
    return Result(status=Status.NOT_APPLICABLE, notes=(why,))


def beyond_milp_range(instance: Instance) -> Result | None:
    """NOT_APPLICABLE when the loads exceed what the MILP backend handles exactly (`MILP_LARGEST_COEFFICIENT`)."""
    largest = int(instance.durations.sum()) + instance.num_tasks * int(instance.remote_cost)
    if largest <= MILP_LARGEST_COEFFICIENT:
        return None
    return not_applicable(
        f"total load {largest} > 2^40: beyond the range where the MILP backend's "
        "tolerances stay below one time unit; use cpsat (integers) instead"
    )


def chosen_assignment(instance: Instance, outcome: Outcome, assign: list, pairs: ReplicaPairs) -> Solution | None:
    """The assignment read off the (task, replica) binaries of an incumbent, or None."""
    value = outcome.value
    if value is None or not outcome.has_solution:
        return None
    chosen = np.array([value(v) > 0.5 for v in assign])
    server_of_task = np.empty(instance.num_tasks, dtype=np.int64)
    server_of_task[pairs.task[chosen]] = pairs.server[chosen]
    return Solution.from_assignment(server_of_task, instance.servers)


def integer_bound(outcome: Outcome, relative_tolerance: float) -> float | None:
    """The backend's dual bound as a proven bound on an integer objective.

    Both objectives are integers (loads of integer durations, a count), so a
    fractional bound rounds up; the bound is first lowered by the backend's
    tolerance (and by 1e-6), so that a bound a tolerance above an integer
    does not round up past it.
    """
    bound = outcome.bound
    if bound is None or not math.isfinite(bound):
        return None
    return float(math.ceil(bound - 1e-6 - relative_tolerance * max(1.0, abs(bound))))


def result_of(
    outcome: Outcome, solution: Solution | None, relative_tolerance: float, notes: tuple[str, ...] = ()
) -> Result:
    """The Result of a backend's outcome: its status (ERROR if it claims a solution that was not read), bound, notes."""
    status = outcome.status if solution is not None or not outcome.status.has_solution else Status.ERROR
    return Result(
        status=status,
        objective=outcome.objective if solution is not None else None,
        bound=integer_bound(outcome, relative_tolerance),
        runtime_s=outcome.runtime_s,
        solution=solution,
        notes=(*notes, f"backend status: {outcome.message}"),
        solver=outcome.backend,
    )
