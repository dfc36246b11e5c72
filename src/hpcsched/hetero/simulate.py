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
from dataclasses import dataclass
from fractions import Fraction

from ..core.deadline import Deadline
from ..taskgraph import Placement, predecessors, successors, upward_ranks
from .model import Instance, require_runnable

SPOLIATION_RULES = ("none", "earliest-finish", "latest-end")


@dataclass(frozen=True)
class HeteroPrioRun:
    """The schedule of a HeteroPrio run and what the final schedule does not show."""

    placements: tuple[Placement, ...]
    spoliations: int
    aborted_work: float  # an integer: the model's times are integers


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


def heteroprio(
    instance: Instance, *, spoliation: str = "earliest-finish", deadline: Deadline | None = None
) -> HeteroPrioRun:
    """Run HeteroPrio (see the module docstring); O((n + e) log n + spoliation scans).

    ``deadline`` (None: none) is checked every 1,024 completion steps (`TimeLimitReached`).
    """
    if spoliation not in SPOLIATION_RULES:
        raise ValueError(f"spoliation must be one of {SPOLIATION_RULES}")
    require_runnable(instance)
    deadline = deadline or Deadline(None)
    deadline.check("running HeteroPrio")
    return _HeteroPrio(instance, spoliation).run(deadline)


@dataclass(frozen=True, order=True)
class _Completion:
    """A running copy's completion event (``version`` tells a spoliated copy's stale event)."""

    end: float
    version: int
    kind: str
    machine: int
    task: int


@dataclass(frozen=True)
class _Spoliation:
    """A running task the idle ``machine`` of the other type would finish earlier."""

    key: tuple[float, int]  # the rule's order: the least key is chosen
    machine: int  # where the task runs now
    task: int


class _HeteroPrio:
    """The state of one HeteroPrio event simulation: one method per step of the rule."""

    def __init__(self, instance: Instance, spoliation: str) -> None:
        n = instance.n
        self.instance = instance
        self.spoliation = spoliation
        self.incoming = predecessors(n, instance.edges)
        self.outgoing = successors(n, instance.edges)
        self.rank = upward_ranks(n, instance.edges, [average_cost(instance, j) for j in range(n)])
        self.rho = [acceleration(instance, j) for j in range(n)]
        self.waiting = [len(self.incoming[j]) for j in range(n)]
        # Ready queues per type (lazy deletion: a task taken by one type stays in the other's heap).
        self.queues: dict[str, list[tuple[float, float, int]]] = {"gpu": [], "cpu": []}
        self.taken = [False] * n
        self.placement: list[Placement | None] = [None] * n
        self.running: dict[str, dict[int, int]] = {"cpu": {}, "gpu": {}}  # type -> machine -> task running there
        self.idle = {"gpu": list(range(instance.gpus)), "cpu": list(range(instance.cpus))}
        for machines in self.idle.values():
            heapq.heapify(machines)
        self.events: list[_Completion] = []
        self.version = [0] * n  # a spoliated copy's completion event is stale
        self.spoliations = 0
        self.aborted: float = 0
        self.now: float = 0
        self.done = 0

    def run(self, deadline: Deadline) -> HeteroPrioRun:
        for j in range(self.instance.n):
            if self.waiting[j] == 0:
                self.release(j)
        steps = 0
        while self.done < self.instance.n:
            steps += 1
            if steps % 1024 == 0:
                deadline.check("running HeteroPrio")
            progress = True
            while progress:
                progress = self.assign_ready()
                if self.spoliation == "none":
                    break
                progress = self.spoliate() or progress
            self.finish(self.next_completions())
        return HeteroPrioRun(tuple(self._placed(j) for j in range(self.instance.n)), self.spoliations, self.aborted)

    def _placed(self, j: int) -> Placement:
        placed = self.placement[j]
        assert placed is not None, "a task is placed before it can be read"
        return placed

    def release(self, j: int) -> None:
        """Task ``j`` became ready: queue it for each type that can run it."""
        if self.instance.time(j, "gpu") is not None:
            heapq.heappush(self.queues["gpu"], (-self.rho[j], -self.rank[j], j))
        if self.instance.time(j, "cpu") is not None:
            heapq.heappush(self.queues["cpu"], (self.rho[j], -self.rank[j], j))

    def data_ready(self, j: int, kind: str) -> float:
        """When the inputs of ``j`` are on a machine of type ``kind``."""
        ready: float = 0
        for edge in self.incoming[j]:
            before = self._placed(edge.u)
            ready = max(ready, before.end + (edge.delay if before.machine_class != kind else 0))
        return ready

    def has_ready(self, kind: str) -> bool:
        queue = self.queues[kind]
        while queue and self.taken[queue[0][2]]:  # drop the heads the other type took
            heapq.heappop(queue)
        return bool(queue)

    def start(self, j: int, kind: str, machine: int) -> None:
        begin = max(self.now, self.data_ready(j, kind))
        time = self.instance.time(j, kind)
        assert time is not None, "a task starts only on a type that can run it"
        placed = Placement(kind, machine, begin, time)
        self.placement[j] = placed
        self.running[kind][machine] = j
        self.version[j] += 1
        heapq.heappush(self.events, _Completion(placed.end, self.version[j], kind, machine, j))

    def assign_ready(self) -> bool:
        """Every idle GPU, then every idle CPU, takes its best ready task; whether any did."""
        progress = False
        for kind in ("gpu", "cpu"):
            queue = self.queues[kind]
            while self.idle[kind] and queue:
                _, _, j = heapq.heappop(queue)
                if self.taken[j]:
                    continue
                self.taken[j] = True
                self.start(j, kind, heapq.heappop(self.idle[kind]))
                progress = True
        return progress

    def spoliate(self) -> bool:
        """Idle machines without a ready task restart running tasks of the other type; whether any did."""
        progress = False
        for kind, other in (("gpu", "cpu"), ("cpu", "gpu")):
            while self.idle[kind] and not self.has_ready(kind):
                best = self.best_spoliation(kind, other)
                if best is None:
                    break
                j, machine = best.task, best.machine
                placed = self._placed(j)
                self.aborted += self.now - placed.start if self.now > placed.start else 0
                self.spoliations += 1
                del self.running[other][machine]
                heapq.heappush(self.idle[other], machine)
                self.start(j, kind, heapq.heappop(self.idle[kind]))
                progress = True
        return progress

    def best_spoliation(self, kind: str, other: str) -> _Spoliation | None:
        """The task running on ``other`` that an idle ``kind`` machine should take over (None: none gains)."""
        best = None
        for machine, j in self.running[other].items():
            time = self.instance.time(j, kind)
            if time is None:
                continue
            finish = max(self.now, self.data_ready(j, kind)) + time
            current = self._placed(j).end
            if finish < current:
                key = (finish, j) if self.spoliation == "earliest-finish" else (-current, j)
                if best is None or key < best.key:
                    best = _Spoliation(key, machine, j)
        return best

    def _current(self, event: _Completion) -> bool:
        """The event is the completion of a copy still running (not spoliated)."""
        return event.version == self.version[event.task] and self.running[event.kind].get(event.machine) == event.task

    def next_completions(self) -> list[_Completion]:
        """Advance the clock to the next completion; every current completion at that time."""
        while True:
            event = heapq.heappop(self.events)
            if self._current(event):
                break
        self.now = event.end
        finished = [event]
        while self.events and self.events[0].end == self.now:
            other = heapq.heappop(self.events)
            if self._current(other):
                finished.append(other)
        return finished

    def finish(self, finished: list[_Completion]) -> None:
        """Free the machines of the ``finished`` tasks and release their successors that became ready."""
        for event in finished:
            del self.running[event.kind][event.machine]
            heapq.heappush(self.idle[event.kind], event.machine)
            self.done += 1
            for edge in self.outgoing[event.task]:
                self.waiting[edge.v] -= 1
                if self.waiting[edge.v] == 0:
                    self.release(edge.v)


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
