"""Brute force (n <= 6): every event sequence of a non-preemptive schedule, each timed by the slab LP.

In an optimal non-preemptive schedule we may assume no idle time and that,
while one kernel runs alone with kernels still waiting, the next kernel
starts before the running one ends (a zero-length overlap is allowed in the
slab LP, so this loses nothing). Event sequences are then: two starts, and
after that alternately "one of the two running kernels ends" and "a waiting
kernel starts": n! 2^(n-1) sequences; the minimum is the non-preemptive
optimum.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ..model import Instance, evaluate
from ..simulate import solution_from_slabs, time_slab_sequence

#: Largest n the brute force enumerates.
BRUTE_FORCE_LIMIT = 6


def nonpreemptive_sequences(n: int) -> Iterator[list[tuple[int, ...]]]:
    """Event sequences of the brute force, as slab sequences (see module doc)."""
    for order in itertools.permutations(range(n)):
        if n == 1:
            yield [(order[0],)]
            continue
        for ends in itertools.product((0, 1), repeat=n - 1):
            yield _sequence(order, ends)


def _sequence(order: tuple[int, ...], ends: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Slabs of ``order`` where ``ends[step]`` says which of the two running kernels ends at step."""
    n = len(order)
    sets: list[tuple[int, ...]] = [(order[0],)]
    running = [order[0], order[1]]
    sets.append(tuple(sorted(running)))
    for step in range(n - 1):
        survivor = running[1 - ends[step]]
        running = [survivor]
        sets.append((survivor,))
        if step + 2 < n:
            running.append(order[step + 2])
            sets.append(tuple(sorted(running)))
    return sets


def respects_streams(instance: Instance, sets: Sequence[Sequence[int]]) -> bool:
    """True when, in the slab sequence, no kernel appears before its stream predecessor's last slab.

    The shared slab (both kernels) is allowed: stream-mates are not compatible,
    so the slab LP fixes its length to 0 (the successor starts as the
    predecessor ends).
    """
    if not instance.streams:
        return True
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for position, kernels in enumerate(sets):
        for k in kernels:
            first.setdefault(k, position)
            last[k] = position
    return all(first[b] >= last[a] for a, b in instance.precedences())


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Exact non-preemptive optimum by enumerating event sequences (n <= 6), each timed by an LP.

    Parameters
    ----------
    instance
        The instance; NOT_APPLICABLE above `BRUTE_FORCE_LIMIT` kernels.
        Streams: sequences where a kernel appears before its stream
        predecessor's last slab are skipped (`respects_streams`).
    time_limit
        Seconds; past it the best sequence timed so far is returned (FEASIBLE).
    seed, params
        Unused (deterministic, no options).

    Returns
    -------
    Result
        OPTIMAL when every sequence was timed.
    """
    if instance.n > BRUTE_FORCE_LIMIT:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"n = {instance.n} > {BRUTE_FORCE_LIMIT}",))
    deadline = Deadline.after(time_limit)
    best, best_sets, best_lengths = math.inf, None, None
    finished = True
    for sets in nonpreemptive_sequences(instance.n):
        if deadline.expired():
            finished = False
            break
        if not respects_streams(instance, sets):
            continue
        lengths = time_slab_sequence(instance, sets)
        if lengths is not None and (best_sets is None or sum(lengths) < best - 1e-12 * best):
            best, best_sets, best_lengths = sum(lengths), sets, lengths
    if best_sets is None or best_lengths is None:
        if finished:  # cannot happen: a serial sequence is always timed (incompatible slabs get length 0)
            return Result(status=Status.ERROR, notes=("no event sequence could be timed",))
        return Result(
            status=Status.TIME_LIMIT_NO_SOLUTION, notes=("time limit reached before all sequences were timed",)
        )
    solution = solution_from_slabs(best_sets, best_lengths)
    if finished:
        return Result(
            status=Status.OPTIMAL, objective=best, bound=evaluate(instance, solution)["makespan"], solution=solution
        )
    return Result(
        status=Status.FEASIBLE,
        objective=best,
        solution=solution,
        notes=("time limit reached before all sequences were timed",),
    )
