"""Local search over offload sets and over the two channel orders (see the package docstring)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...core.deadline import TimeLimitReached
from ...core.deadline import now as deadline_clock
from ...core.result import Result
from ..model import Instance, Solution, check_feasible
from ..simulate import bounded_simulations, simulate
from .dp import dp_offload_set
from .sets import (
    _deadline,
    _result,
    _value,
    hideability_priority,
    round_fractions,
    shortest_feasible_prefix,
    size_priority,
    vdnn_conv_schedule,
)


# ---------------------------------------------------------------- local search
def local_search_from(instance: Instance, start: set[int], deadline: float, seed: int) -> Solution:
    rng = random.Random(seed)
    chosen = set(start)
    current = simulate(instance, chosen)
    if current is None:
        chosen, current = shortest_feasible_prefix(instance, chosen, hideability_priority(instance), deadline)
    value = _value(instance, current)
    candidates = list(instance.offloadable)
    try:
        improved = True
        while improved and deadline_clock() < deadline:
            improved = False
            moves = [("flip", i, None) for i in candidates]
            rng.shuffle(moves)
            for _, i, _ in moves:
                if deadline_clock() > deadline:
                    break
                trial = chosen ^ {i}
                solution = simulate(instance, trial)
                if solution is not None and _value(instance, solution) < value:
                    chosen, current, value, improved = trial, solution, _value(instance, solution), True
            if improved or deadline_clock() > deadline:
                continue
            inside, outside = sorted(chosen), [i for i in candidates if i not in chosen]
            pairs = [(a, b) for a in inside for b in outside]
            rng.shuffle(pairs)
            for a, b in pairs:
                if deadline_clock() > deadline:
                    break
                trial = (chosen - {a}) | {b}
                solution = simulate(instance, trial)
                if solution is not None and _value(instance, solution) < value:
                    chosen, current, value, improved = trial, solution, _value(instance, solution), True
                    break
    except TimeLimitReached:  # the method's hard deadline, inside a simulation: the best so far stands
        pass
    return current


def _starting_sets(instance: Instance, deadline: float, extra: Sequence[Solution] = ()) -> list[Solution]:
    starts = list(extra)
    try:
        # After the first start, each further one only while time remains (on a 1,000-layer chain each costs
        # tens of simulations).
        for priority in (hideability_priority(instance), size_priority(instance)):
            if starts and deadline_clock() > deadline:
                return starts
            _, solution = shortest_feasible_prefix(instance, (), priority, deadline)
            starts.append(solution)
        if deadline_clock() > deadline:
            return starts
        conv, _ = vdnn_conv_schedule(instance, deadline)
        if conv is not None:
            starts.append(conv)
        for buckets in (256, 1024):
            if deadline_clock() > deadline:
                return starts
            dp_set = dp_offload_set(instance, buckets, 0.05)
            if dp_set is not None:
                dp_schedule = simulate(instance, dp_set)
                if dp_schedule is not None:
                    starts.append(dp_schedule)
    except TimeLimitReached:  # the method's hard deadline, inside a simulation
        if not starts:
            raise
    return starts


def iterated_local_search(
    instance: Instance, deadline: float, seed: int, extra: Sequence[Solution] = (), order_fraction: float = 0.3
) -> Solution:
    """Local search from the best starting set, then kicks of 2-4 random flips; then the channel orders.

    ``1 - order_fraction`` of the time goes to the search over O (default
    channel orders), the rest to `ordered_iterated_search` from its best
    schedule.
    """
    rng = random.Random(seed)
    final_deadline = deadline
    now = deadline_clock()
    deadline = now + (1.0 - order_fraction) * max(0.0, final_deadline - now)
    starts = _starting_sets(instance, deadline, extra)
    start = min(starts, key=lambda sol: _value(instance, sol))
    # Past the deadline the start stands (on 2,000 layers one more simulation is ~0.6 s).
    best = start
    if deadline_clock() <= deadline:
        try:
            best = local_search_from(instance, set(start.offloaded), deadline, seed)
        except TimeLimitReached:  # the method's hard deadline, inside its first simulation: the start stands
            pass
    best_value = _value(instance, best)
    candidates = list(instance.offloadable)
    rounds, stalled = 0, 0
    # Stop early after many kicks without improvement (small chains converge long before the deadline).
    try:
        while deadline_clock() < deadline and candidates and stalled < 50 + 5 * len(candidates):
            rounds += 1
            kicked = set(best.offloaded) ^ set(rng.sample(candidates, min(len(candidates), rng.randint(2, 4))))
            candidate = local_search_from(instance, kicked, deadline, seed + rounds)
            stalled += 1
            if _value(instance, candidate) < best_value:
                best, best_value, stalled = candidate, _value(instance, candidate), 0
    except TimeLimitReached:  # the method's hard deadline, inside a simulation: no time for the orders either
        return best
    return ordered_iterated_search(instance, best, max(final_deadline, deadline_clock() + 0.05), seed)


@bounded_simulations
def local_search(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Iterated flip/swap local search over O from the best greedy/DP set (time-limited, seeded).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds: 70 % for the search over offload sets, the rest for the channel orders.
    seed
        Seed of the move orders and kicks.
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE with the best schedule found and `bounds.best` as bound.
    """
    check_feasible(instance)
    deadline = _deadline(time_limit, 5.0)
    return _result(instance, iterated_local_search(instance, deadline, seed))


def best_heuristic_solution(
    instance: Instance, *, time_limit: float = 2.0, seed: int = 0, fractions: dict[int, float] | None = None
) -> Solution:
    """Best schedule of the fast heuristics within ``time_limit`` (warm start of the exact methods).

    ``fractions``: LP values of o_i, whose roundings are extra starting sets.
    """
    extra = []
    if fractions:
        priority = sorted(instance.offloadable, key=lambda i: (-round(fractions[i], 6), -instance.activation[i], i))
        extra.append(round_fractions(instance, fractions, priority))
    # The set search keeps its whole ``time_limit``; the channel-order phase comes on top (a third more).
    return iterated_local_search(instance, deadline_clock() + 1.5 * time_limit, seed, extra, order_fraction=1 / 3)


# ---------------------------------------------------------------- channel orders
def channel_orders(solution: Solution) -> tuple[list[int], list[int]]:
    """(offload order, prefetch order) of a schedule, by start time (ties by index)."""
    chosen = list(solution.offloaded)
    return (
        sorted(chosen, key=lambda i: (solution.offload_start[i], i)),
        sorted(chosen, key=lambda i: (solution.prefetch_start[i], -i)),
    )


def improve_orders(instance: Instance, solution: Solution, deadline: float, seed: int = 0) -> Solution:
    """Local search over the two channel orders of a fixed offload set (first improvement).

    Moves: take one transfer out of its channel order and reinsert it up to
    three places earlier or later; each order is timed by `simulate` with
    ``out_order``/``in_order``.  Production order for offloads and order of
    use for prefetches (the simulator's default) are not always best: a
    large offload moved ahead of a small one frees memory sooner, a small
    prefetch moved earlier can fill a channel gap.
    """
    rng = random.Random(seed)
    out_order, in_order = channel_orders(solution)
    best, value = solution, _value(instance, solution)
    if deadline_clock() > deadline:
        return best
    try:
        # The given schedule may not be an ASAP one: start from the ASAP timing of its orders if better.
        timed = simulate(instance, solution.offloaded, out_order=out_order, in_order=in_order)
        if timed is not None and _value(instance, timed) < value:
            best, value = timed, _value(instance, timed)
        improved = True
        while improved and deadline_clock() < deadline:
            improved = False
            moves = [
                (channel, position, shift)
                for channel in (0, 1)
                for position in range(len(out_order))
                for shift in (-3, -2, -1, 1, 2, 3)
                if 0 <= position + shift < len(out_order)
            ]
            rng.shuffle(moves)
            for channel, position, shift in moves:
                if deadline_clock() > deadline:
                    break
                order = list(out_order if channel == 0 else in_order)
                order.insert(position + shift, order.pop(position))
                trial = simulate(
                    instance,
                    solution.offloaded,
                    out_order=order if channel == 0 else out_order,
                    in_order=order if channel == 1 else in_order,
                )
                if trial is not None and _value(instance, trial) < value:
                    best, value, improved = trial, _value(instance, trial), True
                    if channel == 0:
                        out_order = order
                    else:
                        in_order = order
                    break
    except TimeLimitReached:  # the method's hard deadline, inside a simulation
        pass
    return best


def _insert_naturally(order: list[int], item: int, descending: bool) -> list[int]:
    """``order`` with ``item`` inserted before the first element that comes after it by index."""
    for position, other in enumerate(order):
        if (other < item) if descending else (other > item):
            return [*order[:position], item, *order[position:]]
    return [*order, item]


def ordered_local_search(instance: Instance, solution: Solution, deadline: float, seed: int = 0) -> Solution:
    """Alternate `improve_orders` with flips of O that keep the current channel orders.

    A flipped-in a_i enters both orders at its natural place (production
    order out, order of use in); a flipped-out one leaves them.  Stops at a
    local optimum of both neighbourhoods or at the deadline.
    """
    rng = random.Random(seed)
    best = improve_orders(instance, solution, deadline, seed)
    value = _value(instance, best)
    candidates = list(instance.offloadable)
    try:
        improved = True
        while improved and deadline_clock() < deadline:
            improved = False
            out_order, in_order = channel_orders(best)
            rng.shuffle(candidates)
            for i in candidates:
                if deadline_clock() > deadline:
                    break
                if i in out_order:
                    trial_out = [j for j in out_order if j != i]
                    trial_in = [j for j in in_order if j != i]
                else:
                    trial_out = _insert_naturally(out_order, i, descending=False)
                    trial_in = _insert_naturally(in_order, i, descending=True)
                trial = simulate(instance, trial_out, out_order=trial_out, in_order=trial_in)
                if trial is not None and _value(instance, trial) < value:
                    best = improve_orders(instance, trial, deadline, seed)
                    value, improved = _value(instance, best), True
                    break
    except TimeLimitReached:  # the method's hard deadline, inside a simulation
        pass
    return best


def ordered_iterated_search(instance: Instance, solution: Solution, deadline: float, seed: int = 0) -> Solution:
    """`ordered_local_search`, then kicks (2-4 random flips or order moves) until the deadline."""
    rng = random.Random(seed)
    best = ordered_local_search(instance, solution, deadline, seed)
    best_value = _value(instance, best)
    candidates = list(instance.offloadable)
    rounds, stalled = 0, 0
    try:
        while deadline_clock() < deadline and candidates and stalled < 50 + 5 * len(candidates):
            rounds += 1
            stalled += 1
            out_order, in_order = channel_orders(best)
            for _ in range(rng.randint(2, 4)):
                if rng.random() < 0.5 or len(out_order) < 2:
                    i = rng.choice(candidates)
                    if i in out_order:
                        out_order.remove(i)
                        in_order.remove(i)
                    else:
                        out_order = _insert_naturally(out_order, i, descending=False)
                        in_order = _insert_naturally(in_order, i, descending=True)
                else:
                    order = out_order if rng.random() < 0.5 else in_order
                    position = rng.randrange(len(order))
                    order.insert(
                        max(0, min(len(order) - 1, position + rng.choice((-2, -1, 1, 2)))), order.pop(position)
                    )
            kicked = simulate(instance, out_order, out_order=out_order, in_order=in_order)
            if kicked is None:
                continue
            candidate = ordered_local_search(instance, kicked, deadline, seed + rounds)
            if _value(instance, candidate) < best_value:
                best, best_value, stalled = candidate, _value(instance, candidate), 0
    except TimeLimitReached:  # the method's hard deadline, inside a simulation
        pass
    return best
