"""What the exact models share: machines from type-level starts, the heuristics' incumbent and horizon."""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import cast

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from .. import bounds
from ..heuristics import heft_insertion, heteroprio, hlp_rounding
from ..model import TYPES, Instance, Solution, evaluate

# --- machines from type-level starts ------------------------------------------------------------


def assign_machines(instance: Instance, kinds: list[str], starts: list[int]) -> list[int]:
    """Machine indices for a schedule given by types and starts only.

    Theorem: if, for each type, at most c (the type's machine count) tasks
    of that type run at any instant (the Cumulative's guarantee), then the
    sweep below puts every task on a machine with no overlap. Proof: sweep
    the tasks of the type by start (ends before starts at equal times: a
    task ending at t and one starting at t do not overlap); keep the free
    machines in a heap. When task j starts at S_j, the busy machines hold
    exactly the tasks started earlier that end after S_j, which together
    with j are at most c tasks running at S_j + ε; so at most c - 1 machines
    are busy and one is free (interval graphs are perfect: their chromatic
    number is their clique number). A zero-length task occupies nothing and
    goes on machine 0.
    """
    machine = [0] * instance.n
    for kind in TYPES:
        count = instance.cpus if kind == "cpu" else instance.gpus
        members = [j for j in range(instance.n) if kinds[j] == kind and (instance.time(j, kind) or 0) > 0]
        members.sort(key=lambda j: (starts[j], j))
        free = list(range(count))
        busy: list[tuple[int, int]] = []  # (end, machine)
        for j in members:
            while busy and busy[0][0] <= starts[j]:
                heapq.heappush(free, heapq.heappop(busy)[1])
            if not free:
                raise AssertionError(f"more than {count} {kind} tasks overlap at {starts[j]}")
            chosen = heapq.heappop(free)
            machine[j] = chosen
            heapq.heappush(busy, (starts[j] + (instance.time(j, kind) or 0), chosen))  # members have a time
    return machine


def solution_from_starts(instance: Instance, kinds: list[str], starts: list[int]) -> Solution:
    return Solution(tuple(kinds), tuple(assign_machines(instance, kinds, starts)), tuple(starts))


def heuristic_incumbent(instance: Instance, time_limit: float | None) -> Solution:
    """The best of HEFT with insertion, HeteroPrio and HLP rounding (its makespan is the horizon).

    HLP rounding solves an LP that a time limit can cut (`TimeLimitReached`);
    then the incumbent is the better of the two list schedules.
    """
    # time_limit is None only on a direct call without a limit, which the heuristics accept.
    candidates = [
        method(instance, time_limit=cast(float, time_limit), seed=0, params=None).solution
        for method in (heft_insertion, heteroprio)
    ]
    try:
        candidates.append(hlp_rounding(instance, time_limit=cast(float, time_limit), seed=0, params=None).solution)
    except TimeLimitReached:
        pass
    return min(candidates, key=lambda s: evaluate(instance, s)["objective"])


@dataclass(frozen=True)
class StartingPoint:
    """What both exact models start from: the heuristics' incumbent, its makespan and the lower bound."""

    incumbent: Solution
    horizon: int  # the incumbent's makespan: the optimum is not later
    lower: int  # `bounds.best`


def starting_point(instance: Instance, deadline: Deadline) -> StartingPoint:
    incumbent = heuristic_incumbent(instance, deadline.remaining())
    horizon = int(evaluate(instance, incumbent)["objective"])
    return StartingPoint(incumbent, horizon, bounds.best(instance, deadline))


def incumbent_at_the_limit(begin: StartingPoint, reached: TimeLimitReached) -> Result:
    """FEASIBLE with the heuristics' incumbent and the lower bound: the deadline cut the model before a solve."""
    return Result(
        status=Status.FEASIBLE,
        solution=begin.incumbent,
        bound=begin.lower,
        notes=(f"{reached}: the HEFT/HeteroPrio/HLP-rounding incumbent is returned",),
    )
