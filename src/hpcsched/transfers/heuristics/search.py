"""Searches over transfer orders: NEH insertion, iterated local search, iterated greedy.

* ``neh`` — NEH insertion (Nawaz, Enscore, Ham 1983): tasks by decreasing
  c + p, each inserted at the position of least simulated makespan.
* ``ils`` — iterated local search: random swap and insertion moves accepted
  when not worse, a random multi-swap perturbation of the best order after a
  stall; seeded, stopped by the time limit or ``max_iterations``, started
  from the best constructive rule.
* ``iterated-greedy`` — iterated greedy (Ruiz and Stützle 2007): remove a
  few random tasks, reinsert each at its best position as NEH does, accept
  by a simulated-annealing rule; seeded, started from NEH; the strongest
  heuristic here from n ≈ 30 on.

All three produce permutation schedules and carry ``bounds.best`` as bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result
from .. import bounds
from ..model import Instance, require_fits
from ..simulate import Simulator
from .rules import Constructed, best_constructive, order_result, skipped_note

NEH_MAX_N = 100  # NEH costs O(n^3) simulation steps; above this the start of a search is the best rule
NO_DEADLINE = Deadline(None)


def _best_insertion(
    simulator: Simulator, sequence: list[int], task: int, deadline: Deadline = NO_DEADLINE
) -> tuple[float, int] | None:
    """Least simulated makespan of `sequence` with `task` inserted, and its first position.

    None when `deadline` passes before every position is scored: one
    insertion scans n positions of O(n log n) each, which at n = 100,000
    would outlast any time limit.
    """
    best_value, best_position = math.inf, len(sequence)
    for position in range(len(sequence) + 1):
        if deadline.expired():
            return None
        value = simulator.makespan([*sequence[:position], task, *sequence[position:]])
        if value < best_value:
            best_value, best_position = value, position
    return best_value, best_position


def neh_order(instance: Instance, deadline: Deadline = NO_DEADLINE) -> tuple[list[int], list[str]]:
    """NEH's transfer order; past `deadline` the remaining tasks are appended as they come."""
    simulator = Simulator(instance)
    tasks = instance.tasks
    candidates = sorted(range(instance.n), key=lambda i: (-(tasks[i].transfer + tasks[i].compute), i))
    sequence: list[int] = []
    for count, task in enumerate(candidates):
        if deadline.expired():
            return sequence + candidates[count:], [
                f"time limit: {instance.n - count} tasks appended without insertion search"
            ]
        inserted = _best_insertion(simulator, sequence, task)
        assert inserted is not None  # no deadline inside one insertion
        sequence.insert(inserted[1], task)
    return sequence, []


def neh(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """NEH insertion: tasks by decreasing c + p, each at its best position (simulated).

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds; past it the tasks not yet inserted are appended in NEH's order.
    seed, params
        Unused (deterministic, no options).

    Returns
    -------
    Result
        The permutation schedule with `bounds.best` as bound (OPTIMAL when it meets it).
    """
    require_fits(instance)
    sequence, notes = neh_order(instance, Deadline.after(time_limit))
    return order_result(instance, sequence, notes)


@dataclass(frozen=True)
class IlsParams:
    """Options of `ils`.

    Attributes
    ----------
    max_iterations
        Simulations allowed in total (one per move, one per perturbation).
    stall
        Non-improving moves before the best order is perturbed.
    """

    max_iterations: int = 20000
    stall: int = 200

    def __post_init__(self) -> None:
        at_least("max_iterations", self.max_iterations, 0)
        at_least("stall", self.stall, 1)


def ils(instance: Instance, /, *, time_limit: float, seed: int, params: IlsParams | None) -> Result:
    """Iterated local search (swap/insert moves, perturbation on stall) over transfer orders.

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds of search.
    seed
        Seed of the move generator (``numpy.random.default_rng``).
    params
        `IlsParams` (None: the defaults).

    Returns
    -------
    Result
        The best permutation schedule found, with `bounds.best` as bound.
    """
    require_fits(instance)
    params = params or IlsParams()
    deadline = Deadline.after(time_limit)
    simulator = Simulator(instance)
    start = best_constructive(instance, deadline)
    lower = bounds.best(instance)
    rng = np.random.default_rng(seed)
    best_order, best_value = list(start.order), start.makespan
    current, current_value = list(start.order), float(start.makespan)
    n = instance.n
    evaluations, since_improvement = 0, 0
    while n > 1 and best_value > lower and evaluations < params.max_iterations and not deadline.expired():
        trial = list(current)
        a, b = (int(x) for x in rng.choice(n, size=2, replace=False))
        if rng.random() < 0.5:
            trial[a], trial[b] = trial[b], trial[a]
        else:
            trial.insert(b, trial.pop(a))
        trial_value = simulator.makespan(trial)
        evaluations += 1
        if trial_value <= current_value:
            current, current_value = trial, trial_value
        if current_value < best_value:
            best_order, best_value, since_improvement = list(current), int(current_value), 0
        else:
            since_improvement += 1
        if since_improvement >= params.stall:
            current = list(best_order)
            for _ in range(max(2, n // 10)):
                a, b = (int(x) for x in rng.choice(n, size=2, replace=False))
                current[a], current[b] = current[b], current[a]
            current_value = simulator.makespan(current)
            evaluations += 1
            since_improvement = 0
    notes = (f"started from {start.name} ({start.makespan}); {evaluations} evaluations; seed {seed}",)
    return order_result(instance, best_order, (*notes, *skipped_note(start)))


@dataclass(frozen=True)
class IteratedGreedyParams:
    """Options of `iterated_greedy`.

    Attributes
    ----------
    destroy
        Tasks removed per iteration (Ruiz and Stützle's d = 4).
    temperature
        Acceptance temperature factor (their T = 0.4).
    max_iterations
        Iterations allowed (None: no cap). With a cap far below what the time
        limit allows, the result depends on the seed only.
    stall
        Stop after this many iterations without a better order (None: never).
        The warm start of the exact methods uses 20 n, so that it does not
        spend its whole share of the time limit on small instances.
    """

    destroy: int = 4
    temperature: float = 0.4
    max_iterations: int | None = None
    stall: int | None = None

    def __post_init__(self) -> None:
        at_least("destroy", self.destroy, 1)
        at_least("temperature", self.temperature, 0)
        at_least("max_iterations", self.max_iterations, 0)
        at_least("stall", self.stall, 0)


@dataclass(frozen=True)
class SearchOutcome:
    """The best transfer order a search found, its makespan, and what the search says about itself."""

    order: list[int]
    makespan: int
    notes: tuple[str, ...]


def iterated_greedy_search(
    instance: Instance,
    deadline: Deadline,
    seed: int,
    params: IteratedGreedyParams,
    start: Constructed | None = None,
) -> SearchOutcome:
    """The search of `iterated_greedy` (also the warm start of the exact methods).

    ``start`` is `best_constructive`'s answer when the caller has it already.
    """
    simulator = Simulator(instance)
    lower = bounds.best(instance)
    start = best_constructive(instance, deadline) if start is None else start
    start_name, order, value = start.name, start.order, start.makespan
    if instance.n <= NEH_MAX_N and value > lower and not deadline.expired():
        neh_sequence, _ = neh_order(instance, deadline)
        neh_value = simulator.makespan(neh_sequence)
        if neh_value < value:
            start_name, order, value = "neh", neh_sequence, int(neh_value)
    n = instance.n
    rng = np.random.default_rng(seed)
    level = params.temperature * sum(task.transfer + task.compute for task in instance.tasks) / (20 * n)
    current, current_value = order, value
    best_order, best_value = order, value
    iterations = since_best = 0
    while n > 1 and best_value > lower and (params.max_iterations is None or iterations < params.max_iterations):
        if params.stall is not None and since_best >= params.stall:
            break
        rebuilt = _destroy_and_rebuild(simulator, current, min(params.destroy, n - 1), rng, deadline)
        if rebuilt is None:
            break  # the deadline passed
        trial, trial_value = rebuilt
        iterations += 1
        since_best += 1
        worse = trial_value - current_value
        if worse <= 0 or (level > 0 and rng.random() < math.exp(-worse / level)):
            current, current_value = trial, trial_value
            if current_value < best_value:
                best_order, best_value, since_best = current, current_value, 0
    notes = (f"started from {start_name} ({value}); {iterations} iterations; seed {seed}",)
    return SearchOutcome(best_order, best_value, (*notes, *skipped_note(start)))


def iterated_greedy(
    instance: Instance, /, *, time_limit: float, seed: int, params: IteratedGreedyParams | None
) -> Result:
    """Iterated greedy (Ruiz and Stützle 2007, EJOR 177(3)) over transfer orders.

    Each iteration removes ``destroy`` random tasks from the current order
    and reinserts them one by one at their best position (NEH's step); the
    new order replaces the current one when it is not worse, or with
    probability exp(-Δ / T) (simulated-annealing acceptance, T =
    ``temperature`` · Σ(c + p) / (20 n), Ruiz and Stützle's constant
    temperature). It starts from NEH (n ≤ `NEH_MAX_N`) or the best
    constructive rule, and stops at the time limit, after ``max_iterations``,
    after ``stall`` idle iterations, or when the order meets `bounds.best`
    (then it is proven optimal).

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds of search (checked inside every insertion scan).
    seed
        Seed of the destruction and acceptance draws (``numpy.random.default_rng``).
    params
        `IteratedGreedyParams` (None: the defaults).

    Returns
    -------
    Result
        The best permutation schedule found, with `bounds.best` as bound.

    Notes
    -----
    Removing and reinserting a few tasks moves them across the whole order,
    which ILS's single swaps and insertions rarely do: from n ≈ 30 on, at
    tight memory, this finds the better schedules (benchmarks/transfers/README.md).
    """
    require_fits(instance)
    found = iterated_greedy_search(instance, Deadline.after(time_limit), seed, params or IteratedGreedyParams())
    return order_result(instance, found.order, found.notes)


def _destroy_and_rebuild(
    simulator: Simulator, order: list[int], destroy: int, rng: np.random.Generator, deadline: Deadline
) -> tuple[list[int], int] | None:
    """Iterated greedy's step: `destroy` random tasks out, each back at its best position.

    Returns the new order and its makespan, or None when `deadline` passes.
    """
    trial = list(order)
    removed = [trial.pop(int(rng.integers(len(trial)))) for _ in range(destroy)]
    value = 0.0
    for task in removed:
        inserted = _best_insertion(simulator, trial, task, deadline)
        if inserted is None:
            return None
        value, position = inserted
        trial.insert(position, task)
    return trial, int(value)
