"""Exhaustive search over all valid sequences (small chains): Dijkstra over held-value states.

Why it is complete
------------------
Every valid sequence can be normalized without raising its time: an
operation whose output is never read (a "waste" operation) can be deleted;
the values it read are then released earlier, no other value's liveness or
server changes (a deleted ``Fall`` had no explicit read, so it delimited no
interval), and time does not grow. A waste-free sequence is a walk in the
graph whose states are ``(k, A)``: ``B k`` is the next backward (k = L..0,
-1 at the end) and A is the set of x_i / xbar_i (i >= 1) held between two
operations; operations are edges (memory during the edge: x_0, the delta
still awaited, A, the output and the transient), and dropping a held x_i is
a free edge (xbar_i is released only by ``B i-1``, its last explicit read:
waste-free sequences read every xbar they produce). The validator's
liveness releases values at their last read, never later than the walk, so
the walk's memory bounds the validator's, and conversely the waste-free
sequence's own releases give a walk of equal memory.

A shortest walk visits no state twice (with non-negative times a repeated
state closes a cycle that can be cut), so an optimal sequence has at most
``(L + 2) · 4^L`` operations: that is the length bound, and Dijkstra over
this finite graph is an exhaustive search of every sequence up to it.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from ..model import Instance, Solution


@dataclass(frozen=True)
class BruteForceParams:
    """Options of `brute_force`.

    Attributes
    ----------
    max_stages
        Largest L searched (the state space grows as (L + 2)·4^L); larger
        chains are NOT_APPLICABLE.
    """

    max_stages: int = 6

    def __post_init__(self) -> None:
        at_least("max_stages", self.max_stages, 1)


def _bit_x(i: int) -> int:
    return 1 << (2 * i)


def _bit_xbar(i: int) -> int:
    return 1 << (2 * i + 1)


State = tuple[int, int]  # (next backward k, mask of held x_i / xbar_i bits)
Move = tuple[int, State, "tuple[str, int] | None"]  # (time, next state, operation; None: a free drop)


def _held_bytes(instance: Instance, k: int, mask: int) -> int:
    """Bytes of x_0, delta_{k+1} (x_{k+1}) and the held values of ``mask`` before ``B k``."""
    L, x, xb = instance.length, instance.x, instance.xbar
    held = x[0] + (x[k + 1] if k < L else 0)
    return held + sum(x[i] * bool(mask & _bit_x(i)) + xb[i] * bool(mask & _bit_xbar(i)) for i in range(1, L + 1))


def _moves(instance: Instance, state: State) -> list[Move]:
    """The edges out of ``state``: free drops of a held x_i, forwards that fit M, then ``B k`` if it fits."""
    L, x, xb, M = instance.length, instance.x, instance.xbar, instance.memory
    k, mask = state
    held = _held_bytes(instance, k, mask)
    edges: list[Move] = [(0, (k, mask & ~_bit_x(i)), None) for i in range(1, L + 1) if mask & _bit_x(i)]

    def readable(i: int) -> bool:
        return i == 0 or bool(mask & (_bit_xbar(i) | _bit_x(i)))

    for j in range(min(k, L - 1) + 1):
        if not readable(j):
            continue
        for name, bit, size in (("F", _bit_x(j + 1), x[j + 1]), ("Fall", _bit_xbar(j + 1), xb[j + 1])):
            if mask & bit or (name == "F" and mask & _bit_xbar(j + 1)):
                continue
            if held + size + instance.ftmp[j] <= M:
                edges.append((instance.fw[j], (k, mask | bit), (name, j)))
    # the backward B k
    ok = readable(k) if k == L else (bool(mask & _bit_xbar(k + 1)) and readable(k))
    if ok and held + x[k] + instance.btmp[k] <= M:
        after = mask
        for i in range(k + 1, L + 1):  # nothing of index > k is read again
            after &= ~(_bit_x(i) | _bit_xbar(i))
        edges.append((instance.bw[k], (k - 1, after), ("B", k)))
    return edges


def _path(parent: dict, start: State, state: State) -> tuple[tuple[str, int], ...]:
    """The operations from ``start`` to ``state`` (free drops left out)."""
    sequence = []
    while state != start:
        state, op = parent[state]
        if op is not None:
            sequence.append(op)
    return tuple(reversed(sequence))


def shortest_sequence(instance: Instance, deadline: Deadline | None = None):
    """(time, sequence) of an optimal sequence, or None when none fits (see the module docstring)."""
    start = (instance.length, 0)
    best = {start: 0}
    parent: dict[State, tuple[State, tuple[str, int] | None]] = {}
    counter = itertools.count()
    queue = [(0, next(counter), start)]
    while queue:
        cost, _, state = heapq.heappop(queue)
        if cost > best.get(state, float("inf")):
            continue
        if deadline is not None:
            deadline.check("searching the sequences")
        if state[0] == -1:
            return cost, _path(parent, start, state)
        for weight, target, op in _moves(instance, state):
            total = cost + weight
            if total < best.get(target, float("inf")):
                best[target] = total
                parent[target] = (state, op)
                heapq.heappush(queue, (total, next(counter), target))
    return None


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceParams | None) -> Result:
    """Exhaustive search over all valid sequences (Dijkstra over held-value states; L <= max_stages).

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused: the search is deterministic).
    params : BruteForceParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL with a shortest sequence; INFEASIBLE when none fits M;
        NOT_APPLICABLE above ``max_stages``.
    """
    params = params or BruteForceParams()
    if instance.length > params.max_stages:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"L = {instance.length} > max_stages = {params.max_stages} (state space (L+2)·4^L)",),
        )
    deadline = Deadline.after(time_limit)
    found = shortest_sequence(instance, deadline)
    if found is None:
        return Result(
            status=Status.INFEASIBLE, bound=None, notes=("no valid sequence fits the budget (exhaustive search)",)
        )
    cost, sequence = found
    return Result(
        status=Status.OPTIMAL, solution=Solution(sequence), bound=float(cost), notes=("exhaustive over all sequences",)
    )
