"""Special cases of hetero with their theorems.

* `independent_dp`: independent tasks, m <= 1 and k <= 1 (R2||Cmax and its
  one-machine degenerations) — exact pseudo-polynomial DP.
* `one_type`: every task on one type (m = 0, k = 0, or each task allowed on
  one type only), i.e. P|prec|Cmax: NP-hard; with at least as many machines
  as tasks the earliest-start (ASAP) schedule is optimal; otherwise a
  critical-path list schedule, OPTIMAL only when it meets `bounds.best`.
* Uniform acceleration (p̄_j = α p_j for every task) is Q|prec|Cmax with
  two speeds; HeteroPrio notes it (`simulate.is_uniform_acceleration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.deadline import Deadline
from ..core.params import at_least
from ..core.result import Result, Status
from ..taskgraph import list_schedule, predecessors, topological_order, upward_ranks
from . import bounds
from .model import Instance, Solution, evaluate, require_runnable


@dataclass(frozen=True)
class IndependentDpParams:
    """Options of independent-dp.

    Attributes
    ----------
    max_cells
        Refuse (NOT_APPLICABLE) when n x (Σ p̄ + 1) exceeds this (the choice table's size).
    """

    max_cells: int = 50_000_000

    def __post_init__(self):
        at_least("max_cells", self.max_cells, 1)


def independent_dp(
    instance: Instance, /, *, time_limit: float, seed: int, params: IndependentDpParams | None
) -> Result:
    """Exact DP for independent tasks on at most one CPU and one GPU (R2||Cmax), O(n · Σ p̄).

    Theorem: G[L] = the least GPU load over assignments whose CPU load is
    exactly L; G is built task by task (G'[L] = min(G[L - p̄_j], G[L] + p_j))
    and the optimum is min_L max(L, G[L]): on one machine per type the tasks
    of a type run back to back, so an assignment's makespan is the larger
    load.

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Wall-clock seconds; `TimeLimitReached` is raised when they run out.
    seed
        Unused: the method is deterministic.
    params
        `IndependentDpParams` (the table size limit); None = the defaults.

    Returns
    -------
    Result
        OPTIMAL with the schedule and its makespan as bound; NOT_APPLICABLE with edges, more than one CPU or
        GPU, or a table above ``max_cells``.

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    params = params or IndependentDpParams()
    if instance.edges or instance.cpus > 1 or instance.gpus > 1:
        return Result(
            status=Status.NOT_APPLICABLE, notes=("for independent tasks on at most one CPU and one GPU only",)
        )
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    n = instance.n
    cpu_total = sum(instance.time(j, "cpu") or 0 for j in range(n))
    if n * (cpu_total + 1) > params.max_cells:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"table of {n * (cpu_total + 1)} cells exceeds options.max_cells = {params.max_cells}",),
        )
    infinity = np.iinfo(np.int64).max // 4
    gpu_load = np.full(cpu_total + 1, infinity, dtype=np.int64)
    gpu_load[0] = 0
    on_cpu = np.zeros((n, cpu_total + 1), dtype=bool)
    for j in range(n):
        deadline.check("filling the DP table")
        cpu, gpu = instance.time(j, "cpu"), instance.time(j, "gpu")
        via_gpu = gpu_load + gpu if gpu is not None else np.full_like(gpu_load, infinity)
        via_cpu = np.full_like(gpu_load, infinity)
        if cpu is not None:
            via_cpu[cpu:] = gpu_load[: cpu_total + 1 - cpu]
        on_cpu[j] = via_cpu < via_gpu
        gpu_load = np.minimum(np.minimum(via_cpu, via_gpu), infinity)
    makespans = np.maximum(np.arange(cpu_total + 1), gpu_load)
    load = int(np.argmin(makespans))
    kinds = [""] * n
    for j in reversed(range(n)):
        if on_cpu[j, load]:
            kinds[j] = "cpu"
            load -= instance.run_time(j, "cpu")
        else:
            kinds[j] = "gpu"
    clock = {"cpu": 0, "gpu": 0}
    starts = [0] * n
    for j in range(n):
        starts[j] = clock[kinds[j]]
        clock[kinds[j]] += instance.run_time(j, kinds[j])
    solution = Solution(tuple(kinds), (0,) * n, tuple(starts))
    return Result(status=Status.OPTIMAL, solution=solution, bound=int(makespans.min()))


def _single_type(instance: Instance) -> str | None:
    """The one type every task must use, or None when some task has a choice."""
    kinds = set()
    for j in range(instance.n):
        allowed = [k for k in ("cpu", "gpu") if instance.time(j, k) is not None]
        if len(allowed) > 1:
            return None
        kinds.update(allowed)
    return kinds.pop() if len(kinds) == 1 else None


def one_type(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """One type only (P|prec|Cmax): ASAP when machines >= n (optimal), else critical-path list scheduling with the
    bound.

    Theorem: with at least n machines of the type, starting every task at
    the end of its last predecessor (no communication within one type) gives
    makespan = critical path, a lower bound; hence optimal.

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Wall-clock seconds; `TimeLimitReached` is raised when they run out.
    seed
        Unused: the method is deterministic.
    params
        None: the method has no options.

    Returns
    -------
    Result
        OPTIMAL (ASAP, or the list schedule when it meets `bounds.best`) or FEASIBLE, with `bounds.best` as
        bound; NOT_APPLICABLE when some task can run on both available types.

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    require_runnable(instance)
    kind = _single_type(instance)
    if kind is None:
        return Result(
            status=Status.NOT_APPLICABLE, notes=("some task can run on both available types (not a one-type instance)",)
        )
    deadline = Deadline.after(time_limit)
    n = instance.n
    times = [instance.run_time(j, kind) for j in range(n)]
    count = instance.cpus if kind == "cpu" else instance.gpus
    lower = bounds.best(instance)
    if count >= n:
        incoming = predecessors(n, instance.edges)
        starts = [0] * n
        for v in topological_order(n, instance.edges):
            starts[v] = max((starts[e.u] + times[e.u] for e in incoming[v]), default=0)
        solution = Solution((kind,) * n, tuple(range(n)), tuple(starts))
        return Result(status=Status.OPTIMAL, solution=solution, bound=lower, notes=("ASAP with one machine per task",))
    deadline.check("computing the bound")
    rank = upward_ranks(n, instance.edges, times)
    placements = list_schedule(n, instance.edges, instance.machines, instance.time, [-r for r in rank], rule="class")
    solution = Solution.from_placements(placements)
    status = Status.OPTIMAL if evaluate(instance, solution)["objective"] <= lower else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=lower, notes=("critical-path list scheduling",))
