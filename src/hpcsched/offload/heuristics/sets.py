"""Offload-set heuristics and baselines: priorities, repair by the simulator, LP rounding, the DP."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ...core.deadline import now as deadline_clock
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution, check_feasible
from ..simulate import bounded_simulations, makespan_of, simulate


def _value(instance: Instance, solution: Solution | None) -> float:
    return makespan_of(instance, solution)


def shortest_feasible_prefix(
    instance: Instance, base: Iterable[int], priority: Sequence[int], deadline: float | None = None
) -> tuple[set[int], Solution]:
    """Smallest p such that base + priority[:p] fits (bisection; past ``deadline`` the shortest fitting so far).

    A simulation that the method's hard deadline stops (`simulate.simulation_deadline`) ends the
    bisection too; before one set fits, `TimeLimitReached` goes to the caller.
    """
    base = set(base)
    order = [i for i in priority if i not in base]
    solution = simulate(instance, base)
    if solution is not None:
        return base, solution
    low, high = 0, len(order)  # invariant: prefix of length high fits (offload-all fits)
    full = simulate(instance, base | set(order))
    if full is None:
        full = simulate(instance, instance.offloadable)
        assert full is not None, "offload-all fits on a feasible instance (model.memory_floors)"
        return set(instance.offloadable), full
    best = full
    while high - low > 1 and (deadline is None or deadline_clock() <= deadline):
        middle = (low + high) // 2
        try:
            candidate = simulate(instance, base | set(order[:middle]))
        except TimeLimitReached:
            break
        if candidate is None:
            low = middle
        else:
            high, best = middle, candidate
    return base | set(order[:high]), best


def improve_by_adding(
    instance: Instance, chosen: set[int], solution: Solution, priority: Sequence[int], deadline: float
) -> tuple[set[int], Solution]:
    """Add further candidates in priority order when that shortens the makespan."""
    value = _value(instance, solution)
    for i in priority:
        if deadline_clock() > deadline:
            break
        if i in chosen:
            continue
        try:
            candidate = simulate(instance, chosen | {i})
        except TimeLimitReached:  # the method's hard deadline, inside the simulation
            break
        if candidate is not None and _value(instance, candidate) < value:
            chosen, solution, value = chosen | {i}, candidate, _value(instance, candidate)
    return chosen, solution


def _result(instance: Instance, solution: Solution | None, notes: Sequence[str] = ()) -> Result:
    if solution is None:
        return Result(status=Status.NOT_APPLICABLE, notes=tuple(notes))
    return Result(
        status=Status.FEASIBLE,
        objective=_value(instance, solution),
        bound=bounds.best(instance),
        solution=solution,
        notes=tuple(notes),
    )


def _deadline(time_limit: float | None, default: float) -> float:
    return deadline_clock() + (default if time_limit is None else float(time_limit))


def size_priority(instance: Instance) -> list[int]:
    return sorted(instance.offloadable, key=lambda i: (-instance.activation[i], i))


def hideability_priority(instance: Instance) -> list[int]:
    def score(i: int) -> float:
        copy = instance.offload_time(i) + instance.prefetch_time(i)
        window = instance.forward[i] + instance.backward[i]  # layer i+1 reads a_i in F and B
        return window / copy if copy else float("inf")

    return sorted(instance.offloadable, key=lambda i: (-score(i), -instance.activation[i], i))


# ---------------------------------------------------------------- baselines
@bounded_simulations
def no_offload(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Keep every activation (framework default).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for its one simulation (past them, `TimeLimitReached`: no solution).
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE with the simulator's schedule of the empty set, or NOT_APPLICABLE when it does not fit.
    """
    check_feasible(instance)
    solution = simulate(instance, ())
    return _result(instance, solution, () if solution else ("the budget is too small to keep every activation",))


@bounded_simulations
def offload_all(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Offload every offloadable activation (vDNN-all).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for its one simulation (past them, `TimeLimitReached`: no solution).
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE (it always fits on a feasible instance), bound `bounds.best`.
    """
    check_feasible(instance)
    return _result(instance, simulate(instance, instance.offloadable))


@bounded_simulations
def vdnn_conv(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Offload the inputs of convolution layers (vDNN-conv), repaired by size if needed.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for the repair (past them, the shortest fitting size prefix found so far).
    seed, params
        Unused (deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE with the simulator's schedule of the set and `bounds.best` as bound.
    """
    check_feasible(instance)
    solution, note = vdnn_conv_schedule(instance, _deadline(time_limit, 2.0))
    return _result(instance, solution, (note,))


def vdnn_conv_schedule(instance: Instance, deadline: float | None = None) -> tuple[Solution, str]:
    """vDNN-conv's schedule and how its set was chosen (a starting set of the local search)."""
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
    _, solution = shortest_feasible_prefix(instance, chosen, size_priority(instance), deadline)
    return solution, note


def _greedy(instance: Instance, priority: list[int], time_limit: float | None, default: float) -> Result:
    check_feasible(instance)
    deadline = _deadline(time_limit, default)
    chosen, solution = shortest_feasible_prefix(instance, (), priority, deadline)
    chosen, solution = improve_by_adding(instance, chosen, solution, priority, deadline)
    return _result(instance, solution)


@bounded_simulations
def greedy_size(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Largest activations first, then additions that shorten the makespan.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for the additions after the shortest feasible prefix.
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, bound `bounds.best`.
    """
    return _greedy(instance, size_priority(instance), time_limit, 2.0)


@bounded_simulations
def greedy_hideability(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Best compute-to-copy ratio first, then additions that shorten the makespan.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for the additions after the shortest feasible prefix.
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, bound `bounds.best`.
    """
    return _greedy(instance, hideability_priority(instance), time_limit, 2.0)


def round_fractions(
    instance: Instance, fractions: dict[int, float], priority: Sequence[int], deadline: float | None = None
) -> Solution:
    """Best of the threshold roundings {i: o_i >= theta}, each repaired along ``priority``.

    ``deadline`` (``core.deadline.now`` reading): no further threshold is tried after it (the first always is).
    """
    best: Solution | None = None
    for theta in (0.999, 0.9, 0.7, 0.5, 0.3, 0.1, 1e-6):
        if best is not None and deadline is not None and deadline_clock() > deadline:
            break
        chosen = {i for i in instance.offloadable if fractions.get(i, 0.0) >= theta}
        try:
            _, solution = shortest_feasible_prefix(instance, chosen, priority, deadline)
        except TimeLimitReached:
            if best is None:
                raise
            break
        if best is None or _value(instance, solution) < _value(instance, best):
            best = solution
    assert best is not None  # the first threshold is always tried
    return best


@bounded_simulations
def lp_rounding(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """LP relaxation (fractional offloading), rounded by priority, repaired by the simulator.

    The LP (build and solve) gets 70 % of the time limit.  Its bound is used
    only when the LP was solved to optimality; a primal feasible point it
    stopped at still orders the roundings; without either, activations are
    taken by size.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for every phase: the LP gets 70 %, the roundings and additions the rest.
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, bound the LP's (rounded up) when it was solved to optimality, else `bounds.best`.
    """
    check_feasible(instance)
    limit = 30.0 if time_limit is None else float(time_limit)
    started = deadline_clock()
    notes = []
    bound = bounds.best(instance)
    solver = None
    # An LP that cannot be built in its share gives nothing: its time goes to the roundings.
    skipped = bounds.build_cannot_fit(instance, 0.7 * limit)
    try:
        if skipped:
            raise TimeLimitReached(skipped)
        value, fractions, outcome = bounds.lp_relaxation(
            instance, time_limit=0.7 * limit, deadline=Deadline.after(limit)
        )
        solver, stopped = outcome.backend, outcome.message
    except TimeLimitReached as reached:
        value, fractions, stopped = None, {}, str(reached)
    if value is not None:
        bound = max(bound, math.ceil(value * (1 - 1e-9) - 1e-6))
    elif fractions:
        notes.append(
            f"LP relaxation not solved to optimality in {0.7 * limit:.3g} s ({stopped}): "
            "its last point orders the roundings, no LP bound"
        )
    else:
        notes.append(f"LP relaxation not solved in {0.7 * limit:.3g} s ({stopped}): priority by size")
    if fractions:
        priority = sorted(instance.offloadable, key=lambda i: (-round(fractions[i], 6), -instance.activation[i], i))
    else:
        priority = size_priority(instance)
    deadline = started + limit
    solution = round_fractions(instance, fractions, priority, deadline)
    _chosen, solution = improve_by_adding(instance, set(solution.offloaded), solution, priority, deadline)
    return Result(
        status=Status.FEASIBLE,
        objective=_value(instance, solution),
        bound=bound,
        solution=solution,
        notes=tuple(notes),
        solver=solver,
    )
