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


def heuristic_incumbent(instance: Instance, deadline: Deadline) -> Solution:
    """The best of HEFT with insertion, HeteroPrio and HLP rounding (its makespan is the horizon).

    Each runs with what the deadline leaves when its turn comes (the warm start is part of the
    method's time limit); one the deadline cuts (`TimeLimitReached`) is left out, and when every one
    is cut the deadline has passed: `TimeLimitReached` (the method has no schedule).
    """
    candidates = []
    for method in (heft_insertion, heteroprio, hlp_rounding):
        left = deadline.remaining()  # None only on a direct call without a limit, which the heuristics accept
        if left is not None and left <= 0:
            break
        try:
            candidates.append(method(instance, time_limit=cast(float, left), seed=0, params=None).solution)
        except TimeLimitReached:
            break
    if not candidates:
        raise TimeLimitReached("time limit reached while computing the warm start (HEFT, HeteroPrio, HLP rounding)")
    return min(candidates, key=lambda s: evaluate(instance, s)["objective"])


def horizon_at_least(instance: Instance) -> int:
    """A lower bound on every makespan, O(n): the longest task on its faster type (each runs whole).

    The exact models' horizon (an incumbent's makespan) is at least this, so a model too large at this
    horizon is too large at theirs: it is refused before any warm start.
    """
    fastest = (min((t for c in TYPES if (t := instance.time(j, c)) is not None), default=0) for j in range(instance.n))
    return max(fastest, default=0)


@dataclass(frozen=True)
class StartingPoint:
    """What both exact models start from: the heuristics' incumbent, its makespan and the lower bound."""

    incumbent: Solution
    horizon: int  # the incumbent's makespan: the optimum is not later
    lower: int  # `bounds.best`


def starting_point(instance: Instance, deadline: Deadline) -> StartingPoint:
    incumbent = heuristic_incumbent(instance, deadline)
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
