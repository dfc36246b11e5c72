"""Heuristics and baselines: orders scored by the earliest-start simulator.

Every method here builds a *transfer order* and runs the device in the same
order (permutation schedules; the exact formulations may compute in another
order than they transfer). A task that does not fit in free memory when the
link becomes idle waits until enough computations have finished
("blocking"), except in the dynamic rules, which pick a task that fits.

Methods
-------
* ``fifo`` — submission order (the order of ``data.tasks``), blocking.
* ``johnson-blocking`` — Johnson's order, blocking.
* static sorts: ``sort-transfer-asc`` (c ascending), ``sort-compute-desc``
  (p descending), ``sort-ratio-asc`` (c/p ascending), ``sort-gain-desc``
  (p − c descending). Ties by task index.
* dynamic memory-aware rules (Kumar et al.'s "largest/smallest communication
  / maximum acceleration under memory restriction" family): whenever the link
  is idle, choose among the not yet transferred tasks that fit in the free
  memory — ``dynamic-johnson`` (first in Johnson order),
  ``dynamic-largest-transfer``, ``dynamic-smallest-transfer``,
  ``dynamic-max-gain`` (largest p − c); when none fits, wait for the next
  release. A segment tree over the tasks sorted by memory answers "best task
  with m ≤ free" in O(log n), so a rule costs O(n log n) (n = 100,000 in a
  few seconds).
* ``neh`` — NEH insertion (Nawaz, Enscore, Ham 1983): tasks by decreasing
  c + p, each inserted at the position of least simulated makespan.
* ``ils`` — iterated local search over transfer orders: random swap and
  insertion moves accepted when not worse, a random multi-swap perturbation
  of the best order after a stall; seeded, stopped by ``time_limit`` or
  ``max_evaluations``, started from the best of the constructive rules.
* ``iterated-greedy`` — iterated greedy (Ruiz and Stützle 2007): remove a
  few random tasks, reinsert each at its best position as NEH does, accept
  by a simulated-annealing rule; seeded, started from NEH; the strongest
  heuristic here from n ≈ 30 on.

Every result carries ``bounds.best(instance)`` as its bound; a heuristic
whose makespan meets that bound reports OPTIMAL (the bound proves it).
"""

from __future__ import annotations

import bisect
import heapq
import math
import time
from typing import Callable, Sequence

import numpy as np

from ..core.errors import InvalidInstanceError
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, makespan_of, require_fits
from .simulate import Simulator, johnson_order

PROBLEM = "transfers"
PERMUTATION_NOTE = "permutation schedule: the device computes in transfer order"


def order_result(instance: Instance, method: str, order: Sequence[int], notes: Sequence[str] = ()) -> Result:
    """The Result of the permutation schedule of a transfer order, with the best lower bound attached."""
    solution = Simulator(instance).schedule(order)
    assert solution is not None  # permutation orders never deadlock once every task fits
    bound = bounds.best(instance)
    objective = makespan_of(instance, solution)
    status = Status.OPTIMAL if objective <= bound else Status.FEASIBLE
    extra = ("makespan equals the lower bound: optimal",) if status is Status.OPTIMAL else ()
    return Result(PROBLEM, method, status, objective=objective, bound=bound, solution=solution,
                  notes=(PERMUTATION_NOTE, *notes, *extra))


# -- static orders ----------------------------------------------------------------
def _ratio(instance: Instance, i: int) -> float:
    task = instance.tasks[i]
    return task.transfer / task.compute if task.compute else math.inf


STATIC_KEYS: dict[str, Callable[[Instance, int], object]] = {
    "fifo": lambda inst, i: i,
    "sort-transfer-asc": lambda inst, i: (inst.tasks[i].transfer, i),
    "sort-compute-desc": lambda inst, i: (-inst.tasks[i].compute, i),
    "sort-ratio-asc": lambda inst, i: (_ratio(inst, i), i),
    "sort-gain-desc": lambda inst, i: (inst.tasks[i].transfer - inst.tasks[i].compute, i),
}


def static_order(instance: Instance, rule: str) -> list[int]:
    """The transfer order of a static rule (a key of `STATIC_KEYS` or ``"johnson"``)."""
    if rule == "johnson":
        return johnson_order(instance)
    key = STATIC_KEYS[rule]
    return sorted(range(instance.n), key=lambda i: key(instance, i))


def _static_method(rule: str, method: str, doc: str):
    def run(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options) -> Result:
        require_fits(instance)
        return order_result(instance, method, static_order(instance, rule))

    run.__name__ = method.replace("-", "_")
    run.__doc__ = doc
    return run


fifo = _static_method("fifo", "fifo", "Submission order, blocking until the next task fits (baseline).")
johnson_blocking = _static_method("johnson", "johnson-blocking", "Johnson's order, blocking until the next task fits.")
sort_transfer_asc = _static_method("sort-transfer-asc", "sort-transfer-asc", "Static order by transfer time ascending, blocking.")
sort_compute_desc = _static_method("sort-compute-desc", "sort-compute-desc", "Static order by compute time descending, blocking.")
sort_ratio_asc = _static_method("sort-ratio-asc", "sort-ratio-asc", "Static order by transfer/compute ascending, blocking.")
sort_gain_desc = _static_method("sort-gain-desc", "sort-gain-desc", "Static order by compute - transfer descending, blocking.")


# -- dynamic memory-aware rules ---------------------------------------------------
class _PrefixBest:
    """Segment tree over slots 0..n-1: the smallest key among slots < r, with removal."""

    def __init__(self, keys: Sequence[tuple]):
        size = 1
        while size < len(keys):
            size *= 2
        self.size = size
        self.empty = (math.inf,)
        tree = [self.empty] * (2 * size)
        tree[size : size + len(keys)] = keys
        for node in range(size - 1, 0, -1):
            left, right = tree[2 * node], tree[2 * node + 1]
            tree[node] = left if left <= right else right
        self.tree = tree

    def best_before(self, r: int) -> tuple:
        """Smallest key among slots [0, r)."""
        tree, best = self.tree, self.empty
        low, high = self.size, self.size + r
        while low < high:
            if low & 1:
                if tree[low] < best:
                    best = tree[low]
                low += 1
            if high & 1:
                high -= 1
                if tree[high] < best:
                    best = tree[high]
            low //= 2
            high //= 2
        return best

    def remove(self, slot: int) -> None:
        tree = self.tree
        node = self.size + slot
        tree[node] = self.empty
        node //= 2
        while node:
            left, right = tree[2 * node], tree[2 * node + 1]
            tree[node] = left if left <= right else right
            node //= 2


def dynamic_order(instance: Instance, priority: Callable[[int], tuple]) -> list[int]:
    """Transfer order of a dynamic rule: at each idle link instant, the task of
    smallest ``priority`` among those that fit in free memory.

    The rule's schedule is the simulator's earliest-start schedule of the
    returned order (a chosen task fits when chosen, so it starts at once).
    """
    tasks = instance.tasks
    by_memory = sorted(range(instance.n), key=lambda i: tasks[i].memory)
    memory_sorted = [tasks[i].memory for i in by_memory]
    # Keys end with the task index, which makes them unique and lets the tree return it.
    tree = _PrefixBest([(*priority(i), i) for i in by_memory])
    slot_of = {task: slot for slot, task in enumerate(by_memory)}
    free = instance.capacity
    releases: list[tuple[int, int]] = []
    link_free = device_free = 0
    order = []
    for _ in range(instance.n):
        while releases and releases[0][0] <= link_free:
            free += heapq.heappop(releases)[1]
        chosen = tree.best_before(bisect.bisect_right(memory_sorted, free))
        while chosen is tree.empty:
            released_at, size = heapq.heappop(releases)  # non-empty: every task fits in M
            link_free = max(link_free, released_at)
            free += size
            while releases and releases[0][0] <= link_free:
                free += heapq.heappop(releases)[1]
            chosen = tree.best_before(bisect.bisect_right(memory_sorted, free))
        task = chosen[-1]
        tree.remove(slot_of[task])
        order.append(task)
        free -= tasks[task].memory
        link_free += tasks[task].transfer
        device_free = max(device_free, link_free) + tasks[task].compute
        heapq.heappush(releases, (device_free, tasks[task].memory))
    return order


def _dynamic_priorities(instance: Instance) -> dict[str, Callable[[int], tuple]]:
    tasks = instance.tasks
    rank = {task: position for position, task in enumerate(johnson_order(instance))}
    return {
        "dynamic-johnson": lambda i: (rank[i],),
        "dynamic-largest-transfer": lambda i: (-tasks[i].transfer,),
        "dynamic-smallest-transfer": lambda i: (tasks[i].transfer,),
        "dynamic-max-gain": lambda i: (tasks[i].transfer - tasks[i].compute,),
    }


def _dynamic_method(method: str, doc: str):
    def run(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options) -> Result:
        require_fits(instance)
        return order_result(instance, method, dynamic_order(instance, _dynamic_priorities(instance)[method]))

    run.__name__ = method.replace("-", "_")
    run.__doc__ = doc
    return run


dynamic_johnson = _dynamic_method("dynamic-johnson", "When the link is idle, send the first task in Johnson order that fits in free memory.")
dynamic_largest_transfer = _dynamic_method("dynamic-largest-transfer", "When the link is idle, send the fitting task with the largest transfer.")
dynamic_smallest_transfer = _dynamic_method("dynamic-smallest-transfer", "When the link is idle, send the fitting task with the smallest transfer.")
dynamic_max_gain = _dynamic_method("dynamic-max-gain", "When the link is idle, send the fitting task with the largest compute - transfer.")

STATIC_METHODS = ("fifo", "johnson-blocking", "sort-transfer-asc", "sort-compute-desc", "sort-ratio-asc", "sort-gain-desc")
DYNAMIC_METHODS = ("dynamic-johnson", "dynamic-largest-transfer", "dynamic-smallest-transfer", "dynamic-max-gain")


def constructive_orders(instance: Instance) -> dict[str, list[int]]:
    """The transfer order of every static and dynamic rule, by method name."""
    orders = {name: static_order(instance, "johnson" if name == "johnson-blocking" else name) for name in STATIC_METHODS}
    for name, priority in _dynamic_priorities(instance).items():
        orders[name] = dynamic_order(instance, priority)
    return orders


def best_constructive(instance: Instance) -> tuple[str, list[int], Solution, int]:
    """The best static or dynamic rule: ``(name, order, schedule, makespan)``.

    Used as the start of ILS and iterated greedy and in the exact formulations' warm start (and big-M).
    """
    simulator = Simulator(instance)
    best = None
    for name, order in constructive_orders(instance).items():
        solution = simulator.schedule(order)
        assert solution is not None
        value = makespan_of(instance, solution)
        if best is None or value < best[3]:
            best = (name, order, solution, value)
    assert best is not None
    return best


# -- NEH, ILS and iterated greedy ------------------------------------------------
NEH_MAX_N = 100  # NEH costs O(n^3) simulation steps; above this the start of a search is the best rule


def _best_insertion(
    simulator: Simulator, sequence: list[int], task: int, deadline: float | None = None
) -> tuple[float, int] | None:
    """Least simulated makespan of `sequence` with `task` inserted, and its first position.

    None when `deadline` (a ``time.perf_counter`` value) passes before every
    position is scored: one insertion scans n positions of O(n log n) each,
    which at n = 100,000 would outlast any time limit.
    """
    best_value, best_position = math.inf, len(sequence)
    for position in range(len(sequence) + 1):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        value = simulator.makespan(sequence[:position] + [task] + sequence[position:])
        if value < best_value:
            best_value, best_position = value, position
    return best_value, best_position


def neh(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options) -> Result:
    """NEH insertion: tasks by decreasing c + p, each at its best position (simulated)."""
    require_fits(instance)
    sequence, notes = _neh_order(instance, time_limit)
    return order_result(instance, "neh", sequence, notes)


def _neh_order(instance: Instance, time_limit: float | None = None) -> tuple[list[int], list[str]]:
    """NEH's transfer order; past `time_limit` the remaining tasks are appended as they come."""
    started = time.perf_counter()
    simulator = Simulator(instance)
    tasks = instance.tasks
    candidates = sorted(range(instance.n), key=lambda i: (-(tasks[i].transfer + tasks[i].compute), i))
    sequence: list[int] = []
    for count, task in enumerate(candidates):
        if time_limit is not None and time.perf_counter() - started > time_limit:
            return sequence + candidates[count:], [
                f"time limit: {instance.n - count} tasks appended without insertion search"]
        _, position = _best_insertion(simulator, sequence, task)
        sequence.insert(position, task)
    return sequence, []


def ils(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    max_evaluations: int = 20000,
    stall: int = 200,
    **options,
) -> Result:
    """Iterated local search (swap/insert moves, perturbation on stall) over transfer orders.

    Parameters
    ----------
    time_limit
        Seconds (default 10).
    seed
        Seed of the move generator (``numpy.random.default_rng``).
    max_evaluations
        Simulations allowed in total.
    stall
        Non-improving moves before the best order is perturbed.
    """
    require_fits(instance)
    started = time.perf_counter()
    limit = 10.0 if time_limit is None else float(time_limit)
    simulator = Simulator(instance)
    start_name, order, _, value = best_constructive(instance)
    lower = bounds.best(instance)
    rng = np.random.default_rng(seed)
    best_order, best_value = list(order), value
    current, current_value = list(order), value
    n = instance.n
    evaluations, since_improvement = 0, 0
    while n > 1 and best_value > lower and evaluations < max_evaluations:
        if time.perf_counter() - started > limit:
            break
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
            best_order, best_value, since_improvement = list(current), current_value, 0
        else:
            since_improvement += 1
        if since_improvement >= stall:
            current = list(best_order)
            for _ in range(max(2, n // 10)):
                a, b = (int(x) for x in rng.choice(n, size=2, replace=False))
                current[a], current[b] = current[b], current[a]
            current_value = simulator.makespan(current)
            evaluations += 1
            since_improvement = 0
    return order_result(instance, "ils", best_order,
                        (f"started from {start_name} ({value}); {evaluations} evaluations; seed {seed}",))


def iterated_greedy(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    destroy: int = 4,
    temperature: float = 0.4,
    max_iterations: int | None = None,
    stall: int | None = None,
    **options,
) -> Result:
    """Iterated greedy (Ruiz and Stützle 2007, EJOR 177(3)) over transfer orders.

    Each iteration removes `destroy` random tasks from the current order and
    reinserts them one by one at their best position (NEH's step); the new
    order replaces the current one when it is not worse, or with probability
    exp(-Δ / T) (simulated-annealing acceptance, T = `temperature` · Σ(c + p)
    / (20 n), Ruiz and Stützle's constant temperature). It starts from NEH
    (n ≤ `NEH_MAX_N`) or the best constructive rule, and stops at the time
    limit, after `max_iterations`, or when the order meets `bounds.best` (then
    it is proven optimal).

    Parameters
    ----------
    time_limit
        Seconds (default 10, or none when `max_iterations` is given).
    seed
        Seed of the destruction and acceptance draws (``numpy.random.default_rng``).
    destroy
        Tasks removed per iteration (Ruiz and Stützle's d = 4).
    temperature
        Acceptance temperature factor (their T = 0.4).
    max_iterations
        Iterations allowed (default: no cap). With a cap and no time limit
        the result depends on the seed only.
    stall
        Stop after this many iterations without a better order (default:
        never). The warm start of the exact methods uses 20 n, so that it
        does not spend its whole share of the time limit on small instances.

    Notes
    -----
    Removing and reinserting a few tasks moves them across the whole order,
    which ILS's single swaps and insertions rarely do: from n ≈ 30 on, at
    tight memory, this finds the better schedules (benchmarks/transfers,
    section 9).
    """
    require_fits(instance)
    started = time.perf_counter()
    if time_limit is None and max_iterations is not None:
        deadline = None  # reproducible: the seed alone decides the result
    else:
        deadline = started + (10.0 if time_limit is None else float(time_limit))
    if destroy < 1:
        raise InvalidInstanceError("options.destroy", f"must be at least 1, got {destroy}")
    simulator = Simulator(instance)
    lower = bounds.best(instance)
    start_name, order, _, value = best_constructive(instance)
    if instance.n <= NEH_MAX_N and value > lower:
        neh_order, _ = _neh_order(instance)
        neh_value = simulator.makespan(neh_order)
        if neh_value < value:
            start_name, order, value = "neh", neh_order, int(neh_value)
    n = instance.n
    rng = np.random.default_rng(seed)
    level = temperature * sum(instance.transfer[i] + instance.compute[i] for i in range(n)) / (20 * n)
    current, current_value = order, value
    best_order, best_value = order, value
    iterations = since_best = 0
    while n > 1 and best_value > lower and (max_iterations is None or iterations < max_iterations):
        if stall is not None and since_best >= stall:
            break
        rebuilt = _destroy_and_rebuild(simulator, current, min(destroy, n - 1), rng, deadline)
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
    return order_result(instance, "iterated-greedy", best_order,
                        (f"started from {start_name} ({value}); {iterations} iterations; seed {seed}",))


def _destroy_and_rebuild(
    simulator: Simulator, order: list[int], destroy: int, rng: np.random.Generator, deadline: float | None
) -> tuple[list[int], int] | None:
    """Iterated greedy's step: `destroy` random tasks out, each back at its best position.

    Returns the new order and its makespan, or None when `deadline` passes.
    """
    trial = list(order)
    removed = [trial.pop(int(rng.integers(len(trial)))) for _ in range(destroy)]
    value = None
    for task in removed:
        inserted = _best_insertion(simulator, trial, task, deadline)
        if inserted is None:
            return None
        value, position = inserted
        trial.insert(position, task)
    return trial, int(value)
