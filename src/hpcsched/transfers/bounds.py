"""Lower bounds on the makespan.

All four are valid for every schedule, including schedules whose compute
order differs from their transfer order, and all are integers (the data are).

* `johnson_bound` — dropping the memory constraint leaves the two-machine
  flow shop F2||Cmax (link, then device), whose optimum Johnson's rule finds
  (Johnson 1954); permutation schedules are dominant for F2||Cmax, so the
  bound holds for non-permutation schedules too.
* `memory_bound` — task i holds m_i bytes during at least c_i + p_i time
  units and at most M bytes are held at any instant, so
  M · C ≥ Σ m_i (c_i + p_i).
* `clique_bound` — tasks i, j with m_i + m_j > M never hold memory at the
  same time, so the tasks of a clique of this conflict graph run one after
  the other, each for at least c_i + p_i. The conflict graph is a threshold
  graph: a clique holds every "big" task it wants (m > M/2 are pairwise in
  conflict) and at most one task with m ≤ M/2 (two of those fit together),
  and that task k conflicts exactly with the big tasks of m > M − m_k. The
  maximum-weight clique is therefore found in O(n log n) after sorting.
* `overlap_bound` — the link and the device are busy Σ c_i and Σ p_i time
  units inside [0, C], so C ≥ Σ c + Σ p − (time both are busy). The
  computation of i and the transfer of j can only overlap when
  m_i + m_j ≤ M (both hold their memory meanwhile), so the overlap is at
  most the maximum flow of a transportation problem (computations as
  sources with supply p_i, compatible transfers as sinks with demand c_j).
  Besides, when every c > 0 the first transfer overlaps no computation, and
  when every p > 0 the last computation overlaps no transfer, so the overlap
  is also ≤ Σ c − min c and ≤ Σ p − min p. It beats Johnson's bound when
  memory is tight (1x max m), not when the link or the device alone is the
  bottleneck. (Proof in docs/transfers.md.)
"""

from __future__ import annotations

import bisect
import weakref

from .model import Instance
from .simulate import flow_shop_makespan, johnson_order


def johnson_bound(instance: Instance) -> int:
    """LB_johnson: the F2||Cmax optimum, memory ignored."""
    return flow_shop_makespan(instance, johnson_order(instance))


def memory_bound(instance: Instance) -> int:
    """LB_memory = ⌈Σ m_i (c_i + p_i) / M⌉."""
    area = sum(t.memory * (t.transfer + t.compute) for t in instance.tasks)
    return -(-area // instance.capacity)


def clique_tasks(instance: Instance) -> list[int]:
    """Indices of a maximum-weight clique of the conflict graph (weight c + p)."""
    capacity = instance.capacity
    weight = [t.transfer + t.compute for t in instance.tasks]
    # Big tasks (2 m > M), sorted by memory, with suffix sums of weight.
    big = sorted(
        (i for i, t in enumerate(instance.tasks) if 2 * t.memory > capacity), key=lambda i: instance.tasks[i].memory
    )
    big_memory = [instance.tasks[i].memory for i in big]
    suffix = [0] * (len(big) + 1)
    for position in range(len(big) - 1, -1, -1):
        suffix[position] = suffix[position + 1] + weight[big[position]]
    best_value, best_clique = suffix[0], list(big)
    for k, task in enumerate(instance.tasks):
        if 2 * task.memory > capacity:
            continue
        # the big tasks with m_i > M - m_k, i.e. m_i >= M - m_k + 1
        first = bisect.bisect_right(big_memory, capacity - task.memory)
        value = weight[k] + suffix[first]
        if value > best_value:
            best_value, best_clique = value, [k, *big[first:]]
    return best_clique


def clique_bound(instance: Instance) -> int:
    """LB_clique: Σ (c_i + p_i) over a maximum-weight clique of never-coexisting tasks."""
    return sum(instance.tasks[i].transfer + instance.tasks[i].compute for i in clique_tasks(instance))


def overlap_bound(instance: Instance) -> int:
    """LB_overlap = Σ c + Σ p − (largest possible link/device overlap).

    The overlap is at most a transportation problem's value (computation i
    may run beside transfer j only if m_i + m_j ≤ M), solved in O(n log n)
    by the nested-prefix greedy `max_overlap`, and at most Σ c − min c and
    Σ p − min p.

    Notes
    -----
    The proof (and why the greedy is a maximum flow on this threshold graph)
    is in docs/transfers.md, "The overlap bound".
    """
    tasks = instance.tasks
    by_memory = sorted(tasks, key=lambda task: task.memory)
    overlap = max_overlap(
        [(task.transfer, task.memory) for task in by_memory],
        [(task.compute, task.memory) for task in reversed(by_memory)],
        instance.capacity,
    )
    total_transfer = sum(task.transfer for task in tasks)
    total_compute = sum(task.compute for task in tasks)
    overlap = min(
        overlap,
        total_transfer - min(task.transfer for task in tasks),
        total_compute - min(task.compute for task in tasks),
    )
    return total_transfer + total_compute - overlap


def max_overlap(transfers: list[tuple[int, int]], computations: list[tuple[int, int]], capacity: int) -> int:
    """Largest total time computations can run beside transfers when a pair overlaps only if it fits in memory.

    ``transfers`` are (c, m) pairs sorted by m ascending, ``computations``
    (p, m) pairs sorted by m descending. This is the transportation problem of
    `overlap_bound`, solved by its nested-prefix greedy; the dynamic program
    of `formulations.dp` calls it on the operations it has not placed.
    """
    transfer_memory = [memory for _, memory in transfers]
    prefix_transfer = [0]
    for length, _ in transfers:
        prefix_transfer.append(prefix_transfer[-1] + length)
    overlap = 0
    # computations with the largest memory have the smallest prefix of partners
    for length, memory in computations:
        available = prefix_transfer[bisect.bisect_right(transfer_memory, capacity - memory)] - overlap
        if available > 0:  # all earlier flow came from inside this prefix
            overlap += length if length < available else available
    return overlap


def all_bounds(instance: Instance) -> dict[str, int]:
    """Every bound by name (for tables)."""
    return {
        "johnson": johnson_bound(instance),
        "memory": memory_bound(instance),
        "clique": clique_bound(instance),
        "overlap": overlap_bound(instance),
    }


#: id(instance) -> (a weak reference to it, its best bound): a method asks for the bound several
#: times (warm start, proof, result), each O(n log n), a quarter second at n = 100,000.
_BEST: dict[int, tuple[weakref.ref[Instance], int]] = {}


def best(instance: Instance) -> int:
    """The largest of the lower bounds (registered as the problem's ``lower_bound``).

    Computed once per instance object (an Instance is immutable).
    """
    key = id(instance)
    cached = _BEST.get(key)
    if cached is not None and cached[0]() is instance:
        return cached[1]
    value = max(all_bounds(instance).values())

    def forget(_: weakref.ref[Instance]) -> None:
        _BEST.pop(key, None)

    _BEST[key] = (weakref.ref(instance, forget), value)
    return value
