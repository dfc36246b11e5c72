"""Non-preemptive heuristics and baselines, all scored by the validator.

Each builds a submission order (a permutation) and runs the two-slot
simulator of `simulate.py` with a start policy. The simulator only offers
kernels whose stream predecessor has completed, so every heuristic honours
``data.streams`` (the orders below are priorities among ready kernels):

- ``serial``: one kernel at a time (Σp), the no-concurrency baseline.
- ``fifo``: the hardware queue with the leftover policy: kernels are
  submitted in the instance's order; the head of the queue starts as soon as
  a slot is free and it is compatible with the running kernel (the first
  kernel takes what it wants, the next one the leftover, which the pair rates
  model); a blocked head blocks the queue. With streams (``data.streams``)
  it replays the streams as the hardware does: each stream issues its
  kernels in stream order (submission order: round r issues the r-th kernel
  of every stream, stream by stream; kernels in no stream first); a kernel
  is eligible once its stream predecessor has completed; when a slot is
  free, the first eligible kernel in submission order that may co-run with
  the running one starts (the leftover policy: the running kernel keeps its
  SMs, the newcomer gets the rest, even when the pair is slower than
  serial); a stream whose head is not eligible waits, the others do not.
- ``lpt`` / ``spt``: list scheduling in longest / shortest solo-duration
  order. List scheduling (also used by the methods below) starts the first
  pending kernel of the list when the GPU is idle, and next to a running
  kernel the first one whose pair saves time (r_{i|j} + r_{j|i} > 1);
  unlike the hardware it never co-runs a harmful pair.
- ``greedy-partner``: when a slot frees next to a running kernel i, start
  the pending kernel j maximizing r_{i|j} + r_{j|i} - 1 (the fraction of
  co-run time saved) if that is positive, else let i finish alone; on an
  idle GPU start the longest pending kernel.
- ``matching-list``: the maximum-weight matching of `special_cases`
  (weights = time saved by running the pair together), pairs submitted
  consecutively (longest block first), then list scheduling.
- ``lp-merge``: LP-guided: order kernels by their first phase in the
  caterpillar order of the preemptive LP; then, for each preempted kernel in
  turn, move it to the position of each of its pieces and keep the one with
  the least makespan increase (the "transform a preemptive solution" step).
- ``local-search``: from the best of the LPT, greedy, matching and lp-merge orders,
  random swap and insertion moves on the submission order, list-scheduled,
  keeping non-worsening moves, until the time limit or ``max_iterations``
  moves (default 3,000).

Heuristics attach the preemptive LP value as bound only when it is cheap
(n <= 300); it is a valid lower bound for every schedule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.deadline import Deadline
from ..core.params import at_least
from ..core.result import Result, Status
from .bounds import best, solve_preemptive_lp
from .model import Instance, Solution
from .simulate import fifo_policy, list_policy, simulate
from .special_cases import GREEDY_MATCHING_NOTE, order_phases, pair_block, paired_matching


def makespan_of(instance: Instance, solution: Solution) -> float:
    """Latest segment end."""
    return max(s.end for s in solution.segments)


#: Above this n heuristics attach no bound (the LP would cost more than the heuristic).
BOUND_MAX_N = 300


def _result(instance: Instance, solution: Solution, notes: tuple[str, ...] = ()) -> Result:
    bound = best(instance) if instance.n <= BOUND_MAX_N else None
    return Result(
        status=Status.FEASIBLE, objective=makespan_of(instance, solution), bound=bound, solution=solution, notes=notes
    )


def list_schedule(instance: Instance, order: Sequence[int]) -> Solution:
    """List scheduling of ``order``: the first pending kernel that pairs beneficially starts."""
    return simulate(instance, order, list_policy(beneficial_only=True))


def serial(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Serial baseline: one kernel at a time, makespan Σp.

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit, seed, params
        Unused (one simulation, deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    solution = simulate(instance, range(instance.n), lambda inst, running, t, pending: None if running else pending[0])
    return _result(instance, solution)


def fifo(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Hardware FIFO with the leftover policy, in submission (instance) order; per stream with streams.

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit, seed, params
        Unused (one simulation, deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    if instance.streams:
        return _result(
            instance,
            simulate(instance, stream_submission_order(instance), list_policy()),
            ("streams replayed: stream heads issued round-robin, leftover policy (any compatible head co-runs)",),
        )
    return _result(instance, simulate(instance, range(instance.n), fifo_policy()))


def stream_submission_order(instance: Instance) -> list[int]:
    """Kernels in no stream first (index order), then round r = the r-th kernel of each stream."""
    place = {k: (1, position, s) for s, stream in enumerate(instance.streams) for position, k in enumerate(stream)}
    return sorted(range(instance.n), key=lambda k: place.get(k, (0, k, 0)))


def lpt(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """LPT list scheduling (longest solo duration first).

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit, seed, params
        Unused (one simulation, deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    order = sorted(range(instance.n), key=lambda k: (-instance.kernels[k].duration, k))
    return _result(instance, list_schedule(instance, order))


def spt(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """SPT list scheduling (shortest solo duration first).

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit, seed, params
        Unused (one simulation, deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    order = sorted(range(instance.n), key=lambda k: (instance.kernels[k].duration, k))
    return _result(instance, list_schedule(instance, order))


def _greedy_policy(instance, running, time, pending):
    if not running:
        return max(pending, key=lambda k: (instance.kernels[k].duration, -k))
    i = running[0]
    best, best_gain = None, 0.0
    for j in pending:
        if instance.compatible(i, j):
            gain = instance.rate(i, j) + instance.rate(j, i) - 1
            if gain > best_gain + 1e-12:
                best, best_gain = j, gain
    return best


def greedy_partner_schedule(instance: Instance) -> Solution:
    """The schedule of ``greedy-partner``."""
    return simulate(instance, range(instance.n), _greedy_policy)


def greedy_partner(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Greedy best partner: when a slot frees, start the partner saving the most time.

    Parameters
    ----------
    instance
        The instance (streams honoured).
    time_limit, seed, params
        Unused (one simulation, deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.best` as bound for n <= 300.
    """
    return _result(instance, greedy_partner_schedule(instance))


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
    order, merged = _lp_merge(instance, time_limit)
    return _result(instance, list_schedule(instance, order), (f"{merged} preempted kernels of the LP order merged",))


def lp_merge_order(instance: Instance) -> list[int]:
    """The submission order of ``lp-merge`` (LP solved without a time limit)."""
    return _lp_merge(instance, None)[0]


def _lp_merge(instance: Instance, time_limit: float | None) -> tuple[list[int], int]:
    solved = solve_preemptive_lp(instance, time_limit=time_limit)
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
        merged += 1
        for run in runs[1:]:
            trial = dict(key)
            trial[k] = run[0] - 0.5  # just before the piece's first phase
            candidate = schedule(trial)
            value_c = makespan_of(instance, candidate)
            if value_c < best_value:
                best, best_value, key = candidate, value_c, trial
    return sorted(range(instance.n), key=lambda k: (key[k], k)), merged


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
    order, moves = search_order(instance, Deadline.after(time_limit), seed, params.max_iterations)
    return _result(instance, list_schedule(instance, order), (f"{moves} moves, seed {seed}",))


def search_order(instance: Instance, deadline: Deadline, seed: int, max_iterations: int) -> tuple[list[int], int]:
    """The best submission order of the local search, and the moves it tried."""
    rng = np.random.default_rng(seed)
    starts = [
        sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration),
        [s.kernel for s in greedy_partner_schedule(instance).segments],
        lp_merge_order(instance),
    ]
    if instance.n <= 150:
        starts.append(matching_order(instance, deadline)[0])
    scored = [(makespan_of(instance, list_schedule(instance, o)), o) for o in starts]
    best_value, order = min(scored, key=lambda t: t[0])
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
        value = makespan_of(instance, list_schedule(instance, candidate))
        if value <= best_value:
            best_value, order = value, candidate
    return order, moves
