"""Constructive rules: static sorts and dynamic memory-aware choices, scored by the simulator.

Every rule builds a *transfer order* and runs the device in the same order
(a permutation schedule). A task that does not fit in free memory when the
link becomes idle waits until enough computations have finished
("blocking"), except in the dynamic rules, which pick a task that fits.

* ``fifo`` — submission order (the order of ``data.tasks``), blocking.
* ``johnson-blocking`` — Johnson's order, blocking.
* static sorts: ``sort-transfer-asc`` (c ascending), ``sort-compute-desc``
  (p descending), ``sort-ratio-asc`` (c/p ascending), ``sort-gain-desc``
  (p − c descending). Ties by task index.
* dynamic rules (Kumar et al.'s "largest/smallest communication / maximum
  acceleration under memory restriction" family): whenever the link is idle,
  choose among the tasks not yet transferred that fit in the free memory —
  ``dynamic-johnson`` (first in Johnson order), ``dynamic-largest-transfer``,
  ``dynamic-smallest-transfer``, ``dynamic-max-gain`` (largest p − c); when
  none fits, wait for the next release. A segment tree over the tasks sorted
  by memory answers "best task with m ≤ free" in O(log n), so a rule costs
  O(n log n) (n = 100,000 in a few seconds).

Every result carries ``bounds.best(instance)`` as its bound; a rule whose
makespan meets that bound reports OPTIMAL (the bound proves it).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution, makespan_of, require_fits
from ..simulate import Simulator, johnson_order

NO_DEADLINE = Deadline(None)
#: Choices of a dynamic rule between two readings of the deadline.
CHECK_EVERY = 1024

PERMUTATION_NOTE = "permutation schedule: the device computes in transfer order"

STATIC_METHODS = (
    "fifo",
    "johnson-blocking",
    "sort-transfer-asc",
    "sort-compute-desc",
    "sort-ratio-asc",
    "sort-gain-desc",
)
DYNAMIC_METHODS = ("dynamic-johnson", "dynamic-largest-transfer", "dynamic-smallest-transfer", "dynamic-max-gain")


def order_result(instance: Instance, order: Sequence[int], notes: Sequence[str] = ()) -> Result:
    """The Result of the permutation schedule of a transfer order, with the best lower bound attached."""
    solution = Simulator(instance).schedule(order)
    assert solution is not None  # permutation orders never deadlock once every task fits
    bound = bounds.best(instance)
    objective = makespan_of(instance, solution)
    status = Status.OPTIMAL if objective <= bound else Status.FEASIBLE
    extra = ("makespan equals the lower bound: optimal",) if status is Status.OPTIMAL else ()
    return Result(
        status=status, objective=objective, bound=bound, solution=solution, notes=(PERMUTATION_NOTE, *notes, *extra)
    )


# -- static orders ----------------------------------------------------------------
def _keys(instance: Instance) -> dict[str, np.ndarray]:
    """The sort key of every static rule (ascending; ties by task index: the sorts are stable).

    Times are integers below 2^53, exact in int64 and in float64, so c / p is
    the same correctly rounded quotient as Python's.
    """
    transfer = np.array(instance.transfer, dtype=np.int64)
    compute = np.array(instance.compute, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(compute > 0, transfer / np.maximum(compute, 1), np.inf)
    return {
        "sort-transfer-asc": transfer,
        "sort-compute-desc": -compute,
        "sort-ratio-asc": ratio,
        "sort-gain-desc": transfer - compute,
    }


def static_order(instance: Instance, rule: str) -> list[int]:
    """The transfer order of a static rule (``fifo``, ``johnson``, or a sort of `STATIC_METHODS`)."""
    if rule == "fifo":
        return list(range(instance.n))
    if rule == "johnson":
        return johnson_order(instance)
    return np.argsort(_keys(instance)[rule], kind="stable").tolist()


def _static(instance: Instance, rule: str, time_limit: float) -> Result:
    require_fits(instance)
    deadline = Deadline.after(time_limit)
    order = static_order(instance, rule)
    deadline.check("sorting the tasks")
    return order_result(instance, order)


# The registered rules share one docstring body: they have no options and ignore the time
# limit and the seed (each is one O(n log n) pass).
_RULE_DOC = """

    Parameters
    ----------
    instance
        The instance.
    time_limit, seed, params
        Unused: the rule is deterministic, runs in O(n log n) and has no options.

    Returns
    -------
    Result
        The permutation schedule with `bounds.best` as bound (OPTIMAL when it meets it).
    """


def fifo(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "fifo", time_limit)


def johnson_blocking(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "johnson", time_limit)


def sort_transfer_asc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-transfer-asc", time_limit)


def sort_compute_desc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-compute-desc", time_limit)


def sort_ratio_asc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-ratio-asc", time_limit)


def sort_gain_desc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-gain-desc", time_limit)


# -- dynamic memory-aware rules ---------------------------------------------------
class _PrefixBest:
    """Segment tree over slots 0..n-1 of integer keys: the smallest key among slots < r, with removal."""

    def __init__(self, keys: np.ndarray, empty: int):
        size = 1 << max(0, len(keys) - 1).bit_length()
        tree = np.full(2 * size, empty, dtype=np.int64)
        tree[size : size + len(keys)] = keys
        start = size
        while start > 1:  # level by level: nodes [start/2, start) over their children [start, 2 start)
            tree[start // 2 : start] = np.minimum(tree[start : 2 * start : 2], tree[start + 1 : 2 * start : 2])
            start //= 2
        self.size, self.empty, self.tree = size, empty, tree.tolist()

    def best_before(self, r: int) -> int:
        """Smallest key among slots [0, r) (`empty` when none)."""
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
            best = left if left <= right else right
            if tree[node] == best:  # nothing above changes either
                return
            tree[node] = best
            node //= 2


class _Fitting:
    """The best task still to send among those that fit in ``free`` bytes.

    A `_PrefixBest` over the tasks sorted by memory, keyed by their rank in
    priority order. Made at the first choice where the best task overall
    does not fit; tasks sent since stay in the tree until a query meets
    them, and are removed then (each once).
    """

    def __init__(self, instance: Instance, by_priority: list[int], sent: bytearray) -> None:
        n = instance.n
        memory = np.array(instance.memory, dtype=np.int64)
        by_memory = np.argsort(memory, kind="stable")
        rank = np.empty(n, dtype=np.int64)
        rank[by_priority] = np.arange(n)
        rank[np.frombuffer(sent, dtype=np.uint8) > 0] = n  # sent already: no key
        slot_of = np.empty(n, dtype=np.int64)
        slot_of[by_memory] = np.arange(n)
        self.memory_sorted = memory[by_memory].tolist()
        self.tree = _PrefixBest(rank[by_memory], n)
        self.slot_of, self.by_priority, self.sent = slot_of.tolist(), by_priority, sent

    def best(self, free: int) -> int | None:
        """The best unsent task with m <= ``free`` (None when none fits)."""
        tree = self.tree
        while True:
            key = tree.best_before(bisect.bisect_right(self.memory_sorted, free))
            if key == tree.empty:
                return None
            task = self.by_priority[key]
            if not self.sent[task]:
                return task
            tree.remove(self.slot_of[task])


def dynamic_order(instance: Instance, priority: np.ndarray, deadline: Deadline = NO_DEADLINE) -> list[int] | None:
    """Transfer order of a dynamic rule: at each idle link instant, the task of
    smallest ``priority`` (ties: smallest index) among those that fit in free memory.

    The rule's schedule is the simulator's earliest-start schedule of the
    returned order (a chosen task fits when chosen, so it starts at once).
    The best unsent task overall is taken whenever it fits (O(1)); only
    when it does not is the segment tree of `_Fitting` asked (O(log n)).
    None when ``deadline`` passes first (checked every `CHECK_EVERY` choices).
    """
    memory, transfer, compute = instance.memory, instance.transfer, instance.compute
    by_priority = np.lexsort((np.arange(instance.n), priority)).tolist()
    sent = bytearray(instance.n)
    fitting: _Fitting | None = None
    head = 0  # by_priority[:head] are all sent
    free = instance.capacity
    releases: list[tuple[int, int]] = []
    link_free = device_free = 0
    order: list[int] = []
    for count in range(instance.n):
        if count % CHECK_EVERY == 0 and count and deadline.expired():
            return None
        while releases and releases[0][0] <= link_free:
            free += heapq.heappop(releases)[1]
        while sent[by_priority[head]]:
            head += 1
        task = by_priority[head]
        if memory[task] > free:
            fitting = fitting or _Fitting(instance, by_priority, sent)
            fits = fitting.best(free)
            while fits is None:
                released_at, size = heapq.heappop(releases)  # non-empty: every task fits in M
                link_free = max(link_free, released_at)
                free += size
                while releases and releases[0][0] <= link_free:
                    free += heapq.heappop(releases)[1]
                fits = fitting.best(free)
            task = fits
        sent[task] = 1
        order.append(task)
        free -= memory[task]
        link_free += transfer[task]
        device_free = max(device_free, link_free) + compute[task]
        heapq.heappush(releases, (device_free, memory[task]))
    return order


def dynamic_priorities(instance: Instance) -> dict[str, np.ndarray]:
    """The priority of every dynamic rule, by method name (smaller is chosen first; int64 per task)."""
    transfer = np.array(instance.transfer, dtype=np.int64)
    compute = np.array(instance.compute, dtype=np.int64)
    rank = np.empty(instance.n, dtype=np.int64)
    rank[johnson_order(instance)] = np.arange(instance.n)
    return {
        "dynamic-johnson": rank,
        "dynamic-largest-transfer": -transfer,
        "dynamic-smallest-transfer": transfer,
        "dynamic-max-gain": transfer - compute,
    }


def _dynamic(instance: Instance, rule: str, time_limit: float) -> Result:
    require_fits(instance)
    deadline = Deadline.after(time_limit)
    order = dynamic_order(instance, dynamic_priorities(instance)[rule], deadline)
    if order is None:
        raise TimeLimitReached(f"time limit reached while choosing the tasks of {rule}")
    return order_result(instance, order)


def dynamic_johnson(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-johnson", time_limit)


def dynamic_largest_transfer(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-largest-transfer", time_limit)


def dynamic_smallest_transfer(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-smallest-transfer", time_limit)


def dynamic_max_gain(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-max-gain", time_limit)


_SUMMARIES = {
    fifo: "Submission order, blocking until the next task fits (baseline).",
    johnson_blocking: "Johnson's order, blocking until the next task fits.",
    sort_transfer_asc: "Static order by transfer time ascending, blocking.",
    sort_compute_desc: "Static order by compute time descending, blocking.",
    sort_ratio_asc: "Static order by transfer/compute ascending, blocking.",
    sort_gain_desc: "Static order by compute - transfer descending, blocking.",
    dynamic_johnson: "When the link is idle, send the first task in Johnson order that fits in free memory.",
    dynamic_largest_transfer: "When the link is idle, send the fitting task with the largest transfer.",
    dynamic_smallest_transfer: "When the link is idle, send the fitting task with the smallest transfer.",
    dynamic_max_gain: "When the link is idle, send the fitting task with the largest compute - transfer.",
}
for _rule, _summary in _SUMMARIES.items():
    _rule.__doc__ = _summary + _RULE_DOC


# -- the best rule: start of the searches and of the exact methods' warm start ------
class Constructed(NamedTuple):
    """The best constructive rule on an instance: its name, transfer order, schedule and makespan.

    ``skipped`` names the rules not scored because the deadline passed first.
    """

    name: str
    order: list[int]
    solution: Solution
    makespan: int
    skipped: tuple[str, ...] = ()


def constructive_orders(instance: Instance) -> dict[str, list[int]]:
    """The transfer order of every static and dynamic rule, by method name."""
    orders = {
        name: static_order(instance, "johnson" if name == "johnson-blocking" else name) for name in STATIC_METHODS
    }
    for name, priority in dynamic_priorities(instance).items():
        order = dynamic_order(instance, priority)
        assert order is not None  # no deadline
        orders[name] = order
    return orders


def best_constructive(instance: Instance, deadline: Deadline = NO_DEADLINE) -> Constructed:
    """The best static or dynamic rule (the first in `STATIC_METHODS` + `DYNAMIC_METHODS` order on ties).

    Rules are scored by the simulator's makespan, cheapest first (the static
    sorts, then the dynamic rules); the first is always scored, the others
    only while ``deadline`` has not passed (at n = 100,000 all ten take
    several seconds). Only the winner's schedule is built.
    """
    simulator = Simulator(instance)
    names = (*STATIC_METHODS, *DYNAMIC_METHODS)
    priorities = dynamic_priorities(instance)
    best: tuple[str, list[int], float] | None = None
    skipped: tuple[str, ...] = ()
    for index, name in enumerate(names):
        if best is not None and deadline.expired():
            skipped = names[index:]
            break
        if name in priorities:
            order = dynamic_order(instance, priorities[name], deadline if best is not None else NO_DEADLINE)
            if order is None:
                skipped = names[index:]
                break
        else:
            order = static_order(instance, "johnson" if name == "johnson-blocking" else name)
        value = simulator.makespan(order)
        if best is None or value < best[2]:
            best = (name, order, value)
    assert best is not None
    solution = simulator.schedule(best[1])
    assert solution is not None  # permutation orders never deadlock once every task fits
    return Constructed(best[0], best[1], solution, int(best[2]), skipped)


def skipped_note(start: Constructed) -> tuple[str, ...]:
    """A note naming the rules `best_constructive` left out at the deadline (none when it scored all)."""
    if not start.skipped:
        return ()
    total = len(STATIC_METHODS) + len(DYNAMIC_METHODS)
    scored = total - len(start.skipped)
    return (f"time limit: best of the first {scored} of {total} rules (not scored: {', '.join(start.skipped)})",)
