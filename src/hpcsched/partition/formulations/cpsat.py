"""CP-SAT for partition (both memory models): the method, its options and its result (model: `cpsat_model`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_backend
from .. import bounds
from ..model import Instance, Solution, evaluate
from .common import incumbent
from .cpsat_model import build_model, hint_canonical


@dataclass(frozen=True)
class CpSatParams:
    """Options of cpsat.

    Attributes
    ----------
    workers
        CP-SAT search workers.
    deterministic_time
        CP-SAT ``max_deterministic_time`` (None: only the wall-clock limit); tests that assert a proof set it.
    hint
        Start from the better of ParDNN-style and HEFT (when they find a schedule).
    stop_at_bound
        Return the incumbent as OPTIMAL without solving when it meets the lower bound.
    """

    workers: int = 2
    deterministic_time: float | None = None
    hint: bool = True
    stop_at_bound: bool = True

    def __post_init__(self):
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT: assignment literals, optional intervals per GPU with NoOverlap, a split literal per edge, memory rows
    or a Cumulative over lifetimes.

    Model. x_vg (exactly one per node; fixed by pins; equal within a
    colocation group); S_v, E_v = S_v + p_v; an optional interval
    [S_v, E_v) per GPU present iff x_vg, NoOverlap per GPU; a split literal
    y_uv >= x_ug - x_vg for every g (so y = 1 when apart) and S_v >= E_u +
    c_uv y_uv, y_uv <= 2 - x_ug - x_vg (y is exactly "apart"). Static memory: Σ_v (w_v + s_v) x_vg <= M per GPU. Dynamic
    memory: per GPU a Cumulative of capacity M - Σ_v w_v x_vg over the
    output lifetimes [S_u, O_u) present iff x_ug (demand s_u; O_u >= E_u and
    O_u >= E_v when not split) and the copies [E_u + c_uv, E_v) present iff
    y_uv and x_vg (demand s_u), exactly the definition's items (a larger O_u
    only adds memory, so the solver can set it tight). Symmetry (no pins): node i uses a GPU <= i (relabel GPUs by the
    first node they host). Hint: the heuristic incumbent; horizon: its
    makespan (the optimum is no later), else Σp + Σc.

    Exactness with horizon H = Σp + Σc (no incumbent). Lemma: if a
    feasible schedule exists, one ends by Σp + Σc, for both memory models.
    Proof: take an instant t at which no node runs and no cut edge is in
    transfer (t outside every [C_u, C_u + c_uv)), inside an interval of
    such instants [t, t + δ); shift everything that starts at or after
    t + δ left by δ. Precedence holds (an edge crossing t has C_u + c_uv
    <= t <= S_v - δ), GPUs stay exclusive, and every memory item either
    moves with the shifted part or spans t and gets shorter, so no level
    rises. Repeating, every instant of [0, makespan) is covered by a run or
    a transfer window, whose total length is at most Σp + Σc. So INFEASIBLE
    with that horizon proves the instance infeasible.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        CP-SAT's random seed.
    params
        `CpSatParams`, or None for the defaults.

    Returns
    -------
    Result
        OPTIMAL with the schedule when CP-SAT proves it (or the incumbent meets the bound), FEASIBLE with the
        best schedule and CP-SAT's bound otherwise, INFEASIBLE only when the instance is proven infeasible,
        TIME_LIMIT_NO_SOLUTION when the time ran out first.
    """
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    times = instance.times
    lower = bounds.best(instance)
    deadline.check("computing the lower bound")
    start_solution = incumbent(instance, deadline.remaining())  # also the horizon, hint or not
    deadline.check("computing the incumbent")
    if start_solution is not None:
        horizon = int(evaluate(instance, start_solution)["objective"])
        if params.stop_at_bound and lower >= horizon:
            return Result(
                status=Status.OPTIMAL,
                solution=start_solution,
                bound=lower,
                notes=("the heuristic incumbent meets the lower bound",),
                solver=cpsat_backend.version(),
            )
    else:
        horizon = sum(times) + sum(int(edge.delay) for edge in instance.edges)
    model, x, start, _ = build_model(instance, horizon, lower, deadline)
    if params.hint and start_solution is not None:
        hint_canonical(instance, model, x, start, start_solution)
    outcome = cpsat_backend.solve_cpsat(
        model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    return _cpsat_result(instance, outcome, x, start, start_solution, lower, horizon)


def _cpsat_result(
    instance: Instance, outcome, x, start, start_solution: Solution | None, lower: int, horizon: int
) -> Result:
    """The method's result from the CP-SAT outcome: its schedule, else the incumbent, with the proven bound."""
    n, gpus = instance.n, instance.gpus
    bound = max(lower, math.floor(outcome.bound + 1e-9)) if outcome.bound is not None else lower
    note = f"CP-SAT {outcome.message}, deterministic time {getattr(outcome, 'deterministic_time', 0.0):.2f}"
    if outcome.status is Status.ERROR:  # a model CP-SAT refuses is our bug: say so, do not hide it behind the hint
        return Result(status=Status.ERROR, solver=outcome.backend, notes=(note,))
    if outcome.has_solution:
        gpu_of = [next(g for g in range(gpus) if outcome.value(x[v][g])) for v in range(n)]
        solution = Solution(tuple(gpu_of), tuple(int(outcome.value(start[v])) for v in range(n)))
        if (
            start_solution is not None
            and evaluate(instance, start_solution)["objective"] < evaluate(instance, solution)["objective"]
        ):
            solution = start_solution  # pragma: no cover - the hinted incumbent is never worse in practice
        return Result(status=outcome.status, solution=solution, bound=bound, solver=outcome.backend, notes=(note,))
    if outcome.status is Status.INFEASIBLE and start_solution is None:
        from ...core.errors import InfeasibleError

        raise InfeasibleError(
            f"CP-SAT proved that no schedule respects pins, colocation and {instance.memory_model} "
            f"memory within Σp + Σc = {horizon}, which is no restriction (see cpsat's docstring)"
        )
    if start_solution is not None:
        return Result(
            status=Status.FEASIBLE,
            solution=start_solution,
            bound=bound,
            solver=outcome.backend,
            notes=(f"{note}: the heuristic incumbent is returned",),
        )
    return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=None, solver=outcome.backend, notes=(note,))
