"""Exact formulations of the locality problem (any durations), and brute force.

Objective 1 (restricted assignment P|M_j|Cmax, NP-hard):
    ``x[j, i]`` binary for ``i in R_j`` only, ``sum_i x[j, i] = 1``,
    ``sum_j p_j x[j, i] <= C``, minimize ``C``; the trivial bound
    ``max(ceil(sum p / m), max p)`` is added as ``C >= LB`` (not the flow
    bound, so that the model stays an independent check of the flow methods).
    Solved with PuLP + HiGHS (`milp_makespan`) or CP-SAT (`cpsat_makespan`).

Objective 2 (non-local count under no idle), `milp_communication`:
    ``x[j, i]`` binary for every server, length ``d_ij = p_j + c [i not in R_j]``,
    load ``L_i = sum_j d_ij x[j, i]``. Given the assignment, ordering each
    queue with its longest task last minimizes the server's latest start
    ``L_i - max d``; the model picks that task with "last task per server"
    binaries ``l[j, i] <= x[j, i]``, ``sum_j l[j, i] <= 1`` and
    ``sum_j l[j, i] = used[i] >= x[k, i]`` (a non-empty server has one last task).
    With ``z`` the latest start over all servers, ``L_i - sum_j d_ij l[j, i] <= z``
    and ``z <= L_k`` for every server k encode max start <= min completion.
    Minimize ``sum_{i not in R_j} x[j, i]``. The spec's tie-break (makespan) is
    not optimized: the objective is the count; the makespan is a KPI.
    Size n*m binaries twice: small instances only.

`auto` dispatches: equal durations + objective 1 -> semi-matching; equal
durations + objective 2 + remote_cost 0 -> quota-flow; otherwise objective 1
-> CP-SAT, objective 2 -> MILP. Its options are the chosen method's and are
checked against that method (`Method.check_options`) before it runs.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numpy as np

from ..core.deadline import Deadline
from ..core.result import Result, Status
from ..solvers.cpsat import new_model, solve_cpsat
from ..solvers.milp import solve_pulp
from . import bounds
from .model import Instance, Solution

NAME = "locality"
DEFAULT_TIME_LIMIT = 60.0


#: Largest coefficient handed to a MILP: HiGHS refuses 1e15 and beyond (PuLP then fails with an
#: IndexError), and below 2^40 its 1e-6 tolerances stay far below one time unit of integer data.
MILP_LARGEST_COEFFICIENT = 2**40
#: Build loops check the deadline once per this many variables.
CHECK_EVERY = 4096


def _result(method: str, outcome, solution: Solution | None, notes: tuple[str, ...] = ()) -> Result:
    status = outcome.status if solution is not None or not outcome.status.has_solution else Status.ERROR
    bound = outcome.bound
    if bound is not None and math.isfinite(bound):
        # both objectives are integers (loads of integer durations, a count): a backend's dual bound a
        # tolerance above an integer must not round up past it
        bound = math.ceil(bound - 1e-6)
    return Result(NAME, method, status, objective=outcome.objective if solution is not None else None,
                  bound=bound, runtime_s=outcome.runtime_s, solution=solution,
                  notes=(*notes, f"backend status: {outcome.message}"), solver=outcome.backend)


def _not_applicable(method: str, why: str) -> Result:
    return Result(NAME, method, Status.NOT_APPLICABLE, notes=(why,))


def _beyond_milp_range(instance: Instance, method: str) -> Result | None:
    """NOT_APPLICABLE when the loads exceed what the MILP backend handles exactly (`MILP_LARGEST_COEFFICIENT`)."""
    largest = int(instance.durations.sum()) + instance.num_tasks * int(instance.remote_cost)
    if largest <= MILP_LARGEST_COEFFICIENT:
        return None
    return _not_applicable(method, f"total load {largest} > 2^40: beyond the range where the MILP backend's "
                                   "tolerances stay below one time unit; use cpsat (integers) instead")


def _entries(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    task_of_entry = np.repeat(np.arange(instance.num_tasks), instance.replica_counts)
    return task_of_entry, instance.replica_servers


def _chosen_assignment(instance: Instance, outcome, assign, task_of_entry, server_of_entry) -> Solution | None:
    """The assignment read off the (task, replica) binaries of an incumbent, or None."""
    if not outcome.has_solution:
        return None
    chosen = np.array([outcome.value(v) > 0.5 for v in assign])
    server_of_task = np.empty(instance.num_tasks, dtype=np.int64)
    server_of_task[task_of_entry[chosen]] = server_of_entry[chosen]
    return Solution.from_assignment(server_of_task, instance.servers)


def milp_makespan(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, backend: str = "highs", **options: Any
) -> Result:
    """MILP (PuLP + HiGHS) for objective 1: assignment binaries on replica pairs only."""
    import pulp

    if instance.objective != "makespan":
        return _not_applicable("milp", "objective 1 model; use milp-communication for objective 2")
    if refused := _beyond_milp_range(instance, "milp"):
        return refused
    deadline = Deadline.after(time_limit if time_limit is not None else DEFAULT_TIME_LIMIT)
    task_of_entry, server_of_entry = _entries(instance)
    durations = instance.durations.tolist()
    model = pulp.LpProblem("locality_makespan", pulp.LpMinimize)
    # Only the trivial bound: the model stays independent of the flow methods it is checked against.
    makespan = pulp.LpVariable("makespan", lowBound=bounds.trivial_bound(instance))
    assign = [pulp.LpVariable(f"x_{j}_{i}", cat=pulp.LpBinary) for j, i in zip(task_of_entry.tolist(), server_of_entry.tolist())]
    model += makespan
    per_task: dict[int, list] = {}
    per_server: dict[int, list] = {}
    for count, (variable, j, i) in enumerate(zip(assign, task_of_entry.tolist(), server_of_entry.tolist())):
        if count % CHECK_EVERY == 0:
            deadline.check("building the MILP")
        per_task.setdefault(j, []).append(variable)
        per_server.setdefault(i, []).append(durations[j] * variable)
    for j, variables in per_task.items():
        if j % CHECK_EVERY == 0:
            deadline.check("building the MILP")
        model += pulp.lpSum(variables) == 1, f"once_{j}"
    for i, terms in per_server.items():
        deadline.check("building the MILP")
        model += pulp.lpSum(terms) <= makespan, f"load_{i}"
    deadline.check("building the MILP")
    outcome = solve_pulp(model, backend=backend, time_limit=deadline.remaining(), seed=seed)
    solution = _chosen_assignment(instance, outcome, assign, task_of_entry, server_of_entry)
    return _result("milp", outcome, solution)


def cpsat_makespan(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, workers: int | None = None, **options: Any
) -> Result:
    """CP-SAT for objective 1: Boolean assignment on replica pairs, max-load objective."""
    if instance.objective != "makespan":
        return _not_applicable("cpsat", "objective 1 model; use milp-communication for objective 2")
    deadline = Deadline.after(time_limit if time_limit is not None else DEFAULT_TIME_LIMIT)
    task_of_entry, server_of_entry = _entries(instance)
    durations = instance.durations.tolist()
    model = new_model()
    lower = bounds.trivial_bound(instance)  # independent of the flow methods
    upper = int(instance.durations.sum())
    makespan = model.new_int_var(lower, max(lower, upper), "makespan")
    assign = [model.new_bool_var(f"x_{j}_{i}") for j, i in zip(task_of_entry.tolist(), server_of_entry.tolist())]
    per_task: dict[int, list] = {}
    per_server: dict[int, list] = {}
    for count, (variable, j, i) in enumerate(zip(assign, task_of_entry.tolist(), server_of_entry.tolist())):
        if count % CHECK_EVERY == 0:
            deadline.check("building the CP-SAT model")
        per_task.setdefault(j, []).append(variable)
        per_server.setdefault(i, []).append((variable, durations[j]))
    for j, variables in enumerate(per_task.values()):
        if j % CHECK_EVERY == 0:
            deadline.check("building the CP-SAT model")
        model.add_exactly_one(variables)
    for terms in per_server.values():
        deadline.check("building the CP-SAT model")
        model.add(sum(p * v for v, p in terms) <= makespan)
    model.minimize(makespan)
    deadline.check("building the CP-SAT model")
    outcome = solve_cpsat(model, time_limit=deadline.remaining(), seed=seed, workers=workers)
    solution = _chosen_assignment(instance, outcome, assign, task_of_entry, server_of_entry)
    return _result("cpsat", outcome, solution)


def _local_matrix(instance: Instance) -> np.ndarray:
    local = np.zeros((instance.num_tasks, instance.servers), dtype=bool)
    task_of_entry, server_of_entry = _entries(instance)
    local[task_of_entry, server_of_entry] = True
    return local


def milp_communication(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, backend: str = "highs", max_pairs: int = 5_000, **options: Any
) -> Result:
    """MILP (PuLP + HiGHS) for objective 2 with "last task per server" binaries."""
    import pulp

    if instance.objective != "communication":
        return _not_applicable("milp-communication", "objective 2 model; use milp or cpsat for objective 1")
    n, m = instance.num_tasks, instance.servers
    limit = int(max_pairs)
    if n * m > limit:
        return _not_applicable("milp-communication", f"n*m = {n * m} pairs exceed max_pairs={limit}")
    if refused := _beyond_milp_range(instance, "milp-communication"):
        return refused
    deadline = Deadline.after(time_limit if time_limit is not None else DEFAULT_TIME_LIMIT)
    local = _local_matrix(instance)
    length = instance.durations[:, None] + np.where(local, 0, instance.remote_cost)
    model = pulp.LpProblem("locality_communication", pulp.LpMinimize)
    x = [[pulp.LpVariable(f"x_{j}_{i}", cat=pulp.LpBinary) for i in range(m)] for j in range(n)]
    last = [[pulp.LpVariable(f"l_{j}_{i}", cat=pulp.LpBinary) for i in range(m)] for j in range(n)]
    used = [pulp.LpVariable(f"used_{i}", cat=pulp.LpBinary) for i in range(m)]
    latest_start = pulp.LpVariable("latest_start", lowBound=0)
    model += pulp.lpSum(x[j][i] for j in range(n) for i in range(m) if not local[j, i])
    # The matching bound only (never the quota flow the model is checked against).
    lower = max(0, min(n, m) - bounds.maximum_local_matching(instance))
    if lower > 0:
        model += pulp.lpSum(x[j][i] for j in range(n) for i in range(m) if not local[j, i]) >= lower, "bound"
    for j in range(n):
        model += pulp.lpSum(x[j]) == 1, f"once_{j}"
    for i in range(m):
        deadline.check("building the MILP")
        load = pulp.lpSum(int(length[j, i]) * x[j][i] for j in range(n))
        # used[i] = sum_j l[j, i] in {0, 1}: one last task exactly when the server runs something.
        model += pulp.lpSum(last[j][i] for j in range(n)) == used[i], f"one_last_{i}"
        for j in range(n):
            model += last[j][i] <= x[j][i], f"last_assigned_{j}_{i}"
            model += x[j][i] <= used[i], f"has_last_{j}_{i}"
        model += load - pulp.lpSum(int(length[j, i]) * last[j][i] for j in range(n)) <= latest_start, f"start_{i}"
        model += latest_start <= load, f"no_idle_{i}"
    deadline.check("building the MILP")
    outcome = solve_pulp(model, backend=backend, time_limit=deadline.remaining(), seed=seed)
    solution = None
    if outcome.has_solution:
        queues = []
        for i in range(m):
            mine = [j for j in range(n) if outcome.value(x[j][i]) > 0.5]
            # The longest task last (it is at least as good as the model's pick).
            mine.sort(key=lambda j: (int(length[j, i]), j))
            queues.append(mine)
        solution = Solution.from_queues(queues)
    return _result("milp-communication", outcome, solution, notes=("objective = non-local count; makespan not tie-broken",))


# ----------------------------------------------------------- brute force
def _no_idle_order_ok(lengths_by_server: list[list[int]]) -> bool:
    latest = max((sum(lengths) - max(lengths) for lengths in lengths_by_server if lengths), default=0)
    earliest = min(sum(lengths) for lengths in lengths_by_server)
    return latest <= earliest


def brute_force(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, max_assignments: int = 300_000, **options: Any
) -> Result:
    """Enumerate every assignment (tiny instances; at most ``max_assignments``)."""
    started = time.perf_counter()
    n, m = instance.num_tasks, instance.servers
    limit = int(max_assignments)
    durations = instance.durations.tolist()
    replica_sets = [instance.replicas(j).tolist() for j in range(n)]
    if instance.objective == "makespan":
        choices = replica_sets
    else:
        choices = [list(range(m))] * n
    count = 1
    for options_of_task in choices:
        count *= len(options_of_task)
        if count > limit:
            return _not_applicable("brute-force", f"more than {limit} assignments")
    best_value, best_assignment = None, None
    for assignment in itertools.product(*choices):
        if instance.objective == "makespan":
            loads = [0] * m
            for j, server in enumerate(assignment):
                loads[server] += durations[j]
            value = (max(loads),)
        else:
            lengths: list[list[int]] = [[] for _ in range(m)]
            remote = 0
            for j, server in enumerate(assignment):
                is_local = server in replica_sets[j]
                remote += not is_local
                lengths[server].append(durations[j] + (0 if is_local else instance.remote_cost))
            if not _no_idle_order_ok(lengths):
                continue
            value = (remote, max(sum(lengths_i) for lengths_i in lengths))  # count, then makespan
        if best_value is None or value < best_value:
            best_value, best_assignment = value, assignment
    if best_assignment is None:  # pragma: no cover - list scheduling is always feasible
        return Result(NAME, "brute-force", Status.INFEASIBLE, notes=("no assignment satisfies the no-idle rule",))
    server_of_task = np.asarray(best_assignment, dtype=np.int64)
    if instance.objective == "communication":
        local = np.array([server_of_task[j] in replica_sets[j] for j in range(n)])
        length = instance.durations + np.where(local, 0, instance.remote_cost)
        solution = Solution.from_assignment(server_of_task, m, sort_key=length)  # longest task last
    else:
        solution = Solution.from_assignment(server_of_task, m)
    return Result(NAME, "brute-force", Status.OPTIMAL, objective=float(best_value[0]), bound=float(best_value[0]),
                  runtime_s=time.perf_counter() - started, solution=solution,
                  notes=(f"{count} assignments enumerated",))


def auto_choice(instance: Instance) -> str:
    """The registered name of the method `auto` runs on ``instance`` (see the module docstring)."""
    from . import special_cases

    equal = special_cases.equal_duration(instance) is not None
    if instance.objective == "makespan":
        return "semi-matching" if equal else "cpsat"
    if equal and instance.remote_cost == 0:
        return "quota-flow"
    return "milp-communication"


def auto(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Best exact method for the instance: flow for equal durations, else CP-SAT / MILP."""
    from ..core.registry import get_problem

    # ``auto`` is registered with forwards_options=True (its options are the
    # chosen method's), so the registry has not checked them: check them
    # against the chosen method here, before it runs, so that an unknown or
    # ill-typed option is refused exactly as with ``--method <chosen>``.
    chosen = get_problem(NAME).method(auto_choice(instance))
    chosen.check_options(options)
    result = chosen.func(instance, time_limit=time_limit, seed=seed, **options)
    return result.with_note(f"auto chose {chosen.name}")
