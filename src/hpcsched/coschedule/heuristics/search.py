"""Matching order, lp-merge and the local search (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result
from ..bounds import solve_preemptive_lp
from ..model import Instance, Solution
from ..phases import order_phases
from ..special_cases import GREEDY_MATCHING_NOTE, pair_block, paired_matching
from .lists import _result, greedy_partner_schedule, list_schedule, makespan_of


def matching_order(instance: Instance, deadline: Deadline | None = None) -> tuple[list[int], bool]:
    """Matched pairs (longer kernel first) and single kernels, longest block first.

    Also says whether the matching is the maximum-weight one (False when
    ``deadline`` cut it and the greedy matching stood in).
    """
    blocks = []
    pairs, optimal = paired_matching(instance, deadline)
    for pair in pairs:
        if len(pair) == 2:
            i, j = pair
            first = i if instance.kernels[i].duration >= instance.kernels[j].duration else j
            blocks.append((pair_block(instance, i, j), [first, j if first == i else i]))
        else:
            blocks.append((float(instance.kernels[pair[0]].duration), [pair[0]]))
    blocks.sort(key=lambda b: -b[0])
    return [k for _, kernels in blocks for k in kernels], optimal


def matching_list(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Matching pairing: max-weight matching pairs submitted together, then list scheduling.

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit
        Seconds for the matching; past them the greedy matching is used.
    seed, params
        Unused (deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    order, optimal = matching_order(instance, Deadline.after(time_limit))
    return _result(instance, list_schedule(instance, order), () if optimal else (GREEDY_MATCHING_NOTE,))


def best_list_schedule(instance: Instance) -> Solution:
    """Best of LPT, SPT, greedy partner and (n <= 150) matching and lp-merge orders; the MILP's big-M."""
    candidates = [
        list_schedule(instance, sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration)),
        list_schedule(instance, sorted(range(instance.n), key=lambda k: instance.kernels[k].duration)),
        greedy_partner_schedule(instance),
    ]
    if instance.n <= 150:
        candidates.append(list_schedule(instance, matching_order(instance)[0]))
        candidates.append(list_schedule(instance, lp_merge_order(instance)))
    return min(candidates, key=lambda s: makespan_of(instance, s))


def lp_merge(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """LP-guided: caterpillar order of the preemptive LP, preempted pieces merged greedily.

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit, seed, params
        Unused (one LP and a few simulations, deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    _, merged, schedule = _lp_merge(instance, Deadline.after(time_limit))
    return _result(instance, schedule, (f"{merged} preempted kernels of the LP order merged",))


def lp_merge_order(instance: Instance, deadline: Deadline | None = None) -> list[int]:
    """The submission order of ``lp-merge`` (LP and merges under ``deadline``; None: no limit)."""
    return _lp_merge(instance, deadline or Deadline(None))[0]


def _lp_merge(instance: Instance, deadline: Deadline) -> tuple[list[int], int, Solution]:
    """The LP's caterpillar order with preempted kernels merged, the merges made, and its list schedule.

    Past the deadline the merges stop. An LP cut by the deadline leaves no
    phases: the order is then the index order. The schedule is the one the
    search kept (simulating the order again costs ~0.5 s at 10,000 kernels).
    """
    solved = solve_preemptive_lp(instance, time_limit=deadline.remaining(floor=1e-3))
    phases = order_phases(solved.solo, solved.pairs, instance.n)
    pieces: dict[int, list[list[int]]] = {}
    for position, (kernels, _) in enumerate(phases):
        for k in kernels:
            runs = pieces.setdefault(k, [])
            if not runs or runs[-1][1] != position - 1:
                runs.append([position, position])
            else:
                runs[-1][1] = position
    key = {k: float(runs[0][0]) for k, runs in pieces.items()}
    for k in range(instance.n):
        key.setdefault(k, float(len(phases)))

    def schedule(keys):
        return list_schedule(instance, sorted(range(instance.n), key=lambda k: (keys[k], k)))

    best = schedule(key)
    best_value = makespan_of(instance, best)
    merged = 0
    for k, runs in pieces.items():
        if len(runs) < 2:
            continue
        if deadline.expired():  # each trial is one list schedule: O(n^2) at a few thousand kernels
            break
        merged += 1
        for run in runs[1:]:
            trial = dict(key)
            trial[k] = run[0] - 0.5  # just before the piece's first phase
            candidate = schedule(trial)
            value_c = makespan_of(instance, candidate)
            if value_c < best_value:
                best, best_value, key = candidate, value_c, trial
    return sorted(range(instance.n), key=lambda k: (key[k], k)), merged, best


@dataclass(frozen=True)
class LocalSearchParams:
    """Options of ``local-search``.

    Attributes
    ----------
    max_iterations
        Moves tried at most (the search also stops at the time limit); a move
        count, not a time, makes a run reproducible.
    """

    max_iterations: int = 3000

    def __post_init__(self) -> None:
        at_least("max_iterations", self.max_iterations, 0)


def local_search(instance: Instance, /, *, time_limit: float, seed: int, params: LocalSearchParams | None) -> Result:
    """Local search over the submission order (swap / insert moves, list simulator).

    Parameters
    ----------
    instance
        The instance (streams honoured: every order is list-scheduled).
    time_limit
        Seconds of search (the starting orders are built first).
    seed
        Seed of the move generator (``numpy.random.default_rng``).
    params
        `LocalSearchParams` (None: the defaults).

    Returns
    -------
    Result
        FEASIBLE, the best order found, with `bounds.best` as bound for n <= 300.
    """
    params = params or LocalSearchParams()
    _, moves, schedule = _search(instance, Deadline.after(time_limit), seed, params.max_iterations)
    return _result(instance, schedule, (f"{moves} moves, seed {seed}",))


def search_order(instance: Instance, deadline: Deadline, seed: int, max_iterations: int) -> tuple[list[int], int]:
    """The best submission order of the local search, and the moves it tried.

    The starting orders are made while the deadline allows, cheapest first: LPT
    (one list schedule, always), greedy partner, lp-merge (its LP and merges under
    the deadline) and, for n <= 150, the matching order; the best one starts the search.
    """
    order, moves, _ = _search(instance, deadline, seed, max_iterations)
    return order, moves


def _search(instance: Instance, deadline: Deadline, seed: int, max_iterations: int) -> tuple[list[int], int, Solution]:
    """`search_order`, and the list schedule of its order (kept, not simulated again: ~0.5 s at 10,000 kernels)."""
    rng = np.random.default_rng(seed)
    order = sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration)
    schedule = list_schedule(instance, order)
    best_value = makespan_of(instance, schedule)
    starts = [
        lambda: [s.kernel for s in greedy_partner_schedule(instance).segments],
        lambda: lp_merge_order(instance, deadline),
    ]
    if instance.n <= 150:
        starts.append(lambda: matching_order(instance, deadline)[0])
    for make in starts:
        if deadline.expired():
            break
        start = make()
        if deadline.expired():  # its list schedule would be work after the deadline
            break
        candidate_schedule = list_schedule(instance, start)
        value = makespan_of(instance, candidate_schedule)
        if value < best_value:  # ties keep the earlier start, as min() over the list did
            best_value, order, schedule = value, start, candidate_schedule
    order = list(order)
    moves = 0
    while instance.n > 1 and moves < max_iterations and not deadline.expired():
        moves += 1
        candidate = list(order)
        a, b = rng.choice(instance.n, size=2, replace=False)
        if rng.random() < 0.5:
            candidate[a], candidate[b] = candidate[b], candidate[a]
        else:
            candidate.insert(b, candidate.pop(a))
        candidate_schedule = list_schedule(instance, candidate)
        value = makespan_of(instance, candidate_schedule)
        if value <= best_value:
            best_value, order, schedule = value, candidate, candidate_schedule
    return order, moves, schedule
