"""Heuristics and baselines of ``offload``.

Every heuristic chooses an offload set O; the ASAP simulator
(`simulate.simulate`) times it.  Sets that do not fit are *repaired*: the
candidates not yet chosen are added in the heuristic's priority order, the
shortest feasible prefix being found by bisection (feasibility is monotone
in practice; a linear scan finishes the job when it is not).

- ``no-offload``: the framework default; NOT_APPLICABLE when it does not fit.
- ``offload-all``: vDNN-all; always fits on a feasible instance.
- ``vdnn-conv``: offload the inputs of convolution layers (by name when the
  instance has layer names, else the layers whose f_{i+1}/s_i is in the top
  half), then repair by size.
- ``greedy-size``: largest activations first, shortest feasible prefix, then
  each further candidate kept if it shortens the makespan (time-limited).
- ``greedy-hideability``: priority ``(f_{i+1} + b_{i+1}) / (tau_out_i + tau_in_i)``
  (compute that can hide the copies per unit of copy time), same procedure.
- ``lp-rounding``: the LP relaxation of `bounds.lp_relaxation` gives
  fractional o_i; the best of the roundings {o_i >= theta} for several
  theta, each repaired in the order of decreasing o_i, then additions.
- ``dp``: POFO-style dynamic program over discretized memory.  The state
  after deciding a_0..a_i is the (rounded up) number of kept bytes; the
  memory floors of F_{i+2} and B_{i+2} with that prefix kept are checked
  exactly (rounding up is conservative), the cost of offloading a_i is its
  exposed copy time ``max(0, tau_out - f_{i+1}) + max(0, tau_in - b_{i+1})``
  plus alpha times its copy time.  Anytime: finer grids and several alpha
  until the time limit; each DP set is simulated and the best kept.
- ``local-search``: from the best of the greedy/DP/vDNN sets, flip/swap
  moves, first improvement, random order (seeded); then iterated: kicks of
  2-4 random flips followed by local search, for 70 % of the time limit
  (`best_heuristic_solution`, the exact methods' warm start: its whole
  budget, plus a third more for the orders);
  then the *channel orders* (`ordered_iterated_search`): the simulator
  accepts any offload order and prefetch order, and a local search moves
  one transfer up to three places in its order, alternated with flips of O
  that keep the orders, with kicks until the time limit.  (Production order
  out / order of use in is not always best: on VGG16 PCIe 3 at 60 % moving
  the offload of a_17 after a_20's and a_26's last gives 1,066,597 instead
  of 1,070,307.)

All heuristics report ``bounds.best`` as their bound (valid, cheap).
"""

from __future__ import annotations

import math
import random
import time
from typing import Iterable, Sequence

import numpy as np

from ..core.deadline import TimeLimitReached
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, check_feasible
from .simulate import makespan_of, simulate

PROBLEM = "offload"


def _value(instance: Instance, solution: Solution | None) -> float:
    return makespan_of(instance, solution)


def shortest_feasible_prefix(instance: Instance, base: Iterable[int], priority: Sequence[int]) -> tuple[set[int], Solution]:
    """Smallest p such that base + priority[:p] fits (bisection, then linear scan)."""
    base = set(base)
    order = [i for i in priority if i not in base]
    solution = simulate(instance, base)
    if solution is not None:
        return base, solution
    low, high = 0, len(order)  # invariant: prefix of length high fits (offload-all fits)
    full = simulate(instance, base | set(order))
    if full is None:
        full = simulate(instance, instance.offloadable)
        return set(instance.offloadable), full
    best = full
    while high - low > 1:
        middle = (low + high) // 2
        candidate = simulate(instance, base | set(order[:middle]))
        if candidate is None:
            low = middle
        else:
            high, best = middle, candidate
    return base | set(order[:high]), best


def improve_by_adding(instance: Instance, chosen: set[int], solution: Solution, priority: Sequence[int],
                      deadline: float) -> tuple[set[int], Solution]:
    """Add further candidates in priority order when that shortens the makespan."""
    value = _value(instance, solution)
    for i in priority:
        if time.perf_counter() > deadline:
            break
        if i in chosen:
            continue
        candidate = simulate(instance, chosen | {i})
        if candidate is not None and _value(instance, candidate) < value:
            chosen, solution, value = chosen | {i}, candidate, _value(instance, candidate)
    return chosen, solution


def _result(instance: Instance, method: str, solution: Solution | None, notes: Sequence[str] = ()) -> Result:
    if solution is None:
        return Result(PROBLEM, method, Status.NOT_APPLICABLE, notes=tuple(notes))
    return Result(PROBLEM, method, Status.FEASIBLE, objective=_value(instance, solution),
                  bound=bounds.best(instance), solution=solution, notes=tuple(notes))


def _deadline(time_limit: float | None, default: float) -> float:
    return time.perf_counter() + (default if time_limit is None else float(time_limit))


def size_priority(instance: Instance) -> list[int]:
    return sorted(instance.offloadable, key=lambda i: (-instance.activation[i], i))


def hideability_priority(instance: Instance) -> list[int]:
    def score(i: int) -> float:
        copy = instance.offload_time(i) + instance.prefetch_time(i)
        window = instance.forward[i] + instance.backward[i]  # layer i+1 reads a_i in F and B
        return window / copy if copy else float("inf")

    return sorted(instance.offloadable, key=lambda i: (-score(i), -instance.activation[i], i))


# ---------------------------------------------------------------- baselines
def no_offload(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """Keep every activation (framework default)."""
    check_feasible(instance)
    solution = simulate(instance, ())
    return _result(instance, "no-offload", solution,
                   () if solution else ("the budget is too small to keep every activation",))


def offload_all(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """Offload every offloadable activation (vDNN-all)."""
    check_feasible(instance)
    return _result(instance, "offload-all", simulate(instance, instance.offloadable))


def vdnn_conv(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """Offload the inputs of convolution layers (vDNN-conv), repaired by size if needed."""
    check_feasible(instance)
    n = instance.n_layers
    if instance.layers and any("conv" in name.lower() for name in instance.layers):
        chosen = {k - 1 for k in range(1, n + 1) if "conv" in instance.layers[k - 1].lower()}
        note = "inputs of layers named Conv*"
    else:
        ratio = {i: instance.forward[i] / max(1, instance.activation[i]) for i in instance.offloadable}
        threshold = float(np.median(list(ratio.values()))) if ratio else 0.0
        chosen = {i for i, value in ratio.items() if value >= threshold}
        note = "no layer names: inputs of the layers with f_{i+1}/s_i above the median"
    chosen &= set(instance.offloadable)
    chosen, solution = shortest_feasible_prefix(instance, chosen, size_priority(instance))
    return _result(instance, "vdnn-conv", solution, (note,))


def _greedy(instance: Instance, method: str, priority: list[int], time_limit: float | None, default: float) -> Result:
    check_feasible(instance)
    deadline = _deadline(time_limit, default)
    chosen, solution = shortest_feasible_prefix(instance, (), priority)
    chosen, solution = improve_by_adding(instance, chosen, solution, priority, deadline)
    return _result(instance, method, solution)


def greedy_size(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """Largest activations first, then additions that shorten the makespan."""
    return _greedy(instance, "greedy-size", size_priority(instance), time_limit, 2.0)


def greedy_hideability(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """Best compute-to-copy ratio first, then additions that shorten the makespan."""
    return _greedy(instance, "greedy-hideability", hideability_priority(instance), time_limit, 2.0)


def round_fractions(instance: Instance, fractions: dict[int, float], priority: Sequence[int],
                    deadline: float | None = None) -> Solution:
    """Best of the threshold roundings {i: o_i >= theta}, each repaired along ``priority``.

    ``deadline`` (``time.perf_counter`` value): no further threshold is tried after it (the first always is).
    """
    best = None
    for theta in (0.999, 0.9, 0.7, 0.5, 0.3, 0.1, 1e-6):
        if best is not None and deadline is not None and time.perf_counter() > deadline:
            break
        chosen = {i for i in instance.offloadable if fractions.get(i, 0.0) >= theta}
        _, solution = shortest_feasible_prefix(instance, chosen, priority)
        if best is None or _value(instance, solution) < _value(instance, best):
            best = solution
    return best


def lp_rounding(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """LP relaxation (fractional offloading), rounded by priority, repaired by the simulator.

    The LP (build and solve) gets 70 % of the time limit.  Its bound is used
    only when the LP was solved to optimality; a primal feasible point it
    stopped at still orders the roundings; without either, activations are
    taken by size.
    """
    check_feasible(instance)
    limit = 30.0 if time_limit is None else float(time_limit)
    started = time.perf_counter()
    notes = []
    bound = bounds.best(instance)
    solver = None
    try:
        value, fractions, outcome = bounds.lp_relaxation(instance, time_limit=0.7 * limit)
        solver, stopped = outcome.backend, outcome.message
    except TimeLimitReached as reached:
        value, fractions, stopped = None, {}, str(reached)
    if value is not None:
        bound = max(bound, math.ceil(value * (1 - 1e-9) - 1e-6))
    elif fractions:
        notes.append(f"LP relaxation not solved to optimality in {0.7 * limit:.3g} s ({stopped}): "
                     "its last point orders the roundings, no LP bound")
    else:
        notes.append(f"LP relaxation not solved in {0.7 * limit:.3g} s ({stopped}): priority by size")
    if fractions:
        priority = sorted(instance.offloadable, key=lambda i: (-round(fractions[i], 6), -instance.activation[i], i))
    else:
        priority = size_priority(instance)
    deadline = started + limit
    solution = round_fractions(instance, fractions, priority, deadline)
    chosen, solution = improve_by_adding(instance, set(solution.offloaded), solution, priority, deadline)
    return Result(PROBLEM, "lp-rounding", Status.FEASIBLE, objective=_value(instance, solution), bound=bound,
                  solution=solution, notes=tuple(notes), solver=solver)


# ---------------------------------------------------------------- dynamic program
def dp_offload_set(instance: Instance, buckets: int, alpha: float) -> set[int] | None:
    """One POFO-style DP pass (see module docstring); None if no set satisfies the rounded floors."""
    n, s, M = instance.n_layers, instance.activation, instance.memory
    unit = max(1, -(-M // buckets))
    size_units = [-(-x // unit) for x in s]  # rounded up: conservative
    cap = M // unit
    offloadable = set(instance.offloadable)
    inf = float("inf")
    cost = np.full(cap + 1, inf)
    cost[0] = 0.0
    choices = []  # per item: boolean array "offloaded" per resulting state
    for i in range(n):
        keep = np.full(cap + 1, inf)
        w = size_units[i]
        if w <= cap:
            keep[w:] = cost[: cap + 1 - w]
        if i in offloadable:
            penalty = (max(0, instance.offload_time(i) - instance.forward[i])
                       + max(0, instance.prefetch_time(i) - instance.backward[i])
                       + alpha * (instance.offload_time(i) + instance.prefetch_time(i)))
            off = cost + penalty
            take_off = off < keep
            new = np.where(take_off, off, keep)
        else:
            take_off = np.zeros(cap + 1, dtype=bool)
            new = keep
        # Floors of F_{i+2} and B_{i+2} with the kept prefix a_0..a_i.
        k = i + 2
        if k <= n:
            forward_need = s[k - 1] + s[k] + instance.workspace_forward[k - 1]
            gradient_in = s[n] if k == n else s[k]
            backward_need = 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1]
            room = (M - max(forward_need, backward_need)) // unit
            if room < 0:
                return None
            new[room + 1:] = inf
        choices.append(take_off)
        cost = new
    if not np.isfinite(cost).any():
        return None
    state = int(np.argmin(cost))
    chosen = set()
    for i in range(n - 1, -1, -1):
        if choices[i][state]:
            chosen.add(i)
        else:
            state -= size_units[i]
    return chosen


def dp(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """POFO-style DP over discretized memory (anytime: finer grids while time remains)."""
    check_feasible(instance)
    deadline = _deadline(time_limit, 5.0)
    best, best_value, tried = None, float("inf"), []
    for buckets in (64, 256, 1024, 4096):
        for alpha in (0.0, 0.05, 0.2, 1.0):
            if best is not None and time.perf_counter() > deadline:
                break
            chosen = dp_offload_set(instance, buckets, alpha)
            if chosen is None:
                continue
            solution = simulate(instance, chosen)
            if solution is None:
                chosen, solution = shortest_feasible_prefix(instance, chosen, hideability_priority(instance))
            tried.append(buckets)
            if _value(instance, solution) < best_value:
                best, best_value = solution, _value(instance, solution)
    if best is None:
        best = simulate(instance, instance.offloadable)
    return _result(instance, "dp", best, (f"{len(tried)} DP passes, finest grid {max(tried, default=0)} buckets",))


# ---------------------------------------------------------------- local search
def local_search_from(instance: Instance, start: set[int], deadline: float, seed: int) -> Solution:
    rng = random.Random(seed)
    chosen = set(start)
    current = simulate(instance, chosen)
    if current is None:
        chosen, current = shortest_feasible_prefix(instance, chosen, hideability_priority(instance))
    value = _value(instance, current)
    candidates = list(instance.offloadable)
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        moves = [("flip", i, None) for i in candidates]
        rng.shuffle(moves)
        for _, i, _ in moves:
            if time.perf_counter() > deadline:
                break
            trial = chosen ^ {i}
            solution = simulate(instance, trial)
            if solution is not None and _value(instance, solution) < value:
                chosen, current, value, improved = trial, solution, _value(instance, solution), True
        if improved or time.perf_counter() > deadline:
            continue
        inside, outside = sorted(chosen), [i for i in candidates if i not in chosen]
        pairs = [(a, b) for a in inside for b in outside]
        rng.shuffle(pairs)
        for a, b in pairs:
            if time.perf_counter() > deadline:
                break
            trial = (chosen - {a}) | {b}
            solution = simulate(instance, trial)
            if solution is not None and _value(instance, solution) < value:
                chosen, current, value, improved = trial, solution, _value(instance, solution), True
                break
    return current


def _starting_sets(instance: Instance, deadline: float, extra: Sequence[Solution] = ()) -> list[Solution]:
    starts = list(extra)
    # After the first start, each further one only while time remains (on a 1,000-layer chain each costs
    # tens of simulations).
    for priority in (hideability_priority(instance), size_priority(instance)):
        if starts and time.perf_counter() > deadline:
            return starts
        chosen, solution = shortest_feasible_prefix(instance, (), priority)
        starts.append(solution)
    if time.perf_counter() > deadline:
        return starts
    conv = vdnn_conv(instance).solution
    if conv is not None:
        starts.append(conv)
    for buckets in (256, 1024):
        if time.perf_counter() > deadline:
            return starts
        chosen = dp_offload_set(instance, buckets, 0.05)
        if chosen is not None:
            solution = simulate(instance, chosen)
            if solution is not None:
                starts.append(solution)
    return starts


def iterated_local_search(instance: Instance, deadline: float, seed: int, extra: Sequence[Solution] = (),
                          order_fraction: float = 0.3) -> Solution:
    """Local search from the best starting set, then kicks of 2-4 random flips; then the channel orders.

    ``1 - order_fraction`` of the time goes to the search over O (default
    channel orders), the rest to `ordered_iterated_search` from its best
    schedule.
    """
    rng = random.Random(seed)
    final_deadline = deadline
    now = time.perf_counter()
    deadline = now + (1.0 - order_fraction) * max(0.0, final_deadline - now)
    starts = _starting_sets(instance, deadline, extra)
    start = min(starts, key=lambda sol: _value(instance, sol))
    best = local_search_from(instance, set(start.offloaded), deadline, seed)
    best_value = _value(instance, best)
    candidates = list(instance.offloadable)
    rounds, stalled = 0, 0
    # Stop early after many kicks without improvement (small chains converge long before the deadline).
    while time.perf_counter() < deadline and candidates and stalled < 50 + 5 * len(candidates):
        rounds += 1
        kicked = set(best.offloaded) ^ set(rng.sample(candidates, min(len(candidates), rng.randint(2, 4))))
        candidate = local_search_from(instance, kicked, deadline, seed + rounds)
        stalled += 1
        if _value(instance, candidate) < best_value:
            best, best_value, stalled = candidate, _value(instance, candidate), 0
    return ordered_iterated_search(instance, best, max(final_deadline, time.perf_counter() + 0.05), seed)


def local_search(instance: Instance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """Iterated flip/swap local search over O from the best greedy/DP set (time-limited, seeded)."""
    check_feasible(instance)
    deadline = _deadline(time_limit, 5.0)
    return _result(instance, "local-search", iterated_local_search(instance, deadline, seed))


def best_heuristic_solution(instance: Instance, *, time_limit: float = 2.0, seed: int = 0,
                            fractions: dict[int, float] | None = None) -> Solution:
    """Best schedule of the fast heuristics within ``time_limit`` (warm start of the exact methods).

    ``fractions``: LP values of o_i, whose roundings are extra starting sets.
    """
    extra = []
    if fractions:
        priority = sorted(instance.offloadable, key=lambda i: (-round(fractions[i], 6), -instance.activation[i], i))
        extra.append(round_fractions(instance, fractions, priority))
    # The set search keeps its whole ``time_limit``; the channel-order phase comes on top (a third more).
    return iterated_local_search(instance, time.perf_counter() + 1.5 * time_limit, seed, extra,
                                 order_fraction=1 / 3)


# ---------------------------------------------------------------- channel orders
def channel_orders(solution: Solution) -> tuple[list[int], list[int]]:
    """(offload order, prefetch order) of a schedule, by start time (ties by index)."""
    chosen = list(solution.offloaded)
    return (sorted(chosen, key=lambda i: (solution.offload_start[i], i)),
            sorted(chosen, key=lambda i: (solution.prefetch_start[i], -i)))


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
    # The given schedule may not be an ASAP one: start from the ASAP timing of its orders if better.
    timed = simulate(instance, solution.offloaded, out_order=out_order, in_order=in_order)
    if timed is not None and _value(instance, timed) < value:
        best, value = timed, _value(instance, timed)
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        moves = [(channel, position, shift) for channel in (0, 1) for position in range(len(out_order))
                 for shift in (-3, -2, -1, 1, 2, 3) if 0 <= position + shift < len(out_order)]
        rng.shuffle(moves)
        for channel, position, shift in moves:
            if time.perf_counter() > deadline:
                break
            order = list(out_order if channel == 0 else in_order)
            order.insert(position + shift, order.pop(position))
            trial = simulate(instance, solution.offloaded, out_order=order if channel == 0 else out_order,
                             in_order=order if channel == 1 else in_order)
            if trial is not None and _value(instance, trial) < value:
                best, value, improved = trial, _value(instance, trial), True
                if channel == 0:
                    out_order = order
                else:
                    in_order = order
                break
    return best


def _insert_naturally(order: list[int], item: int, descending: bool) -> list[int]:
    """``order`` with ``item`` inserted before the first element that comes after it by index."""
    for position, other in enumerate(order):
        if (other < item) if descending else (other > item):
            return order[:position] + [item] + order[position:]
    return order + [item]


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
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        out_order, in_order = channel_orders(best)
        rng.shuffle(candidates)
        for i in candidates:
            if time.perf_counter() > deadline:
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
    return best


def ordered_iterated_search(instance: Instance, solution: Solution, deadline: float, seed: int = 0) -> Solution:
    """`ordered_local_search`, then kicks (2-4 random flips or order moves) until the deadline."""
    rng = random.Random(seed)
    best = ordered_local_search(instance, solution, deadline, seed)
    best_value = _value(instance, best)
    candidates = list(instance.offloadable)
    rounds, stalled = 0, 0
    while time.perf_counter() < deadline and candidates and stalled < 50 + 5 * len(candidates):
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
                order.insert(max(0, min(len(order) - 1, position + rng.choice((-2, -1, 1, 2)))), order.pop(position))
        kicked = simulate(instance, out_order, out_order=out_order, in_order=in_order)
        if kicked is None:
            continue
        candidate = ordered_local_search(instance, kicked, deadline, seed + rounds)
        if _value(instance, candidate) < best_value:
            best, best_value, stalled = candidate, _value(instance, candidate), 0
    return best
