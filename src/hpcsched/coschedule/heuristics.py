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
  keeping non-worsening moves, until the time limit (default 2 s) or 3,000
  moves.

Heuristics attach the preemptive LP value as bound only when it is cheap
(n <= 300); it is a valid lower bound for every schedule.
"""

from __future__ import annotations

import time as clock
from typing import Any, Sequence

import numpy as np

from ..core.result import Result, Status
from .model import Instance, Solution, evaluate
from .simulate import fifo_policy, list_policy, simulate

PROBLEM = "coschedule"


def makespan_of(instance: Instance, solution: Solution) -> float:
    return max(s.end for s in solution.segments)


def _result(instance: Instance, method: str, solution: Solution, notes: tuple[str, ...] = ()) -> Result:
    from .bounds import best

    bound = best(instance) if instance.n <= 300 else None
    return Result(PROBLEM, method, Status.FEASIBLE, objective=makespan_of(instance, solution), bound=bound, solution=solution, notes=notes)


def list_schedule(instance: Instance, order: Sequence[int]) -> Solution:
    """List scheduling of ``order``: the first pending kernel that pairs beneficially starts."""
    return simulate(instance, order, list_policy(beneficial_only=True))


def serial(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Serial baseline: one kernel at a time, makespan Σp."""
    solution = simulate(instance, range(instance.n), lambda inst, running, t, pending: None if running else pending[0])
    return _result(instance, "serial", solution)


def fifo(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Hardware FIFO with the leftover policy, in submission (instance) order; per stream with streams."""
    if instance.streams:
        return _result(
            instance,
            "fifo",
            simulate(instance, stream_submission_order(instance), list_policy()),
            ("streams replayed: stream heads issued round-robin, leftover policy (any compatible head co-runs)",),
        )
    return _result(instance, "fifo", simulate(instance, range(instance.n), fifo_policy()))


def stream_submission_order(instance: Instance) -> list[int]:
    """Kernels in no stream first (index order), then round r = the r-th kernel of each stream."""
    place = {k: (1, position, s) for s, stream in enumerate(instance.streams) for position, k in enumerate(stream)}
    return sorted(range(instance.n), key=lambda k: place.get(k, (0, k, 0)))


def lpt(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """LPT list scheduling (longest solo duration first)."""
    order = sorted(range(instance.n), key=lambda k: (-instance.kernels[k].duration, k))
    return _result(instance, "lpt", list_schedule(instance, order))


def spt(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """SPT list scheduling (shortest solo duration first)."""
    order = sorted(range(instance.n), key=lambda k: (instance.kernels[k].duration, k))
    return _result(instance, "spt", list_schedule(instance, order))


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
    return simulate(instance, range(instance.n), _greedy_policy)


def greedy_partner(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Greedy best partner: when a slot frees, start the partner saving the most time."""
    return _result(instance, "greedy-partner", greedy_partner_schedule(instance))


def matching_order(instance: Instance) -> list[int]:
    from .special_cases import pair_block, paired_matching

    blocks = []
    for pair in paired_matching(instance):
        if len(pair) == 2:
            i, j = pair
            first = i if instance.kernels[i].duration >= instance.kernels[j].duration else j
            blocks.append((pair_block(instance, i, j), [first, j if first == i else i]))
        else:
            blocks.append((float(instance.kernels[pair[0]].duration), [pair[0]]))
    blocks.sort(key=lambda b: -b[0])
    return [k for _, kernels in blocks for k in kernels]


def matching_list(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Matching pairing: max-weight matching pairs submitted together, then list scheduling."""
    return _result(instance, "matching-list", list_schedule(instance, matching_order(instance)))


def best_list_schedule(instance: Instance) -> Solution:
    """Best of LPT, SPT, greedy partner and (n <= 150) matching and lp-merge orders; the MILP's big-M."""
    candidates = [
        list_schedule(instance, sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration)),
        list_schedule(instance, sorted(range(instance.n), key=lambda k: instance.kernels[k].duration)),
        greedy_partner_schedule(instance),
    ]
    if instance.n <= 150:
        candidates.append(list_schedule(instance, matching_order(instance)))
        candidates.append(list_schedule(instance, lp_merge_order(instance)))
    return min(candidates, key=lambda s: makespan_of(instance, s))


def lp_merge(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """LP-guided: caterpillar order of the preemptive LP, preempted pieces merged greedily."""
    order, merged = _lp_merge(instance, time_limit)
    return _result(instance, "lp-merge", list_schedule(instance, order), (f"{merged} preempted kernels of the LP order merged",))


def lp_merge_order(instance: Instance) -> list[int]:
    return _lp_merge(instance, None)[0]


def _lp_merge(instance: Instance, time_limit: float | None) -> tuple[list[int], int]:
    from .formulations import order_phases, solve_preemptive_lp

    _, value, solo, pairs, _ = solve_preemptive_lp(instance, time_limit=time_limit)
    phases = order_phases(solo, pairs, instance.n)
    pieces: dict[int, list[int]] = {}
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


def local_search(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, max_moves: int = 3000, **_: Any
) -> Result:
    """Local search over the submission order (swap / insert moves, list simulator)."""
    rng = np.random.default_rng(seed)
    budget = 2.0 if time_limit is None else float(time_limit)
    started = clock.perf_counter()
    starts = [
        sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration),
        [s.kernel for s in greedy_partner_schedule(instance).segments],
        lp_merge_order(instance),
    ]
    if instance.n <= 150:
        starts.append(matching_order(instance))
    scored = [(makespan_of(instance, list_schedule(instance, o)), o) for o in starts]
    best_value, order = min(scored, key=lambda t: t[0])
    order = list(order)
    moves = 0
    while instance.n > 1 and moves < max_moves and clock.perf_counter() - started < budget:
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
    return _result(instance, "local-search", list_schedule(instance, order), (f"{moves} moves, seed {seed}",))
