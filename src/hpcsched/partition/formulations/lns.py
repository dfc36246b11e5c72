"""CP-SAT large-neighbourhood search for partition, seeded by the best heuristic."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_backend
from ...taskgraph import topological_order
from .. import bounds
from ..model import Instance, evaluate
from ..simulate import unit_index, units
from .common import incumbent
from .cpsat_model import build_model, hint_as_is, read_solution

# --- CP-SAT large-neighbourhood search ---------------------------------------------------------------


@dataclass(frozen=True)
class LnsParams:
    """Options of cpsat-lns.

    Attributes
    ----------
    workers
        CP-SAT workers per sub-solve.
    neighbourhood
        Nodes set free per iteration (a window of a topological order, widened to whole colocation groups).
    iteration_deterministic_time
        CP-SAT ``max_deterministic_time`` of each sub-solve (the wall clock stops the whole search).
    max_iterations
        Sub-solves at most.
    """

    workers: int = 2
    neighbourhood: int = 40
    iteration_deterministic_time: float = 2.0
    max_iterations: int = 10_000

    def __post_init__(self):
        at_least("workers", self.workers, 1)
        at_least("neighbourhood", self.neighbourhood, 1)
        positive("iteration_deterministic_time", self.iteration_deterministic_time)
        at_least("max_iterations", self.max_iterations, 1)


def cpsat_lns(instance: Instance, /, *, time_limit: float, seed: int, params: LnsParams | None) -> Result:
    """CP-SAT large-neighbourhood search seeded by the better of ParDNN-style and HEFT.

    Each iteration frees the GPUs of a random window of ``neighbourhood``
    consecutive nodes of a topological order (with their whole colocation
    groups), keeps every other node on its GPU, and re-solves the full
    `cpsat` model (all starts free) under a deterministic budget, hinted
    with the incumbent and limited to its makespan; a better schedule
    replaces it. A window that frees every node is the whole `cpsat` model
    (its horizon, the incumbent's makespan, is no earlier than the optimum),
    so CP-SAT's bound from it is a bound of the instance; the search stops
    when CP-SAT closes such a sub-solve (nothing is left to improve). The
    bound reported is the larger of `bounds.best` and those; OPTIMAL when
    the incumbent meets it, FEASIBLE otherwise.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        Seed of the window choice and of each sub-solve (seed + iteration).
    params
        `LnsParams`, or None for the defaults.

    Returns
    -------
    Result
        FEASIBLE with the best schedule found and the bound (OPTIMAL when they meet: the incumbent meets
        `bounds.best`, or CP-SAT closed a sub-solve with every node free);
        NOT_APPLICABLE when no heuristic gave a schedule to start from.
    """
    import numpy as np

    params = params or LnsParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    lower = bounds.best(instance)
    deadline.check("computing the lower bound")
    best = incumbent(instance, deadline.remaining())
    if best is None:
        return Result(status=Status.NOT_APPLICABLE, notes=("no heuristic schedule to start from",))
    best_value = int(evaluate(instance, best)["objective"])
    rng = np.random.default_rng(seed)
    order = topological_order(instance.n, instance.edges)
    unit_list = units(instance)
    owner = unit_index(instance, unit_list)
    size = min(params.neighbourhood, instance.n)
    iterations = improvements = 0
    closed = False
    solver = cpsat_backend.version()
    while iterations < params.max_iterations and best_value > lower and not deadline.expired():
        first = int(rng.integers(0, instance.n - size + 1))
        free = {u for v in order[first : first + size] for u in unit_list[owner[v]].members}
        fixed = {v: best.gpu[v] for v in range(instance.n) if v not in free}
        try:
            model, x, start, _end = build_model(instance, best_value, lower, deadline, fixed)
        except TimeLimitReached:  # the deadline while building: stop with the incumbent
            break
        hint_as_is(instance, model, x, start, best)
        outcome = cpsat_backend.solve_cpsat(
            model,
            time_limit=deadline.remaining(),
            deterministic_time=params.iteration_deterministic_time,
            workers=params.workers,
            seed=seed + iterations,
        )
        iterations += 1
        candidate = read_solution(instance, outcome, x, start)
        if candidate is not None:
            value = int(evaluate(instance, candidate)["objective"])
            if value < best_value:
                best, best_value, improvements = candidate, value, improvements + 1
        if not fixed:
            # Every node was free: this sub-solve is the whole `cpsat` model with horizon best_value >= the
            # optimum, so CP-SAT's bound is a bound of the instance. Once CP-SAT closed it no later
            # sub-solve (the same model under another seed) can do better; without this a small instance
            # repeats it until the time limit.
            if outcome.bound is not None:
                lower = max(lower, math.floor(outcome.bound + 1e-9))
            if outcome.status in (Status.OPTIMAL, Status.INFEASIBLE):
                closed = True
                break
    status = Status.OPTIMAL if best_value <= lower else Status.FEASIBLE
    return Result(
        status=status,
        solution=best,
        bound=lower,
        solver=solver,
        notes=(f"{iterations} sub-solves of {size} free nodes, {improvements} improvements",)
        + (("stopped: the whole instance was free and CP-SAT closed it",) if closed else ()),
    )
