"""Objective 2 (non-local count under no idle): a MILP with "last task per server" binaries.

``x[j, i]`` binary for every server, length ``d_ij = p_j + c [i not in R_j]``,
load ``L_i = sum_j d_ij x[j, i]``. Given the assignment, ordering each queue
with its longest task last minimizes the server's latest start
``L_i - max d``; the model picks that task with binaries ``l[j, i] <= x[j, i]``
and ``sum_j l[j, i] = used[i] >= x[k, i]`` (a non-empty server has one last
task). With ``z`` the latest start over all servers,
``L_i - sum_j d_ij l[j, i] <= z`` and ``z <= L_k`` for every server k encode
max start <= min completion. Minimize ``sum_{i not in R_j} x[j, i]``. The
spec's tie-break (makespan) is not optimized: the objective is the count; the
makespan is a KPI. Size n*m binaries twice: small instances only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result
from ...solvers.milp import solve_pulp
from ...solvers.outcome import Outcome
from .. import bounds
from ..model import Instance, Solution
from .common import MILP_BOUND_TOLERANCE, ReplicaPairs, beyond_milp_range, not_applicable, result_of


@dataclass(frozen=True)
class MilpCommunicationParams:
    """Options of `milp_communication`.

    Attributes
    ----------
    backend
        ``"highs"`` or ``"cbc"`` (CBC gives no bound after a time limit).
    workers
        Backend threads.
    max_pairs
        Largest n*m for which the model is built (larger: NOT_APPLICABLE).
    """

    backend: Literal["highs", "cbc"] = "highs"
    workers: int = 2
    max_pairs: int = 5_000

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)
        at_least("max_pairs", self.max_pairs, 0)


class _CommunicationModel:
    """The MILP of the module docstring, built one row family at a time."""

    def __init__(self, instance: Instance, deadline: Deadline):
        import pulp

        self.pulp = pulp
        self.deadline = deadline
        n, m = self.n, self.m = instance.num_tasks, instance.servers
        self.local = np.zeros((n, m), dtype=bool)
        pairs = ReplicaPairs.of(instance)
        self.local[pairs.task, pairs.server] = True
        self.length = instance.durations[:, None] + np.where(self.local, 0, instance.remote_cost)
        self.model = pulp.LpProblem("locality_communication", pulp.LpMinimize)
        self.x = [[pulp.LpVariable(f"x_{j}_{i}", cat=pulp.LpBinary) for i in range(m)] for j in range(n)]
        self.last = [[pulp.LpVariable(f"l_{j}_{i}", cat=pulp.LpBinary) for i in range(m)] for j in range(n)]
        self.used = [pulp.LpVariable(f"used_{i}", cat=pulp.LpBinary) for i in range(m)]
        self.latest_start = pulp.LpVariable("latest_start", lowBound=0)

    def build(self, instance: Instance) -> None:
        """Objective, bound row, ``once`` rows and the rows of every server."""
        self.add_objective(instance)
        for j in range(self.n):
            self.model += self.pulp.lpSum(self.x[j]) == 1, f"once_{j}"
        for i in range(self.m):
            self.deadline.check("building the MILP")
            self.add_server(i)
        self.deadline.check("building the MILP")

    def remote_count(self) -> Any:
        return self.pulp.lpSum(self.x[j][i] for j in range(self.n) for i in range(self.m) if not self.local[j, i])

    def add_objective(self, instance: Instance) -> None:
        """Minimize the non-local count, at least the matching bound (never the quota flow it is checked against)."""
        self.model += self.remote_count()
        lower = max(0, min(self.n, self.m) - bounds.maximum_local_matching(instance))
        if lower > 0:
            self.model += self.remote_count() >= lower, "bound"

    def add_server(self, i: int) -> None:
        """Server ``i``: one last task when used, its latest start at most ``z``, ``z`` at most its completion."""
        lpSum, x, last, n = self.pulp.lpSum, self.x, self.last, self.n
        load = lpSum(int(self.length[j, i]) * x[j][i] for j in range(n))
        # used[i] = sum_j l[j, i] in {0, 1}: one last task exactly when the server runs something.
        self.model += lpSum(last[j][i] for j in range(n)) == self.used[i], f"one_last_{i}"
        for j in range(n):
            self.model += last[j][i] <= x[j][i], f"last_assigned_{j}_{i}"
            self.model += x[j][i] <= self.used[i], f"has_last_{j}_{i}"
        last_length = lpSum(int(self.length[j, i]) * last[j][i] for j in range(n))
        self.model += load - last_length <= self.latest_start, f"start_{i}"
        self.model += self.latest_start <= load, f"no_idle_{i}"

    def queues(self, outcome: Outcome) -> Solution | None:
        """Each server's tasks with the longest last (at least as good as the model's pick), or None."""
        value = outcome.value
        if value is None or not outcome.has_solution:
            return None
        queues = []
        for i in range(self.m):
            mine = [j for j in range(self.n) if value(self.x[j][i]) > 0.5]
            mine.sort(key=lambda j: (int(self.length[j, i]), j))
            queues.append(mine)
        return Solution.from_queues(queues)


def milp_communication(
    instance: Instance, /, *, time_limit: float, seed: int, params: MilpCommunicationParams | None
) -> Result:
    """MILP (PuLP + HiGHS) for objective 2 with "last task per server" binaries.

    Parameters
    ----------
    instance
        Objective 2 (else NOT_APPLICABLE), n*m at most ``max_pairs`` and total
        load at most 2^40 (else NOT_APPLICABLE).
    time_limit
        Seconds for building and solving.
    seed
        The backend's random seed.
    params
        `MilpCommunicationParams`; None: the defaults.

    Returns
    -------
    Result
        OPTIMAL when the backend proved it, else FEASIBLE (or
        TIME_LIMIT_NO_SOLUTION), with the backend's bound rounded down
        through its tolerance.
    """
    if instance.objective != "communication":
        return not_applicable("objective 2 model; use milp or cpsat for objective 1")
    params = params or MilpCommunicationParams()
    n, m = instance.num_tasks, instance.servers
    if n * m > params.max_pairs:
        return not_applicable(f"n*m = {n * m} pairs exceed max_pairs={params.max_pairs}")
    if refused := beyond_milp_range(instance):
        return refused
    deadline = Deadline.after(time_limit)
    built = _CommunicationModel(instance, deadline)
    built.build(instance)
    outcome = solve_pulp(
        built.model, backend=params.backend, time_limit=deadline.remaining(), threads=params.workers, seed=seed
    )
    return result_of(
        outcome,
        built.queues(outcome),
        MILP_BOUND_TOLERANCE,
        notes=("objective = non-local count; makespan not tie-broken",),
    )
