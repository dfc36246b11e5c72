"""Local search on per-device orders under the deadline (makespan).

It starts from the best of the constructive schedules that apply (1F1B,
ZB-H1, ZB-H2, GPipe, interleaved 1F1B, the list schedules) and improves
their per-device orders. A move swaps two adjacent jobs of a device; the
moves tried first are those of Nowicki and Smutnicki's N5 neighbourhood
(Management Science 1996): the first and the last two jobs of each block of
consecutive critical jobs on one device (only such swaps can shorten the
critical path). A move is kept when the semi-active makespan of the new
orders decreases and the device's order still fits in memory (memory-order
lemma) and contradicts no edge. When no N5 move improves, a random adjacent
swap that keeps the orders valid is made (a kick) and the search goes on
from there, keeping the best orders seen. Seeded, deterministic for a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ..model import Instance, Solution, require_fits
from ..simulate import Job, makespan_of, order_peaks, orders_of, semi_active
from .classic import gpipe, interleaved_1f1b, one_f_one_b
from .common import finished, not_applicable
from .greedy import greedy
from .zero_bubble import zb_h1, zb_h2


@dataclass(frozen=True)
class LocalSearchParams:
    """Options of `local_search`.

    Attributes
    ----------
    max_iterations
        Most orders evaluated (each one semi-active timing, O(N (B + E))).
    """

    max_iterations: int = 20_000

    def __post_init__(self) -> None:
        at_least("max_iterations", self.max_iterations, 1)


def _start(instance: Instance, deadline: Deadline) -> tuple[Result, str] | None:
    """The best constructive schedule (and its method's name), or None when none applies."""
    best: tuple[Result, str] | None = None
    methods = (
        ("1f1b", one_f_one_b),
        ("zb-h2", zb_h2),
        ("zb-h1", zb_h1),
        ("interleaved-1f1b", interleaved_1f1b),
        ("gpipe", gpipe),
        ("greedy", greedy),
    )
    for name, method in methods:
        left = deadline.remaining()
        try:
            result = method(instance, time_limit=1e9 if left is None else max(left, 1e-9), seed=0, params=None)
        except TimeLimitReached:
            break
        if result.solution is None:
            continue
        if best is None or _makespan(instance, result.solution) < _makespan(instance, best[0].solution):
            best = (result, name)
        if best[0].status is Status.OPTIMAL or deadline.expired():
            break  # OPTIMAL: it meets the bound, so no later schedule is strictly shorter
    return best


def _makespan(instance: Instance, solution: Solution) -> int:
    return makespan_of(instance, solution.start)


def _critical_swaps(instance: Instance, orders: list[list[Job]], start: list[list[int]]) -> list[tuple[int, int]]:
    """N5 moves: (device, position) swaps of the ends of the critical blocks on each device."""
    blocks, predecessors = instance.blocks, instance.predecessors()
    position = {(d, job): i for d, order in enumerate(orders) for i, job in enumerate(order)}
    m, b = max(
        ((m, b) for m in range(len(start)) for b in range(len(blocks))),
        key=lambda j: start[j[0]][j[1]] + blocks[j[1]].duration,
    )
    path: list[tuple[int, Job]] = []
    while True:
        job, s = (m, b), start[m][b]
        step = None
        for d in blocks[b].devices:
            i = position[d, job]
            path.append((d, job))
            if i > 0:
                p = orders[d][i - 1]
                if start[p[0]][p[1]] + blocks[p[1]].duration == s:
                    step = p
        if step is None:
            step = next(((m, u) for u, delay in predecessors[b] if start[m][u] + blocks[u].duration + delay == s), None)
        if step is None:
            break
        m, b = step
    path.reverse()
    moves: set[tuple[int, int]] = set()
    run: list[int] = []
    for k, (d, job) in enumerate(path):
        i = position[d, job]
        if run and path[k - 1][0] == d and position[d, path[k - 1][1]] == i - 1:
            run.append(i)
        else:
            _block_ends(run, path[k - 1][0] if k else d, moves)
            run = [i]
    _block_ends(run, path[-1][0] if path else 0, moves)
    return sorted(moves)


def _block_ends(run: list[int], device: int, moves: set[tuple[int, int]]) -> None:
    if len(run) >= 2:
        moves.add((device, run[0]))
        moves.add((device, run[-2]))


def _try(instance: Instance, orders: list[list[Job]], device: int, i: int) -> list[list[int]] | None:
    """Swap positions i, i+1 of ``device`` in place; the new starts, or None (swap undone) if invalid."""
    order = orders[device]
    order[i], order[i + 1] = order[i + 1], order[i]
    limit = instance.memory_limit[device]
    if limit is None or order_peaks(instance, [order])[0] <= limit:
        start = semi_active(instance, orders)
        if start is not None:
            return start
    order[i], order[i + 1] = order[i + 1], order[i]
    return None


def local_search(instance: Instance, /, *, time_limit: float, seed: int, params: LocalSearchParams | None) -> Result:
    """Improve the best constructive schedule's per-device orders by adjacent swaps (module docstring)."""
    require_fits(instance)
    params = params or LocalSearchParams()
    if instance.is_period:
        return not_applicable("local search improves makespan orders (period: use the repetends of 1f1b, greedy)")
    deadline = Deadline.after(time_limit)
    found = _start(instance, deadline)
    if found is None and deadline.expired():
        raise TimeLimitReached("time limit reached while building the starting schedules")
    if found is None:
        return not_applicable("no constructive schedule applies or fits to start from")
    result, origin = found
    if result.status is Status.OPTIMAL:
        return result.replace(notes=(f"start: {origin}, already meets the bound",))
    rng = random.Random(seed)
    orders = [list(order) for order in orders_of(instance, result.solution)]
    start = semi_active(instance, orders)
    assert start is not None
    current = makespan_of(instance, start)
    best, best_orders, evaluated, first = current, [list(o) for o in orders], 0, current
    while evaluated < params.max_iterations and not deadline.expired():
        improved = False
        for device, i in _critical_swaps(instance, orders, start):
            if deadline.expired() or evaluated >= params.max_iterations:
                break
            evaluated += 1
            trial = _try(instance, orders, device, i)
            if trial is not None and makespan_of(instance, trial) < current:
                start, current, improved = trial, makespan_of(instance, trial), True
                break
            if trial is not None:
                orders[device][i], orders[device][i + 1] = orders[device][i + 1], orders[device][i]
        if current < best:
            best, best_orders = current, [list(o) for o in orders]
        if not improved and not deadline.expired():
            start, current = _kick(instance, orders, start, rng)
            evaluated += 1
    final = semi_active(instance, best_orders)
    assert final is not None  # every kept order was timed
    solution = Solution.makespan(final)
    note = f"start: {origin} ({first}); {evaluated} orders evaluated; best {best}"
    return finished(instance, solution, (note,))


def _kick(
    instance: Instance, orders: list[list[Job]], start: list[list[int]], rng: random.Random
) -> tuple[list[list[int]], int]:
    """One random valid adjacent swap (up to 20 tries); the starts and makespan after it."""
    devices = [d for d, order in enumerate(orders) if len(order) >= 2]
    for _ in range(20 if devices else 0):
        device = rng.choice(devices)
        trial = _try(instance, orders, device, rng.randrange(len(orders[device]) - 1))
        if trial is not None:
            return trial, makespan_of(instance, trial)
    return start, makespan_of(instance, start)
