"""What the non-preemptive exact formulations share: a start schedule, bounds, decoding, the Result.

Every formulation decodes its solution the same way: the order of start and
end events of the solver's intervals gives a slab sequence, which the slab
LP (`simulate.time_slab_sequence`) times exactly; the best timing of a
structure is never worse than the solver's own, so the decoded makespan is
at most the solver's objective (up to the solver's tolerances). The lower
bound reported is the larger of the backend's bound (MILP only) and the
preemptive LP optimum, which bounds every non-preemptive schedule.
"""

from __future__ import annotations

import math
import time as clock
from collections.abc import Sequence
from typing import Any

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...solvers.milp import DEFAULT_THREADS, version
from ...solvers.outcome import Outcome
from .. import bounds
from ..heuristics import best_list_schedule, list_schedule, search_order
from ..model import Instance, Solution, evaluate
from ..simulate import slabs_of_intervals, solution_from_slabs, time_slab_sequence

#: Above this n the exact methods take a cheap start (LPT) and the trivial bound instead of the LP.
LARGE_N = 300
#: Relative gap under which HiGHS's proven MILP optimum stands against the re-timed makespan
#: (the registry's optimality gap). A bound above the makespan is never allowed (registry: 1e-9).
MILP_GAP = 1e-6
#: HiGHS feasibility and integrality tolerance of the MILP (default 1e-6). With big-M = U a binary
#: at 1e-6 relaxes a row by 1e-6 U: a 20-kernel Orion mix got a "bound" 0.108 above its true
#: optimum. At 1e-9 the slack is 1e-9 U per row, and the bound is shaved by it.
MIP_TOLERANCE = 1e-9
#: Moves of the local search that tightens big-M (a move count: reproducible).
BIG_M_SEARCH_MOVES = 300


def upper_bound(instance: Instance, deadline: Deadline) -> tuple[float, Solution]:
    """A good non-preemptive schedule (makespan, solution) for big-M and warm start."""
    if instance.n > LARGE_N:  # one LPT pass: the other candidates cost O(n^2) per event at this size
        solution = list_schedule(instance, sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration))
        return evaluate(instance, solution)["makespan"], solution
    solution = best_list_schedule(instance)
    budget = deadline.remaining()
    if instance.n <= 150 and (budget is None or budget > 1.0):
        # A short, seeded local search (move count, not time: reproducible) tightens big-M;
        # at most a fifth of the time left, so the model still gets built and solved.
        search = Deadline.after(30.0 if budget is None else min(30.0, budget / 5))
        order, _ = search_order(instance, search, 0, BIG_M_SEARCH_MOVES)
        searched = list_schedule(instance, order)
        if evaluate(instance, searched)["makespan"] < evaluate(instance, solution)["makespan"]:
            solution = searched
    return evaluate(instance, solution)["makespan"], solution


def proven_bound(instance: Instance) -> float:
    """The preemptive LP (shaved) or, above `LARGE_N`, the trivial bound; both with the longest stream."""
    return bounds.best(instance) if instance.n <= LARGE_N else bounds.trivial(instance)


def decode_intervals(
    instance: Instance, starts: Sequence[float], ends: Sequence[float], snap: float
) -> Solution | None:
    """The schedule of the event order of one interval per kernel, timed by the slab LP (None: no timing)."""
    sets = slabs_of_intervals(starts, ends, snap=snap)
    lengths = time_slab_sequence(instance, sets)
    if lengths is None:
        return None
    return solution_from_slabs(sets, lengths)


def stream_pairs(instance: Instance) -> set[tuple[int, int]]:
    """Pairs (i < j) of one stream: ordered by the stream chain, no variables needed."""
    return {
        (min(a, b), max(a, b)) for stream in instance.streams for x, a in enumerate(stream) for b in stream[x + 1 :]
    }


def finish(
    instance: Instance,
    solution: Solution,
    *,
    backend_optimal: bool,
    lower_bounds: Sequence[float | None],
    solver: str | None,
    notes: Sequence[str],
    gap: float = 0.0,
    proof_by_bound: bool = True,
) -> Result:
    """The Result of a non-preemptive exact method for the schedule ``solution``.

    ``lower_bounds`` are proven lower bounds (None entries skipped); the
    largest is reported, never clamped to the makespan: a bound above the
    validated makespan is a bug in the bound, and the registry turns it into
    ERROR. OPTIMAL is claimed when the backend proved its model optimal
    (``backend_optimal``) and the makespan is within ``gap`` of the bound,
    or, with ``proof_by_bound``, when the makespan meets a proven bound to
    1e-9 (``milp`` passes False: it claims OPTIMAL only on HiGHS's word).
    """
    makespan = evaluate(instance, solution)["makespan"]
    known = [b for b in lower_bounds if b is not None]
    bound = max(known) if known else None
    notes = list(notes)
    met = proof_by_bound and bound is not None and makespan <= bound * (1 + 1e-9)
    if backend_optimal and not met:
        met = bound is not None and makespan <= bound * (1 + gap)
        if not met:
            notes.append(
                f"backend proved its model optimal, but the re-timed makespan {makespan:.10g} "
                f"is above the safe bound {bound}: FEASIBLE"
            )
    status = Status.OPTIMAL if met else Status.FEASIBLE
    return Result(status=status, objective=makespan, bound=bound, solution=solution, solver=solver, notes=tuple(notes))


def safe_mip_bound(dual_bound: float | None, n: int, big: float) -> float | None:
    """HiGHS's dual bound made safe against its tolerances.

    The MILP is solved with rows and integrality relaxed by `MIP_TOLERANCE`;
    a relaxed big-M row lets one interval slip by at most ``MIP_TOLERANCE x
    big`` (plus the row tolerance), and a chain of kernels at most n times
    that, each with its start, end and overlap rows: the bound is lowered by
    ``4 n MIP_TOLERANCE (big + 1)``. None stays None.
    """
    if dual_bound is None or not math.isfinite(dual_bound):
        return None
    return dual_bound - 4 * max(1, n) * MIP_TOLERANCE * (abs(big) + 1.0)


def solve_highs(model: Any, *, time_limit: float | None, seed: int) -> Outcome:
    """Solve a PuLP MILP with HiGHS at `MIP_TOLERANCE` (gap 0); OPTIMAL only when HiGHS proved it.

    `hpcsched.solvers.milp.solve_pulp` runs HiGHS at its default 1e-6
    tolerances, too loose for the big-M rows here (see `MIP_TOLERANCE`).
    """
    import highspy
    import pulp

    highspy.Highs.resetGlobalScheduler(True)  # see solvers.milp: one pool per process
    solver = pulp.HiGHS(
        msg=False,
        timeLimit=None if time_limit is None else max(1e-3, float(time_limit)),
        threads=DEFAULT_THREADS,
        gapRel=0.0,
        random_seed=int(seed) % 2147483647,
        mip_feasibility_tolerance=MIP_TOLERANCE,
        primal_feasibility_tolerance=MIP_TOLERANCE,
    )
    started = clock.perf_counter()
    try:
        model.solve(solver)
    except (pulp.PulpSolverError, ArithmeticError, IndexError, ValueError) as error:
        return Outcome(
            Status.ERROR, None, None, clock.perf_counter() - started, version("highs"), message=f"highs failed: {error}"
        )
    runtime = clock.perf_counter() - started
    message = f"{pulp.LpStatus[model.status]} / {pulp.LpSolution[model.sol_status]}"
    bound = None
    if getattr(model, "solverModel", None) is not None:
        dual = model.solverModel.getInfo().mip_dual_bound
        bound = float(dual) if math.isfinite(dual) else None
    status = _highs_status(model)
    return Outcome(
        status=status,
        objective=pulp.value(model.objective) if status.has_solution else None,
        bound=bound,
        runtime_s=runtime,
        backend=version("highs") + f" (mip_feasibility_tolerance {MIP_TOLERANCE:g})",
        value=(lambda variable: variable.value()) if status.has_solution else None,
        message=message,
    )


def _highs_status(model: Any) -> Status:
    import pulp

    if model.sol_status == pulp.LpSolutionOptimal:
        return Status.OPTIMAL
    if model.sol_status == pulp.LpSolutionIntegerFeasible:
        return Status.FEASIBLE
    if model.status == pulp.LpStatusInfeasible:
        return Status.INFEASIBLE
    return Status.TIME_LIMIT_NO_SOLUTION
