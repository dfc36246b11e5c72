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
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ...core.deadline import Deadline
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
def _ratio(instance: Instance, i: int) -> float:
    task = instance.tasks[i]
    return task.transfer / task.compute if task.compute else math.inf


STATIC_KEYS: dict[str, Callable[[Instance, int], Any]] = {
    "fifo": lambda inst, i: i,
    "sort-transfer-asc": lambda inst, i: (inst.tasks[i].transfer, i),
    "sort-compute-desc": lambda inst, i: (-inst.tasks[i].compute, i),
    "sort-ratio-asc": lambda inst, i: (_ratio(inst, i), i),
    "sort-gain-desc": lambda inst, i: (inst.tasks[i].transfer - inst.tasks[i].compute, i),
}


def static_order(instance: Instance, rule: str) -> list[int]:
    """The transfer order of a static rule (a key of `STATIC_KEYS` or ``"johnson"``)."""
    if rule == "johnson":
        return johnson_order(instance)
    key = STATIC_KEYS[rule]
    return sorted(range(instance.n), key=lambda i: key(instance, i))


def _static(instance: Instance, rule: str) -> Result:
    require_fits(instance)
    return order_result(instance, static_order(instance, rule))


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
    return _static(instance, "fifo")


def johnson_blocking(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "johnson")


def sort_transfer_asc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-transfer-asc")


def sort_compute_desc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-compute-desc")


def sort_ratio_asc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-ratio-asc")


def sort_gain_desc(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _static(instance, "sort-gain-desc")


# -- dynamic memory-aware rules ---------------------------------------------------
class _PrefixBest:
    """Segment tree over slots 0..n-1: the smallest key among slots < r, with removal."""

    def __init__(self, keys: Sequence[tuple]):
        size = 1
        while size < len(keys):
            size *= 2
        self.size = size
        self.empty: tuple = (math.inf,)
        tree = [self.empty] * (2 * size)
        tree[size : size + len(keys)] = keys
        for node in range(size - 1, 0, -1):
            left, right = tree[2 * node], tree[2 * node + 1]
            tree[node] = left if left <= right else right
        self.tree = tree

    def best_before(self, r: int) -> tuple:
        """Smallest key among slots [0, r)."""
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
            tree[node] = left if left <= right else right
            node //= 2


def dynamic_order(
    instance: Instance, priority: Callable[[int], tuple], deadline: Deadline = NO_DEADLINE
) -> list[int] | None:
    """Transfer order of a dynamic rule: at each idle link instant, the task of
    smallest ``priority`` among those that fit in free memory.

    The rule's schedule is the simulator's earliest-start schedule of the
    returned order (a chosen task fits when chosen, so it starts at once).
    None when ``deadline`` passes first (checked every `CHECK_EVERY` choices:
    at n = 100,000 one rule takes about a second).
    """
    tasks = instance.tasks
    by_memory = sorted(range(instance.n), key=lambda i: tasks[i].memory)
    memory_sorted = [tasks[i].memory for i in by_memory]
    # Keys end with the task index, which makes them unique and lets the tree return it.
    tree = _PrefixBest([(*priority(i), i) for i in by_memory])
    slot_of = {task: slot for slot, task in enumerate(by_memory)}
    free = instance.capacity
    releases: list[tuple[int, int]] = []
    link_free = device_free = 0
    order: list[int] = []
    for count in range(instance.n):
        if count % CHECK_EVERY == 0 and count and deadline.expired():
            return None
        while releases and releases[0][0] <= link_free:
            free += heapq.heappop(releases)[1]
        chosen = tree.best_before(bisect.bisect_right(memory_sorted, free))
        while chosen is tree.empty:
            released_at, size = heapq.heappop(releases)  # non-empty: every task fits in M
            link_free = max(link_free, released_at)
            free += size
            while releases and releases[0][0] <= link_free:
                free += heapq.heappop(releases)[1]
            chosen = tree.best_before(bisect.bisect_right(memory_sorted, free))
        task = chosen[-1]
        tree.remove(slot_of[task])
        order.append(task)
        free -= tasks[task].memory
        link_free += tasks[task].transfer
        device_free = max(device_free, link_free) + tasks[task].compute
        heapq.heappush(releases, (device_free, tasks[task].memory))
    return order


def dynamic_priorities(instance: Instance) -> dict[str, Callable[[int], tuple]]:
    """The priority of every dynamic rule, by method name (smaller is chosen first)."""
    tasks = instance.tasks
    rank = {task: position for position, task in enumerate(johnson_order(instance))}
    return {
        "dynamic-johnson": lambda i: (rank[i],),
        "dynamic-largest-transfer": lambda i: (-tasks[i].transfer,),
        "dynamic-smallest-transfer": lambda i: (tasks[i].transfer,),
        "dynamic-max-gain": lambda i: (tasks[i].transfer - tasks[i].compute,),
    }


def _dynamic(instance: Instance, rule: str) -> Result:
    require_fits(instance)
    order = dynamic_order(instance, dynamic_priorities(instance)[rule])
    assert order is not None  # no deadline
    return order_result(instance, order)


def dynamic_johnson(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-johnson")


def dynamic_largest_transfer(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-largest-transfer")


def dynamic_smallest_transfer(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-smallest-transfer")


def dynamic_max_gain(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    return _dynamic(instance, "dynamic-max-gain")


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
