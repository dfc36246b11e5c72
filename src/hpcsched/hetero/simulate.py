"""HeteroPrio: StarPU's two-type list scheduler, as an event simulation.

Rule implemented (the survey's, Beaumont et al. 2020, section on
HeteroPrio; Agullo et al. 2016 for StarPU):

* acceleration factor ρ_j = p̄_j / p_j (CPU time over GPU time; +inf for a
  GPU-only task, 0 for a CPU-only one);
* whenever resources are idle, every idle GPU takes the ready task of
  largest ρ, every idle CPU the ready task of smallest ρ (ties: larger
  upward rank, then smaller index); GPUs choose first at equal times;
* a task starts at max(now, its data-ready time on that type) (data-ready
  adds c_uv from predecessors on the other type);
* spoliation (when ``spoliation`` is not ``"none"``): a resource that is
  idle while no ready task can run on it looks at the tasks running on the
  other type; a task j is a candidate if restarting it now on the idle
  resource would finish it strictly earlier than its running copy; the
  running copy is aborted (the work done is lost and counted as
  ``aborted_work``) and j restarts on the idle resource. Among the
  candidates:

  - ``"earliest-finish"`` (default): the one the idle resource would
    finish earliest (the spec's wording);
  - ``"latest-end"``: the one whose running copy would end last (the rule of
    the HeteroPrio approximation papers, Beaumont et al. 2017, Eyraud-Dubois
    and Kumar 2020: "spoliate the task with the latest expected completion").

Without spoliation (``"none"``) this is the behaviour of StarPU's
``heteroprio`` scheduler. A task is spoliated at most once per direction
change: a restarted copy finishes earlier by construction, so the process
ends (every spoliation strictly decreases the running task's end).

Uniform acceleration (ρ_j the same for every task) makes the ordering
degenerate: every task looks equally suited to both types and ties by rank
decide; the result notes this.
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from dataclasses import dataclass

from ..taskgraph import Placement, predecessors, successors, upward_ranks
from .model import Instance, require_runnable

SPOLIATION_RULES = ("none", "earliest-finish", "latest-end")


@dataclass(frozen=True)
class HeteroPrioRun:
    """The schedule of a HeteroPrio run and what the final schedule does not show."""

    placements: tuple[Placement, ...]
    spoliations: int
    aborted_work: int


def acceleration(instance: Instance, j: int) -> float:
    """ρ_j = p̄_j / p_j (+inf GPU-only or p_j = 0 < p̄_j, 0 CPU-only; 1 when both are 0)."""
    cpu, gpu = instance.time(j, "cpu"), instance.time(j, "gpu")
    if cpu is None:
        return math.inf
    if gpu is None:
        return 0.0
    if gpu == 0:
        return math.inf if cpu > 0 else 1.0
    return cpu / gpu


def average_cost(instance: Instance, j: int) -> float:
    """HEFT's averaged cost: the mean time over the machines that can run j."""
    total, count = 0.0, 0
    for kind, machines in (("cpu", instance.cpus), ("gpu", instance.gpus)):
        time = instance.time(j, kind)
        if time is not None:
            total += machines * time
            count += machines
    return total / count


def heteroprio(instance: Instance, *, spoliation: str = "earliest-finish") -> HeteroPrioRun:
    """Run HeteroPrio (see the module docstring); O((n + e) log n + spoliation scans)."""
    if spoliation not in SPOLIATION_RULES:
        raise ValueError(f"spoliation must be one of {SPOLIATION_RULES}")
    require_runnable(instance)
    n = instance.n
    incoming = predecessors(n, instance.edges)
    outgoing = successors(n, instance.edges)
    rank = upward_ranks(n, instance.edges, [average_cost(instance, j) for j in range(n)])
    rho = [acceleration(instance, j) for j in range(n)]
    waiting = [len(incoming[j]) for j in range(n)]
    # Ready queues per type (lazy deletion: a task taken by one type stays in the other's heap).
    queues = {"gpu": [], "cpu": []}
    taken = [False] * n

    def release(j: int) -> None:
        if instance.time(j, "gpu") is not None:
            heapq.heappush(queues["gpu"], (-rho[j], -rank[j], j))
        if instance.time(j, "cpu") is not None:
            heapq.heappush(queues["cpu"], (rho[j], -rank[j], j))

    for j in range(n):
        if waiting[j] == 0:
            release(j)
    placement: list[Placement | None] = [None] * n
    running: dict[str, dict[int, int]] = {"cpu": {}, "gpu": {}}  # type -> machine -> task running there
    idle = {"gpu": list(range(instance.gpus)), "cpu": list(range(instance.cpus))}
    for machines in idle.values():
        heapq.heapify(machines)
    events: list[tuple[int, int, str, int, int]] = []  # (end, version, type, machine, task)
    version = [0] * n  # a spoliated copy's completion event is stale
    spoliations = aborted = 0
    now = 0
    done = 0

    def data_ready(j: int, kind: str) -> int:
        ready = 0
        for edge in incoming[j]:
            before = placement[edge.u]
            ready = max(ready, before.end + (edge.delay if before.machine_class != kind else 0))
        return ready

    def has_ready(kind: str) -> bool:
        queue = queues[kind]
        while queue and taken[queue[0][2]]:  # drop the heads the other type took
            heapq.heappop(queue)
        return bool(queue)

    def start(j: int, kind: str, machine: int) -> None:
        begin = max(now, data_ready(j, kind))
        placement[j] = Placement(kind, machine, begin, instance.time(j, kind))
        running[kind][machine] = j
        version[j] += 1
        heapq.heappush(events, (placement[j].end, version[j], kind, machine, j))

    while done < n:
        progress = True
        while progress:
            progress = False
            for kind in ("gpu", "cpu"):
                queue = queues[kind]
                while idle[kind] and queue:
                    _, _, j = heapq.heappop(queue)
                    if taken[j]:
                        continue
                    taken[j] = True
                    start(j, kind, heapq.heappop(idle[kind]))
                    progress = True
            if spoliation == "none":
                break
            for kind, other in (("gpu", "cpu"), ("cpu", "gpu")):
                while idle[kind] and not has_ready(kind):
                    best = None
                    for machine, j in running[other].items():
                        time = instance.time(j, kind)
                        if time is None:
                            continue
                        finish = max(now, data_ready(j, kind)) + time
                        current = placement[j].end
                        if finish < current:
                            key = (finish, j) if spoliation == "earliest-finish" else (-current, j)
                            if best is None or key < best[0]:
                                best = (key, machine, j)
                    if best is None:
                        break
                    _, machine, j = best
                    aborted += now - placement[j].start if now > placement[j].start else 0
                    spoliations += 1
                    del running[other][machine]
                    heapq.heappush(idle[other], machine)
                    start(j, kind, heapq.heappop(idle[kind]))
                    progress = True
        # Next completion.
        while True:
            end, stamp, kind, machine, j = heapq.heappop(events)
            if stamp == version[j] and running[kind].get(machine) == j:
                break
        now = end
        finished = [(kind, machine, j)]
        while events and events[0][0] == now:
            _, stamp, kind2, machine2, j2 = heapq.heappop(events)
            if stamp == version[j2] and running[kind2].get(machine2) == j2:
                finished.append((kind2, machine2, j2))
        for kind, machine, j in finished:
            del running[kind][machine]
            heapq.heappush(idle[kind], machine)
            done += 1
            for edge in outgoing[j]:
                waiting[edge.v] -= 1
                if waiting[edge.v] == 0:
                    release(edge.v)
    return HeteroPrioRun(tuple(placement), spoliations, aborted)


def is_uniform_acceleration(instance: Instance) -> bool:
    """True when p̄_j = α p_j with one α for every task (Q|prec|Cmax with two speeds)."""
    ratios = set()
    for task in instance.tasks:
        if task.cpu is None or task.gpu is None:
            return False
        if task.gpu == 0 or task.cpu == 0:
            if task.gpu != task.cpu:
                return False
            continue
        ratios.add(Fraction(task.cpu, task.gpu))
    return len(ratios) <= 1
