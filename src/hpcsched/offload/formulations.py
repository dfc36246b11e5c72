"""Exact formulations of ``offload``: CP-SAT, fixed-order MILP, brute force.

CP-SAT (`build_cpsat`, methods ``cpsat`` and ``cpsat-plain``) is the model of
the spec: fixed-size intervals for F/B, optional intervals for offloads and
prefetches (presence = offloaded), residency intervals (kept / out-part /
in-part with matching presence), one Cumulative of capacity M, NoOverlap per
channel, minimize the end of B_1.  The out-part ends at a variable
``e_i >= max(end offload_i, end F_{i+1})``: a larger e_i only wastes memory,
so the optimum is unchanged and every solution is valid.

Time scaling (``resolution = q``): durations are rounded *up* to multiples of
q and starts restricted to multiples of q.  Every interval of the original
schedule with the same starts is contained in its scaled counterpart, so a
scaled solution is a valid schedule of the original instance (its makespan
is evaluated on the original); the scaled optimum and bound say nothing
about the original optimum, so a scaled solve never claims OPTIMAL nor
returns its bound.

``cpsat`` (default method): heuristics give an incumbent; on instances with
few canonical offload sets (`model.canonical_set_count`, the exchange lemma
of `model.exchange_pairs`) the offload-set search (`offload_set_search`)
tries to prove it optimal; a coarse CP-SAT improves it, the full-resolution
CP-SAT is warm-started with a complete hint, the exchange implications and a
proven lower bound (max of compute, transfer and LP bounds) as a constraint
on the makespan.  OPTIMAL is claimed only when the search ends, the
full-resolution model proves it or the incumbent meets a proven bound.

MILP ``milp-fixed-order`` (`build_milp_fixed_order`): exact for the
*fixed-order restricted problem*, an upper bound for the problem.  The
restricted problem is the problem plus two chains and nothing else: for
offloaded i < j, offload_i ends before offload_j starts (out channel) and
prefetch_j ends before prefetch_i starts (in channel).  On a half-duplex link
these chains already put every offload before every prefetch (the last
offload and the first prefetch move the same activation, whose prefetch
follows its offload), so the shared channel carries the single chain
offloads-then-prefetches and needs no further rule.  Fixing the orders is
*not* w.l.o.g. (a large offload moved before a small one frees memory sooner;
the tests meet instances where the restricted optimum is above the
problem's), so the method claims OPTIMAL only when its makespan meets a
proven lower bound of the problem (`bounds.best`, also its ``bound``); the
MILP's own bound, a bound of the restricted model only, goes to ``notes``.
Model: continuous starts of F_k, B_k, offload_i, prefetch_i in [0, H],
binaries o_i; the chains run over all offloadable indices with durations
times o_i (the starts of a kept activation are phantoms between its
neighbours, free of its release and deadline rows).  Memory: one row per
allocation instant (start of every F_k, B_k and of every chosen prefetch).
The row of instant e counts interval j when j starts no later than e in a
*tie order* (stream order among compute points, the chain among prefetches,
and between compute point p and prefetch i the binary u = [p <= P_i], linked
exactly by p <= P_i and P_i <= p - 1) and ends after e (an indicator forced
to 1 by e >= end - M·y).  At every time t the row of the last allocation at
t in the tie order counts exactly the memory in use at t (releases before
allocations), and every other row counts part of the memory in use at its
time, so the rows hold iff the validator's sweep does; conditions that the
compute order and the chains decide (with the least durations in between)
are constants, the others get binaries.  With the binaries fixed, every row
on the times is a difference constraint with an integer constant, so the LP
of the times has integral vertices: the MILP's optimum is the restricted
optimum over integer schedules and its times are rounded (times off
integers: the LP of the times is re-solved with the binaries fixed; failing
that the offload set is re-timed by `exact_timing`, said in notes).  Big-M:
H is the makespan of the best heuristic schedule that keeps both orders
(`best_heuristic_solution` if `follows_fixed_orders` accepts it, else its
set or offload-all timed by the simulator, whose default orders are the
fixed ones), so an optimal restricted schedule lies in [0, H]; M = H + 1 +
the longest transfer.  The validator's row for steps of zero duration (kept
a_0..a_{k-2} plus the step's floor) is added as in CP-SAT.

Brute force (``brute-force``): every offload set O (L <= 12), each timed
exactly by CP-SAT with O fixed; the minimum is the optimum.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any

from ..core.deadline import Deadline, TimeLimitReached
from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.fields import require_bool, require_int, require_list, require_number
from ..core.result import Result, Status
from ..solvers.cpsat import new_model, solve_cpsat
from .model import (Instance, Solution, canonical_schedule, canonical_set_count, check_feasible, evaluate,
                    exchange_pairs, kept_prefix_fits)

PROBLEM = "offload"


@dataclass
class _CpVars:
    scale: int
    sf: list
    sb: list
    offloaded: dict
    out_start: dict
    in_start: dict
    makespan: Any


def _up(value: int, scale: int) -> int:
    return -(-value // scale)


def build_cpsat(instance: Instance, *, horizon: int, scale: int = 1, fixed: set[int] | None = None,
                hint: Solution | None = None, lower: int | None = None,
                exchange: bool = False, deadline: Deadline | None = None) -> tuple[Any, _CpVars]:
    """The CP-SAT model of the module docstring at resolution ``scale``.

    Parameters
    ----------
    horizon
        Upper bound on the makespan (original units), e.g. a heuristic's.
    fixed
        If given, the offload set is fixed to it (exact timing of O).
    hint
        A solution of the original instance used as a complete hint.
    lower
        A proven lower bound on the makespan (original units).
    exchange
        Add ``o_j => o_i`` for the pairs of `model.exchange_pairs` (symmetry
        breaking: some optimal schedule keeps them, so OPTIMAL and the bound
        stay those of the original problem; the hint is made canonical).
        Off in ``cpsat-plain`` (the spec's model) and with ``fixed``.
    deadline
        Checked while the model is built (`TimeLimitReached`): the rows of
        the kept prefixes alone are quadratic in L.
    """
    deadline = deadline if deadline is not None else Deadline(None)
    n, s = instance.n_layers, instance.activation
    f = [_up(x, scale) for x in instance.forward]
    b = [_up(x, scale) for x in instance.backward]
    wf, wb = instance.workspace_forward, instance.workspace_backward
    H = _up(horizon, scale) + 1
    model = new_model()
    sf = [model.new_int_var(0, H, f"sf{k}") for k in range(1, n + 1)]
    sb = [model.new_int_var(0, H, f"sb{k}") for k in range(1, n + 1)]
    f_end = [sf[k] + f[k] for k in range(n)]
    b_end = [sb[k] + b[k] for k in range(n)]
    for k in range(n - 1):
        model.add(sf[k + 1] >= f_end[k])
    model.add(sb[n - 1] >= f_end[n - 1])
    for k in range(n - 1):
        model.add(sb[k] >= b_end[k + 1])
    intervals, demands = [], []

    def resident(start, end, size: int, presence=None, label: str = "") -> None:
        if size <= 0:
            return
        length = model.new_int_var(0, H, f"len_{label}")
        if presence is None:
            interval = model.new_interval_var(start, length, end, f"res_{label}")
        else:
            interval = model.new_optional_interval_var(start, length, end, presence, f"res_{label}")
        intervals.append(interval)
        demands.append(size)

    for k in range(n):
        if wf[k]:
            intervals.append(model.new_fixed_size_interval_var(sf[k], f[k], f"F{k + 1}"))
            demands.append(wf[k])
        if wb[k]:
            intervals.append(model.new_fixed_size_interval_var(sb[k], b[k], f"B{k + 1}"))
            demands.append(wb[k])
    offloadable = set(instance.offloadable)
    offloaded, out_start, in_start = {}, {}, {}
    out_intervals, in_intervals = [], []
    zero = model.new_constant(0)
    for i in range(n + 1):
        if i % 64 == 0:
            deadline.check("building the CP-SAT model")
        born = zero if i == 0 else sf[i - 1]
        last_use = b_end[n - 1] if i == n else b_end[i]
        if i not in offloadable:
            resident(born, last_use, s[i], None, f"a{i}")
            continue
        o = model.new_bool_var(f"o{i}")
        offloaded[i] = o
        if fixed is not None:
            model.add(o == (1 if i in fixed else 0))
        tau_out = _up(instance.offload_time(i), scale)
        tau_in = _up(instance.prefetch_time(i), scale)
        xo = model.new_int_var(0, H, f"xo{i}")
        xp = model.new_int_var(0, H, f"xp{i}")
        out_start[i], in_start[i] = xo, xp
        out_intervals.append(model.new_optional_fixed_size_interval_var(xo, tau_out, o, f"out{i}"))
        in_intervals.append(model.new_optional_fixed_size_interval_var(xp, tau_in, o, f"in{i}"))
        if i >= 1:
            model.add(xo >= f_end[i - 1]).only_enforce_if(o)
        model.add(xp >= xo + tau_out).only_enforce_if(o)
        model.add(xp + tau_in <= sb[i]).only_enforce_if(o)
        leave = model.new_int_var(0, H, f"leave{i}")
        model.add(leave >= xo + tau_out).only_enforce_if(o)
        model.add(leave >= f_end[i]).only_enforce_if(o)
        resident(born, last_use, s[i], ~o, f"a{i}_kept")
        resident(born, leave, s[i], o, f"a{i}_out")
        resident(xp, last_use, s[i], o, f"a{i}_in")
    for i in range(n):
        resident(sb[i], b_end[i - 1] if i >= 1 else b_end[0], s[i], None, f"grad{i}")
    model.add_cumulative(intervals, demands, instance.memory)
    # Redundant: the kept a_0..a_{k-2} and the floor of F_k / B_k fit together (see model.kept_prefix_fits);
    # linear in the o_i, it prunes offload sets long before the cumulative does.
    for k in range(2, n + 1):
        if k % 16 == 0:
            deadline.check("building the CP-SAT model")
        kept = sum(s[i] * (1 - offloaded[i]) if i in offloaded else s[i] for i in range(k - 1))
        floor = max(s[k - 1] + s[k] + wf[k - 1], 2 * s[k - 1] + (s[n] if k == n else s[k]) + wb[k - 1])
        model.add(kept + floor <= instance.memory)
    if instance.duplex == "full":
        model.add_no_overlap(out_intervals)
        model.add_no_overlap(in_intervals)
    else:
        model.add_no_overlap(out_intervals + in_intervals)
    if exchange and fixed is None:
        for i, j in exchange_pairs(instance):
            model.add_implication(offloaded[j], offloaded[i])
        if hint is not None:
            hint = canonical_schedule(instance, hint)
    deadline.check("building the CP-SAT model")
    makespan = b_end[0]
    if lower is not None:
        # A proven bound of the original; at a coarser scale the scaled makespan is >= the original one.
        model.add(makespan >= _up(int(lower), scale) if scale == 1 else makespan >= int(lower) // scale)
    model.minimize(makespan)
    handles = _CpVars(scale, sf, sb, offloaded, out_start, in_start, makespan)
    if hint is not None:
        for k in range(n):
            model.add_hint(sf[k], hint.forward_start[k] // scale)
            model.add_hint(sb[k], hint.backward_start[k] // scale)
        for i, o in offloaded.items():
            chosen = i in hint.offloaded
            model.add_hint(o, chosen)
            if chosen:
                model.add_hint(out_start[i], hint.offload_start[i] // scale)
                model.add_hint(in_start[i], hint.prefetch_start[i] // scale)
    return model, handles


def _extract(instance: Instance, handles: _CpVars, value) -> Solution:
    q = handles.scale
    chosen = [i for i, o in handles.offloaded.items() if value(o) > 0.5]
    return Solution(
        offloaded=tuple(chosen),
        forward_start=tuple(int(value(v)) * q for v in handles.sf),
        backward_start=tuple(int(value(v)) * q for v in handles.sb),
        offload_start={i: int(value(handles.out_start[i])) * q for i in chosen},
        prefetch_start={i: int(value(handles.in_start[i])) * q for i in chosen},
    )


def _makespan(instance: Instance, solution: Solution) -> int:
    return int(evaluate(instance, solution)["objective"])


def solve_cpsat_plain(instance: Instance, *, time_limit: float | None = 30.0, seed: int = 0, resolution: int = 1,
                      workers: int = 2, offloaded: list[int] | None = None, log: bool = False,
                      deterministic_time: float | None = None) -> Result:
    """CP-SAT model of the spec alone (no warm start; horizon from offload-all).

    ``deterministic_time``: a limit in CP-SAT's deterministic units on top of the wall-clock one (with
    ``workers=1`` the verdict is then the same on any machine, when the wall clock is not reached first).

    ``resolution`` > 1 solves the time-scaled model (valid schedules, no
    optimality claim).  The scaled model is a *restriction* (durations
    rounded up, starts on the grid): its infeasibility says nothing about
    the instance, so it is never reported as INFEASIBLE.  Its horizon is the
    makespan of the offload set's schedule on the same grid (the simulator
    at that scale), which is a solution of the scaled model; when the scaled
    model still has no solution, the simulator's schedule of the set at full
    resolution is returned (FEASIBLE, said in the notes), or none.
    ``offloaded`` fixes O (exact timing of that set).
    """
    from .simulate import simulate

    deadline = Deadline.after(time_limit)
    resolution = require_int(resolution, "options.resolution", minimum=1)
    workers = require_int(workers, "options.workers", minimum=1)
    log = require_bool(log, "options.log")
    if deterministic_time is not None:
        deterministic_time = require_number(deterministic_time, "options.deterministic_time", strictly_positive=True)
    if offloaded is not None:
        offloaded = _offload_set_option(instance, offloaded)
    check_feasible(instance)
    chosen = instance.offloadable if offloaded is None else offloaded
    reference = simulate(instance, instance.offloadable)  # always fits on a feasible instance
    horizon = _makespan(instance, reference)
    if resolution > 1:
        on_grid = simulate(instance, chosen, scale=resolution)
        if on_grid is not None:  # its makespan on the grid is below its original makespan + one step
            horizon = max(horizon, _makespan(instance, on_grid) + resolution)
    notes = [f"resolution {resolution} {instance.time_unit or ''}".strip()]
    try:
        model, handles = build_cpsat(instance, horizon=horizon, scale=resolution,
                                     fixed=None if offloaded is None else set(offloaded), deadline=deadline)
    except TimeLimitReached as reached:
        return _plain_fallback(instance, chosen, resolution, [*notes, str(reached)], None)
    outcome = solve_cpsat(model, time_limit=deadline.remaining(), deterministic_time=deterministic_time,
                          workers=workers, seed=seed, log=log)
    notes.append(f"cp-sat {outcome.message}")
    if outcome.status is Status.INFEASIBLE and resolution > 1:
        return _plain_fallback(instance, chosen, resolution,
                               [*notes, f"the model coarsened to resolution {resolution} has no solution: a "
                                        "restriction, so this says nothing about the instance"], outcome.backend)
    if outcome.status is Status.INFEASIBLE:
        if offloaded is None:
            raise InfeasibleError("CP-SAT proved the instance infeasible")
        return Result(PROBLEM, "cpsat-plain", Status.INFEASIBLE, notes=("the fixed offload set cannot fit",),
                      solver=outcome.backend)
    if not outcome.has_solution:
        return Result(PROBLEM, "cpsat-plain", Status.TIME_LIMIT_NO_SOLUTION, notes=tuple(notes), solver=outcome.backend)
    solution = _extract(instance, handles, outcome.value)
    exact = resolution == 1
    status = Status.OPTIMAL if exact and outcome.status is Status.OPTIMAL else Status.FEASIBLE
    bound = math.ceil(outcome.bound - 1e-6) if exact and outcome.bound is not None and offloaded is None else None
    if not exact:
        notes.append("scaled model: its bound is not a bound of the original instance")
    if offloaded is not None:
        notes.append("offload set fixed: optimal timing of that set only")
        status = Status.FEASIBLE if status is Status.OPTIMAL else status
    return Result(PROBLEM, "cpsat-plain", status, objective=_makespan(instance, solution), bound=bound,
                  solution=solution, notes=tuple(notes), solver=outcome.backend)


def _plain_fallback(instance: Instance, chosen, resolution: int, notes: list[str], backend: str | None) -> Result:
    """cpsat-plain without a CP-SAT answer: the simulator's schedule of the offload set (FEASIBLE), or none."""
    from .simulate import simulate

    schedule = simulate(instance, chosen)
    if schedule is None:
        # Only a fixed set can fail here (offload-all fits on a feasible instance); at resolution 1 the
        # build ran out of time, at a coarser one the coarse model proved nothing: no verdict either way.
        return Result(PROBLEM, "cpsat-plain", Status.TIME_LIMIT_NO_SOLUTION,
                      notes=(*notes, "the simulator's timing of the offload set does not fit either"), solver=backend)
    return Result(PROBLEM, "cpsat-plain", Status.FEASIBLE, objective=_makespan(instance, schedule),
                  solution=schedule,
                  notes=(*notes, "the simulator's schedule of the offload set is returned"), solver=backend)


def _offload_set_option(instance: Instance, offloaded: Any) -> list[int]:
    """The ``offloaded`` option checked: distinct offloadable activations (another index would be ignored)."""
    chosen: list[int] = []
    for position, item in enumerate(require_list(offloaded, "options.offloaded")):
        index = require_int(item, f"options.offloaded[{position}]")
        if index not in instance.offloadable:
            raise InvalidInstanceError(f"options.offloaded[{position}]",
                                       f"activation {index} is not offloadable (offloadable: {list(instance.offloadable)})")
        if index in chosen:
            raise InvalidInstanceError(f"options.offloaded[{position}]", f"activation {index} is listed twice")
        chosen.append(index)
    return chosen


# The offload-set search runs by default on instances with at most this many canonical offload sets
# (`model.canonical_set_count`): VGG16 has 512,000 (proven: benchmarks/offload/README.md, "What the proofs
# cost"), SqueezeNet about 2^29 (the search does not end in 120 s there, benchmarks/offload/README.md round 7).
SEARCH_BY_DEFAULT_SETS = 2 ** 24


def solve_cpsat_warm(instance: Instance, *, time_limit: float | None = 60.0, seed: int = 0, workers: int = 2,
                     coarse_fraction: float = 0.3, heuristic_fraction: float = 0.15, use_lp: bool | None = None,
                     relaxation_fraction: float = 0.0, relaxation_probe_fraction: float = 0.75,
                     branch_fraction: float | None = None, branch_node_limit: float = 1.0, branch_cuts: bool = True,
                     exchange: bool = True, log: bool = False) -> Result:
    """Heuristic start, offload-set search, coarse-to-fine CP-SAT, proven bounds (best exact method).

    ``relaxation_fraction`` > 0 (off by default): after the heuristics, that
    fraction of the remaining time goes to `bounds.instant_relaxation_search`
    (the instant relaxation hinted with the incumbent, then destructive
    lower bounding); its proven bound is kept, and the channel orders of the
    relaxed solution are timed by the simulator and improved by
    `heuristics.ordered_local_search` (a relax-and-repair incumbent).
    ``relaxation_probe_fraction``: share of the time left given to each
    destructive probe (`bounds.instant_relaxation_search`).

    ``branch_fraction`` > 0: then that fraction of the time left goes to
    `offload_set_search` below the incumbent (each branch solved within
    ``branch_node_limit`` units of CP-SAT deterministic time, one worker:
    the verdict does not depend on the machine's load; default
    `BRANCH_DETERMINISTIC_TIME`); if it ends, the incumbent is proven
    optimal.  The wall clock only stops the search (then FEASIBLE with the
    bound it proved).  Default (None): 0.85 when the instance has at most
    ``SEARCH_BY_DEFAULT_SETS`` canonical offload sets
    (`model.canonical_set_count`), else 0 (off).  With the exchange lemma
    it proves VGG16 / PCIe 3 at 60 % and 40 % of the peak (cost in
    deterministic units and CPU seconds: benchmarks/offload/README.md,
    "What the proofs cost"; without the lemma, not in 3,600 s).  ``branch_cuts`` (default True):
    the search adds the optional rows its relaxed solutions break
    (``offload_set_search(cuts=True)``); at 60 % of the peak without them
    it stalls on exact timings of fully fixed sets.

    ``use_lp`` (default None: on unless the search runs): the LP relaxation
    (bound and rounding starts) gets 35 % of the time, its build included.

    The time limit covers every phase (one `Deadline`): builders stop when
    it passes, each phase gets a share of what is left, and a phase that
    runs out leaves the incumbent (FEASIBLE with the proven bound).  On VGG16 its bound
    is below the transfer bound, and the search needs the time.

    ``exchange`` (default on): the CP-SAT models, the instant relaxation and
    the search use the exchange lemma (`model.exchange_pairs`: of equal-size
    activations, offload the earliest); ``exchange=false`` gives the models
    without it, for comparison.
    """
    from . import bounds
    from .simulate import simulate

    # Options come from files and the command line: a wrong type or range is the user's, named here.
    if branch_fraction is None:
        branch_fraction = 0.85 if canonical_set_count(instance) <= SEARCH_BY_DEFAULT_SETS else 0.0
    coarse_fraction, heuristic_fraction, relaxation_fraction, relaxation_probe_fraction, branch_fraction = (
        require_number(value, f"options.{name}", minimum=0.0, maximum=1.0)
        for name, value in (("coarse_fraction", coarse_fraction), ("heuristic_fraction", heuristic_fraction),
                            ("relaxation_fraction", relaxation_fraction),
                            ("relaxation_probe_fraction", relaxation_probe_fraction),
                            ("branch_fraction", branch_fraction)))
    use_lp = branch_fraction == 0 if use_lp is None else require_bool(use_lp, "options.use_lp")
    branch_cuts = require_bool(branch_cuts, "options.branch_cuts")
    exchange = require_bool(exchange, "options.exchange")
    branch_node_limit = require_number(branch_node_limit, "options.branch_node_limit", strictly_positive=True)
    workers = require_int(workers, "options.workers", minimum=1)
    check_feasible(instance)
    limit = 60.0 if time_limit is None else float(time_limit)
    deadline = Deadline.after(limit)
    notes = []
    lower = bounds.best(instance)
    fractions = None
    if use_lp and not deadline.expired():
        try:
            value, fractions, lp_outcome = bounds.lp_relaxation(instance, time_limit=0.35 * limit, deadline=deadline)
            if value is not None:
                lower = max(lower, math.ceil(value * (1 - 1e-9) - 1e-6))
                notes.append(f"LP relaxation bound {value:.1f}")
            else:
                notes.append(f"LP relaxation not solved to optimality in its share ({lp_outcome.message}): no LP bound")
        except TimeLimitReached as reached:
            notes.append(f"LP relaxation: {reached} (its share: {0.35 * limit:.3g} s)")
    from .heuristics import best_heuristic_solution

    def remaining() -> float:
        return deadline.remaining()

    # Iterated local search is anytime; beyond ~1 s + 0.05 s per layer it rarely pays on these chains.
    # best_heuristic_solution spends about 1.5 times its time (the channel orders come on top).
    heuristic_time = min(heuristic_fraction * limit, 1.0 + 0.05 * instance.n_layers, remaining() / 1.5)
    best = best_heuristic_solution(instance, time_limit=max(0.0, heuristic_time), seed=seed, fractions=fractions)
    best_value = _makespan(instance, best)
    backend = None

    if relaxation_fraction > 0 and best_value > lower and remaining() > 1.0:
        from ..solvers.cpsat import version

        backend = version()
        try:
            relaxed_bound, relaxed = _relax_and_repair(instance, best, relaxation_fraction * remaining(), seed,
                                                       workers, relaxation_probe_fraction, exchange, deadline)
            lower = max(lower, relaxed_bound)
            if relaxed is not None and _makespan(instance, relaxed) < best_value:
                best, best_value = relaxed, _makespan(instance, relaxed)
            notes.append(f"instant relaxation: bound {relaxed_bound}, repaired schedule "
                         f"{None if relaxed is None else _makespan(instance, relaxed)}")
        except TimeLimitReached as reached:
            notes.append(f"instant relaxation: {reached}")

    if branch_fraction > 0 and best_value > lower and remaining() > 1.0:
        from ..solvers.cpsat import version

        backend = version()
        search = offload_set_search(instance, upper=best_value, time_limit=branch_fraction * remaining(),
                                    node_limit=branch_node_limit, seed=seed, workers=workers, lower=lower,
                                    cuts=branch_cuts, exchange=exchange)
        if search.schedule is not None:
            best, best_value = search.schedule, _makespan(instance, search.schedule)
        lower = max(lower, search.bound)
        notes.append(f"offload-set search: {'ended' if search.proven else 'stopped by the time limit'} after "
                     f"{search.nodes} branches ({search.pruned} ruled out, {100 * search.share_ruled_out:.3f} % of "
                     f"the offload sets; {branch_node_limit:g} deterministic units per branch), bound {search.bound}; "
                     f"{search.deterministic_time:.1f} deterministic units, {search.cpu_seconds:.1f} CPU s")

    if best_value > lower and remaining() > 1.0:
        # Coarse phase: resolution chosen so that the horizon has ~2,000 steps.
        scale = max(1, best_value // 2000)
        coarse_hint = simulate(instance, best.offloaded, scale=scale) if scale > 1 else None
        share = Deadline.after(coarse_fraction * remaining())
        try:
            coarse = None if coarse_hint is None else build_cpsat(
                instance, horizon=_makespan(instance, coarse_hint) + scale, scale=scale, hint=coarse_hint,
                exchange=exchange, deadline=share)
        except TimeLimitReached as reached:
            coarse = None
            notes.append(f"coarse CP-SAT at resolution {scale}: {reached} (its share of the time)")
        if coarse is not None:
            model, handles = coarse
            outcome = solve_cpsat(model, time_limit=share.remaining(), workers=workers, seed=seed, log=log)
            backend = outcome.backend
            if outcome.has_solution:
                candidate = _extract(instance, handles, outcome.value)
                from .model import validate

                if not validate(instance, candidate) and _makespan(instance, candidate) < best_value:
                    best, best_value = candidate, _makespan(instance, candidate)
            notes.append(f"coarse CP-SAT at resolution {scale}: {outcome.message}")
    status = Status.FEASIBLE
    full = None
    if best_value > lower and remaining() > 0.5:
        try:
            full = build_cpsat(instance, horizon=best_value, scale=1, hint=best, lower=lower, exchange=exchange,
                               deadline=deadline)
        except TimeLimitReached as reached:
            notes.append(f"full-resolution CP-SAT: {reached}; the incumbent is returned")
    if full is not None:
        model, handles = full
        outcome = solve_cpsat(model, time_limit=remaining(), workers=workers, seed=seed, log=log)
        backend = outcome.backend
        if outcome.has_solution:
            candidate = _extract(instance, handles, outcome.value)
            if _makespan(instance, candidate) <= best_value:
                best, best_value = candidate, _makespan(instance, candidate)
            if outcome.status is Status.OPTIMAL:
                status = Status.OPTIMAL
        if outcome.bound is not None and math.isfinite(outcome.bound):
            lower = max(lower, math.ceil(outcome.bound - 1e-6))
        notes.append(f"full-resolution CP-SAT: {outcome.message}")
    if best_value <= lower:
        # Equal when the bounds are right; a bound above a validated makespan is a bug in a bound,
        # so it is returned as is and the registry turns the result into ERROR instead of hiding it.
        status = Status.OPTIMAL
    return Result(PROBLEM, "cpsat", status, objective=best_value, bound=lower, solution=best,
                  notes=tuple(notes), solver=backend)


def _relax_and_repair(instance: Instance, incumbent: Solution, time_limit: float, seed: int,
                      workers: int, probe_fraction: float = 0.75,
                      exchange: bool = True, deadline: Deadline | None = None) -> tuple[int, Solution | None]:
    """(proven bound of the instant relaxation, its solution repaired into a valid schedule or None)."""
    from . import bounds
    from .heuristics import channel_orders, ordered_local_search
    from .model import validate
    from .simulate import simulate

    upper = _makespan(instance, incumbent)
    bound, outcome, handles = bounds.instant_relaxation_search(
        instance, lower=int(bounds.best(instance)), upper=upper, time_limit=max(0.5, time_limit), seed=seed,
        workers=workers, hint=incumbent, probe_fraction=probe_fraction, exchange=exchange, deadline=deadline)
    if not outcome.has_solution:
        return bound, None
    relaxed = bounds.relaxed_solution(instance, outcome, handles)
    # The relaxation checks memory at 2L instants only: keep its channel orders, re-time them.
    out_order, in_order = channel_orders(relaxed)
    repaired = simulate(instance, relaxed.offloaded, out_order=out_order, in_order=in_order)
    if repaired is None:
        return bound, None
    polish = 1.0 + 0.05 * instance.n_layers
    if deadline is not None and deadline.at is not None:
        polish = min(polish, deadline.remaining())
    repaired = ordered_local_search(instance, repaired, time.perf_counter() + polish, seed)
    return bound, (repaired if not validate(instance, repaired) else None)


@dataclass(frozen=True)
class OffloadSetSearch:
    """What `offload_set_search` established.

    Attributes
    ----------
    bound
        Proven lower bound on the makespan (``cap + 1`` when ``proven``).
    proven
        Every offload set was ruled out: no schedule has makespan <= ``cap``.
    cap
        Makespan tested last: ``upper`` (or the makespan of the best
        schedule found during the search) minus one.
    schedule
        The best schedule the search found below the incumbent, or None.
    nodes, pruned, open
        Branches solved, ruled out (INFEASIBLE relaxation) and left unsolved.
    share_ruled_out
        Share of the 2^|offloadable| offload sets ruled out (1.0 when proven).
    deterministic_time
        Deterministic time (CP-SAT's work units) of all the branch solves:
        what the search cost, whatever the machine's load.
    cpu_seconds
        CPU seconds of the process during the search (all threads).
    """

    bound: int
    proven: bool
    cap: int
    schedule: Solution | None
    nodes: int
    pruned: int
    open: int
    share_ruled_out: float
    deterministic_time: float = 0.0
    cpu_seconds: float = 0.0


# Deterministic time (CP-SAT work units) of one branch of the offload-set search, the default of
# ``solve_cpsat_warm(branch_node_limit=...)``: chosen so that every VGG16 budget is proven
# (benchmarks/offload/README.md, "What the proofs cost").
BRANCH_DETERMINISTIC_TIME = 1.0


def offload_set_search(instance: Instance, *, upper: int, time_limit: float,
                       node_limit: float = BRANCH_DETERMINISTIC_TIME,
                       seed: int = 0, workers: int = 2, lower: int = 0, cuts: bool = False,
                       branch_workers: int = 1, exchange: bool = True) -> OffloadSetSearch:
    """Depth-first search over offload sets with the instant relaxation; proves ``upper`` optimal if it ends.

    ``upper`` must be the makespan of a schedule (the incumbent).

    A branch fixes the offload decision of the largest activations (ties by
    index; "offload" is explored first).  It is ruled out when
    `bounds.instant_relaxation` with those decisions fixed and the makespan
    capped at ``cap = upper - 1`` is INFEASIBLE within its
    deterministic limit (``node_limit`` units of CP-SAT's deterministic
    time, one worker): every schedule with those decisions
    is a solution of that relaxation (`bounds.instant_relaxation`, the
    ``fixed_offload`` paragraph), so none has makespan <= cap.  Otherwise the
    branch is split on its next activation.  A fully fixed branch that the
    relaxation does not rule out is timed exactly (`exact_timing`, CP-SAT
    with the offload set fixed), and timed again with twice the
    deterministic time while that is not proven.  An empty stack proves
    that no schedule beats the incumbent.

    A proof must not depend on the machine's load: every branch solve is
    limited in deterministic time only (one CP-SAT worker: the same branch
    gets the same verdict on any machine), and branches are solved in
    batches whose results are taken in submission order, so the whole
    search is deterministic.  ``time_limit`` (wall-clock seconds) is only
    the overall stop: a search it interrupts leaves branches open, proves
    nothing about them and returns the bound of their parents.

    ``exchange`` (default on): the search covers only the offload sets that
    keep the implications of `model.exchange_pairs` (a_j offloaded => a_i
    offloaded for equal sizes, i < j), which suffices because every schedule
    has a canonical one with the same makespan.  A child's decisions are
    closed under the implications (keeping a_i keeps the later members of
    its group, offloading a_j offloads the earlier ones); a child that
    contradicts its parent's decisions is skipped.  The skipped sets count as
    ruled out in ``share_ruled_out`` (of all offload sets).  On VGG16 /
    PCIe 3 this is what brings the proofs from hours to 30-40 s
    (benchmarks/offload/README.md, round 7).

    A relaxed solution that is a valid schedule, or whose offload set and
    channel orders the simulator times below the cap, becomes the incumbent
    and lowers the cap (ruled-out branches stay ruled out: a lower cap only
    removes solutions).  The bound of an unfinished search is the smallest
    proven bound of the open branches' parents (``lower`` if larger), at most
    cap + 1.  Progress goes to the ``hpcsched.offload`` logger (INFO).

    ``cuts=True``: a relaxed solution that breaks optional rows of the
    relaxation (`bounds.missing_rows`: memory at the start of B_k, at a
    prefetch start during B_k) adds them to every later branch, and its
    branch is solved again (each row holds for every schedule, so they
    stay valid in all branches).

    Branches are solved ``max(1, workers // branch_workers)`` at a time, each
    by CP-SAT with ``branch_workers`` workers (threads: CP-SAT releases the
    interpreter lock while it solves).  A branch solved while the cap was
    higher keeps its verdict: INFEASIBLE at a higher cap is INFEASIBLE at a
    lower one, and fewer optional rows only weaken the relaxation.  The
    default (one worker per branch, two branches at once on 2 workers):
    refuting branches gains nothing from a second CP-SAT worker, so two
    branches at once about double the branches solved per second.  (With
    more than one worker per branch CP-SAT's deterministic limit no longer
    makes a branch's verdict reproducible.)  What the proofs cost is in
    benchmarks/offload/README.md ("What the proofs cost").
    """
    import logging
    from concurrent.futures import ThreadPoolExecutor

    from . import bounds
    from .heuristics import channel_orders
    from .model import validate
    from .simulate import simulate

    branch_workers = int(require_number(branch_workers, "branch_workers", minimum=1))
    at_once = max(1, int(workers) // branch_workers)
    pairs = exchange_pairs(instance) if exchange else []
    implied = {True: {j: i for i, j in pairs}, False: {i: j for i, j in pairs}}  # value -> a -> next forced
    logger = logging.getLogger("hpcsched.offload")
    started = time.perf_counter()
    cpu_started = time.process_time()
    deterministic = 0.0
    order = sorted(instance.offloadable, key=lambda i: (-instance.activation[i], i))
    cap = int(upper) - 1
    floor = max(int(lower), int(bounds.best(instance)))
    best_found = None
    # A branch: (decisions, bound proven by its parent, seconds per solve, timing of a fully fixed set).
    stack: list[tuple[dict[int, bool], int, float, bool]] = [({}, floor, node_limit, False)]
    nodes = pruned = 0
    ruled_out = 0.0
    rows: tuple[bool, list[tuple[int, int]]] = (False, [])  # (start rows, prefetch rows) of the relaxation
    reported = started

    def left() -> float:
        return time_limit - (time.perf_counter() - started)

    def child(fixed: dict[int, bool], activation: int, offloaded: bool) -> dict[int, bool] | None:
        """``fixed`` plus that decision, closed under the exchange implications; None if they contradict."""
        closed = dict(fixed)
        current: int | None = activation
        while current is not None:
            if current in closed:
                if closed[current] != offloaded:
                    return None
                break  # ``fixed`` is closed: the rest of the chain is already decided
            closed[current] = offloaded
            current = implied[offloaded].get(current)
        return closed

    def solve(branch, cap_now: int, rows_now) -> Any:
        fixed, _, limit, timing = branch
        seconds = max(0.0, left())  # a safety net only: the verdict comes from the deterministic limit
        if timing:
            return exact_timing(instance, {i for i, offloaded in fixed.items() if offloaded},
                                time_limit=seconds, deterministic_time=limit, seed=seed, with_outcome=True)
        return bounds.instant_relaxation(instance, upper=cap_now, time_limit=seconds, deterministic_time=limit,
                                         seed=seed, workers=branch_workers, fixed_offload=fixed,
                                         start_rows=rows_now[0], prefetch_rows=rows_now[1], exchange=exchange)

    def adopt(candidate: Solution | None) -> None:
        nonlocal best_found, cap
        if candidate is not None and _makespan(instance, candidate) <= cap and not validate(instance, candidate):
            best_found, cap = candidate, _makespan(instance, candidate) - 1
            logger.info("offload-set search: schedule of makespan %d found", cap + 1)

    stopped = False
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        while stack and not stopped and left() > 0:
            # One batch at a time, its results taken in submission order: the search does not depend on which
            # solve returns first (each solve ends by its deterministic limit or by the overall time limit).
            batch = [stack.pop() for _ in range(min(at_once, len(stack)))]
            futures = [pool.submit(solve, branch, cap, rows) for branch in batch]
            solved_cap = cap
            for position, (branch, future) in enumerate(zip(batch, futures)):
                if stopped:
                    future.result()
                    stack.append(branch)
                    continue
                fixed, parent_bound, limit, timing = branch
                nodes += 1
                if timing:
                    timed, exact, used = future.result()
                    deterministic += used
                    adopt(timed)
                    if exact:  # the set's optimum is known (or it has no schedule): nothing of it is below cap + 1
                        pruned += 1
                        ruled_out += 2.0 ** -len(fixed)
                    else:
                        stack.append((fixed, parent_bound, 2 * limit, True))
                    continue
                outcome, handles = future.result()
                deterministic += getattr(outcome, "deterministic_time", 0.0)
                if outcome.status is Status.INFEASIBLE:
                    pruned += 1
                    ruled_out += 2.0 ** -len(fixed)
                    continue
                if outcome.status is Status.ERROR:
                    # Not a refutation: keep the branch open, with the bound its parent proved, and stop.
                    stack.append(branch)
                    logger.warning("offload-set search stopped: %s", outcome.message)
                    stopped = True
                    continue
                node_bound = max(parent_bound, bounds.relaxation_outcome_bound(instance, outcome, solved_cap))
                if outcome.has_solution:
                    relaxed = bounds.relaxed_solution(instance, outcome, handles)
                    out_order, in_order = channel_orders(relaxed)
                    adopt(relaxed)
                    adopt(simulate(instance, relaxed.offloaded, out_order=out_order, in_order=in_order))
                    if round(outcome.objective) > cap:
                        # The cap dropped below this branch's relaxed optimum only because of a schedule found
                        # since: solve it again under the new cap.
                        stack.append(branch)
                        continue
                    if cuts:
                        wants_start, broken = bounds.missing_rows(instance, relaxed)
                        new_rows = [row for row in broken if row not in rows[1]]
                        if (wants_start and not rows[0]) or new_rows:
                            rows = (rows[0] or wants_start, rows[1] + new_rows)
                            logger.info("offload-set search: rows added (start rows %s, prefetch rows %s)", *rows)
                            stack.append(branch)
                            continue
                free = [i for i in order if i not in fixed]
                if not free:
                    # The relaxation of a fixed offload set can stay below its optimum: time the set exactly.
                    # exact_timing caps the makespan at h >= the offload-all schedule's: INFEASIBLE rules the
                    # set out below h only.  That suffices: while cap >= h the offload-all branch cannot be
                    # ruled out (its schedule solves the relaxation), and its leaf's timing lowers the cap.
                    stack.append((fixed, node_bound, limit, True))
                    continue
                for offloaded in (False, True):  # "offload" is popped first
                    decisions = child(fixed, free[0], offloaded)
                    share = 2.0 ** -(len(fixed) + 1)
                    if decisions is None:  # no canonical set in this child
                        ruled_out += share
                        continue
                    ruled_out += share - 2.0 ** -len(decisions)  # its sets that break an implication
                    stack.append((decisions, node_bound, node_limit, False))
            if time.perf_counter() - reported >= 60:
                reported = time.perf_counter()
                logger.info("offload-set search at %.0f s: %d branches, %d ruled out (%.3f %% of the offload "
                            "sets), %d open, %.1f deterministic units", time.perf_counter() - started, nodes, pruned,
                            100 * ruled_out, len(stack), deterministic)
    proven = not stack
    bound = cap + 1 if proven else max(floor, min([cap + 1] + [entry[1] for entry in stack]))
    return OffloadSetSearch(bound=bound, proven=proven, cap=cap, schedule=best_found, nodes=nodes, pruned=pruned,
                            open=len(stack), share_ruled_out=1.0 if proven else ruled_out,
                            deterministic_time=deterministic, cpu_seconds=time.process_time() - cpu_started)


def exact_timing(instance: Instance, offloaded: set[int], *, time_limit: float | None = 10.0,
                 deterministic_time: float | None = None, seed: int = 0, with_outcome: bool = False):
    """Optimal timing of a fixed offload set by CP-SAT (one worker): (solution or None, proven).

    ``deterministic_time`` limits the solve in CP-SAT's deterministic units (the same verdict on any
    machine); ``with_outcome`` adds the deterministic time used as a third item.
    """
    from .simulate import simulate

    reference = simulate(instance, instance.offloadable)
    horizon = _makespan(instance, reference)
    own = simulate(instance, offloaded)
    model, handles = build_cpsat(instance, horizon=max(horizon, _makespan(instance, own) if own else 0),
                                 fixed=offloaded, hint=own)
    outcome = solve_cpsat(model, time_limit=time_limit, deterministic_time=deterministic_time, workers=1, seed=seed)
    used = (float(getattr(outcome, "deterministic_time", 0.0)),) if with_outcome else ()
    if outcome.status is Status.INFEASIBLE:
        return (None, True, *used)
    if not outcome.has_solution:
        return (None, False, *used)
    return (_extract(instance, handles, outcome.value), outcome.status is Status.OPTIMAL, *used)


def solve_brute_force(instance: Instance, *, time_limit: float | None = None, seed: int = 0,
                      max_layers: int = 12) -> Result:
    """Every offload set, each timed exactly by CP-SAT (L <= 12)."""
    max_layers = require_int(max_layers, "options.max_layers", minimum=1)
    check_feasible(instance)
    if instance.n_layers > max_layers:
        return Result(PROBLEM, "brute-force", Status.NOT_APPLICABLE,
                      notes=(f"{instance.n_layers} layers > {max_layers}",))
    deadline = Deadline.after(time_limit)
    candidates = list(instance.offloadable)
    best, best_value, proven = None, math.inf, True
    subsets = (set(subset) for size in range(len(candidates) + 1)
               for subset in itertools.combinations(candidates, size))
    for subset in subsets:
        if deadline.expired():
            proven = False
            break
        if not kept_prefix_fits(instance, subset):
            continue  # proven infeasible without a solver call
        left = deadline.remaining()
        solution, exact = exact_timing(instance, subset, seed=seed, time_limit=10.0 if left is None else min(10.0, left))
        proven = proven and exact
        if solution is not None and _makespan(instance, solution) < best_value:
            best, best_value = solution, _makespan(instance, solution)
    if best is None:
        return Result(PROBLEM, "brute-force", Status.TIME_LIMIT_NO_SOLUTION)
    from ..solvers.cpsat import version

    status = Status.OPTIMAL if proven else Status.FEASIBLE
    return Result(PROBLEM, "brute-force", status, objective=best_value, bound=best_value if proven else None,
                  solution=best, solver=version(), notes=(f"{2 ** len(candidates)} offload sets",))


def follows_fixed_orders(instance: Instance, solution: Solution) -> bool:
    """Whether ``solution`` keeps the transfer orders of ``milp-fixed-order``.

    For offloaded i < j: the offload of a_i ends before the offload of a_j
    starts, and the prefetch of a_j ends before the prefetch of a_i starts
    (consecutive offloaded pairs suffice: durations are non-negative).
    """
    chosen = sorted(solution.offloaded)
    for i, j in zip(chosen, chosen[1:]):
        if solution.offload_start[j] < solution.offload_start[i] + instance.offload_time(i):
            return False
        if solution.prefetch_start[i] < solution.prefetch_start[j] + instance.prefetch_time(j):
            return False
    return True


@dataclass
class _FixedOrderMilp:
    """The PuLP model of `build_milp_fixed_order` and the variables a solution is read from."""

    lp: Any
    forward_start: list
    backward_start: list
    offloaded: dict
    offload_start: dict
    prefetch_start: dict
    binaries: list


def build_milp_fixed_order(instance: Instance, *, horizon: int, deadline: Deadline | None = None) -> _FixedOrderMilp:
    """The fixed-order MILP of the module docstring, for schedules of makespan <= ``horizon``.

    Compute points are the starts and ends of F_1..F_L, B_L..B_1 in stream
    order (position ``pos``); ``lower[pos]`` is the least time from the first
    point to that one (the durations in between), so two points at positions
    p <= q are at least ``lower[q] - lower[p]`` apart.  Residency intervals
    are (size, start, ends, gate): start a compute point, ``"zero"`` (a_0) or
    ``("P", i)``; the interval ends at the max of its ends (compute points or
    ``("X", i)``, the end of the offload of a_i); gate ``(g, i)`` with
    g = "kept" (1 - o_i) or "off" (o_i).  Each allocation instant e (start of
    F_k, B_k, prefetch_i) gets one row counting every interval j whose start
    comes no later than e in the tie order (stream order among compute
    points, the prefetch chain among prefetches, ``u[i, p] = [p <= P_i]``
    between them) and whose end is after e.  Which conditions are fixed by
    the compute order and the transfer chains is decided here; the others are
    binaries linked to the times with big-M.  ``deadline`` is checked for
    every row (`TimeLimitReached`): the model has O(L^2) terms.
    """
    import pulp

    deadline = deadline if deadline is not None else Deadline(None)

    from .bounds import compute_chain

    n, s = instance.n_layers, instance.activation
    f, b = instance.forward, instance.backward
    wf, wb, M = instance.workspace_forward, instance.workspace_backward, instance.memory
    offloadable = sorted(instance.offloadable)
    tau_out = {i: instance.offload_time(i) for i in offloadable}
    tau_in = {i: instance.prefetch_time(i) for i in offloadable}
    H = int(horizon)
    # Every difference a deactivated row must absorb: times of a schedule of makespan <= H lie in
    # [0, H], an offload end (phantom or not) in [0, H + tau].
    big = H + 1 + max([0, *tau_out.values(), *tau_in.values()])
    lp = pulp.LpProblem("offload_fixed_order", pulp.LpMinimize)
    SF, SB = compute_chain(lp, f, b, upper=H)
    lp.setObjective(SB[0] + b[0])  # the end of B_1
    o = {i: pulp.LpVariable(f"o{i}", cat="Binary") for i in offloadable}
    X = {i: pulp.LpVariable(f"X{i}", 0, H) for i in offloadable}
    P = {i: pulp.LpVariable(f"P{i}", 0, H) for i in offloadable}
    binaries = list(o.values())
    add = lp.addConstraint  # the nested helpers below add rows too

    # ---- compute points: ("F", k, 0|1) start/end of F_k, ("B", k, 0|1) of B_k
    points, pos, lower, clock = [], {}, {}, 0
    for k in range(1, n + 1):
        points += [("F", k, 0), ("F", k, 1)]
    for k in range(n, 0, -1):
        points += [("B", k, 0), ("B", k, 1)]
    for index, point in enumerate(points):
        kind, k, end = point
        pos[point] = index
        duration = (f if kind == "F" else b)[k - 1]
        clock += duration if end else 0
        lower[point] = clock

    def at(point):
        kind, k, end = point
        return (SF if kind == "F" else SB)[k - 1] + ((f if kind == "F" else b)[k - 1] if end else 0)

    def gap(p, q):
        return lower[q] - lower[p]

    def sf(k):  # start of F_k (ef: its end; sb, eb: start and end of B_k)
        return ("F", k, 0)

    def ef(k):
        return ("F", k, 1)

    def sb(k):
        return ("B", k, 0)

    def eb(k):
        return ("B", k, 1)

    # ---- transfer chains (phantom starts for the activations not offloaded keep the chains linear)
    for i in offloadable:
        if i >= 1:
            lp += X[i] >= at(ef(i)) - big * (1 - o[i])
        lp += P[i] >= X[i] + tau_out[i] - big * (1 - o[i])
        lp += P[i] + tau_in[i] <= at(sb(i + 1)) + big * (1 - o[i])
    for earlier, later in zip(offloadable, offloadable[1:]):
        lp += X[later] >= X[earlier] + tau_out[earlier] * o[earlier]
        lp += P[earlier] >= P[later] + tau_in[later] * o[later]

    # ---- order binaries u[i, p] = [p <= P_i] (exact when o_i = 1), fixed where the chains decide
    u: dict = {}

    def order(i, p):
        """[p <= P_i] for a compute point p and an offloaded a_i (0, 1 or a binary)."""
        if p == "zero":
            return 1
        if i >= 1 and pos[p] <= pos[ef(i)]:
            return 1  # p <= end F_i <= P_i
        if pos[p] >= pos[sb(i + 1)] and gap(sb(i + 1), p) + tau_in[i] >= 1:
            return 0  # P_i + tau_in <= start B_{i+1} < p
        if (i, p) not in u:
            var = pulp.LpVariable(f"u{i}_{pos[p]}", cat="Binary")
            u[i, p] = var
            binaries.append(var)
            add(at(p) <= P[i] + big * (1 - var) + big * (1 - o[i]))
            add(P[i] <= at(p) - 1 + big * var + big * (1 - o[i]))
        return u[i, p]

    extra: dict = {}

    def before(q, t):
        """Forced to 1 when compute point q is strictly before compute point t (0, 1 or a binary)."""
        if pos[t] <= pos[q]:
            return 0
        if gap(q, t) >= 1:
            return 1
        if (q, t) not in extra:  # steps of zero duration: q and t may coincide
            var = pulp.LpVariable(f"z{pos[q]}_{pos[t]}", cat="Binary")
            extra[q, t] = var
            binaries.append(var)
            add(at(q) >= at(t) - big * var)
        return extra[q, t]

    def before_offload_end(q, j):
        """Forced to 1 when compute point q is strictly before the end of the offload of a_j (if offloaded)."""
        if j >= 1 and pos[q] <= pos[ef(j)] and gap(q, ef(j)) + tau_out[j] >= 1:
            return 1
        if pos[q] >= pos[sb(j + 1)]:
            return 0  # offload end <= prefetch start <= start B_{j+1} <= q
        if ("X", q, j) not in extra:
            var = pulp.LpVariable(f"v{pos[q]}_{j}", cat="Binary")
            extra["X", q, j] = var
            binaries.append(var)
            add(at(q) >= X[j] + tau_out[j] - big * var)
        return extra["X", q, j]

    # ---- residency intervals
    intervals = []  # (size, start, ends, gate)
    for i in range(n + 1):
        born = "zero" if i == 0 else sf(i)
        last = eb(n) if i == n else eb(i + 1)
        if i not in o:
            intervals.append((s[i], born, [last], None))
        else:
            intervals.append((s[i], born, [last], ("kept", i)))
            intervals.append((s[i], born, [("X", i), ef(i + 1)], ("off", i)))
            intervals.append((s[i], ("P", i), [last], ("off", i)))
    for i in range(n):
        intervals.append((s[i], sb(i + 1), [eb(i) if i >= 1 else eb(1)], None))
    for k in range(1, n + 1):
        intervals.append((wf[k - 1], sf(k), [ef(k)], None))
        intervals.append((wb[k - 1], sb(k), [eb(k)], None))
    intervals = [interval for interval in intervals if interval[0] > 0]
    counter = [0]

    def both(factors, ends):
        """Expression >= [all factors] AND [some end] (factors and ends: 0, 1 or 0/1 expressions)."""
        if any(isinstance(x, int) and x == 0 for x in factors):
            return 0
        factors = [x for x in factors if not isinstance(x, int)]
        if any(isinstance(x, int) and x == 1 for x in ends):
            ends = [1]
        ends = [x for x in ends if not (isinstance(x, int) and x == 0)]
        if not ends:
            return 0
        groups = [factors + ([] if isinstance(x, int) else [x]) for x in ends]
        if len(groups) == 1 and len(groups[0]) <= 1:
            return groups[0][0] if groups[0] else 1
        counter[0] += 1
        joint = pulp.LpVariable(f"c{counter[0]}", 0)
        for group in groups:
            add(joint >= pulp.lpSum(group) - (len(group) - 1))
        return joint

    def gate_of(gate):
        if gate is None:
            return 1
        kind, i = gate
        return 1 - o[i] if kind == "kept" else o[i]

    # Compute instants: starts of F_k and B_k.
    for q in [sf(k) for k in range(1, n + 1)] + [sb(k) for k in range(n, 0, -1)]:
        deadline.check("building the fixed-order MILP")
        terms = []
        for size, start, ends, gate in intervals:
            if start == "zero":
                ordered = 1
            elif start[0] == "P":
                ordered = 1 - order(start[1], q)  # [P_j < q]
            else:
                ordered = 1 if pos[start] <= pos[q] else 0
            end_flags = [before_offload_end(q, end[1]) if end[0] == "X" else before(q, end) for end in ends]
            count = both([gate_of(gate), ordered], end_flags)
            if not (isinstance(count, int) and count == 0):
                terms.append(size * count)
        lp += pulp.lpSum(terms) <= M, f"memory_{q[0]}{q[1]}"
    # Prefetch instants (rows relaxed when a_i is kept).
    slack = sum(size for size, *_ in intervals)
    for i in offloadable:
        deadline.check("building the fixed-order MILP")
        terms = []
        for size, start, ends, gate in intervals:
            if start == "zero":
                ordered = 1
            elif start[0] == "P":
                ordered = 1 if start[1] >= i else 0  # the prefetch chain: P_j <= P_i for j >= i
            else:
                ordered = order(i, start)
            # An offload end never exceeds P_i: its own offload precedes P_i, an earlier one (j < i)
            # precedes the offload of a_i in the chain, a later one (j > i) precedes P_j <= P_i.
            end_flags = [0 if end[0] == "X" else 1 - order(i, end) for end in ends]  # [P_i < end]
            count = both([gate_of(gate), ordered], end_flags)
            if not (isinstance(count, int) and count == 0):
                terms.append(size * count)
        lp += pulp.lpSum(terms) <= M + slack * (1 - o[i]), f"memory_P{i}"
    # The validator's row for steps of zero duration (implied by the sweep for the others).
    kept = 0
    for k in range(1, n + 1):
        if k >= 2:
            kept = kept + (s[k - 2] * (1 - o[k - 2]) if (k - 2) in o else s[k - 2])
        floor = max(s[k - 1] + s[k] + wf[k - 1], 2 * s[k - 1] + (s[n] if k == n else s[k]) + wb[k - 1])
        lp += kept + floor <= M
    # Cuts: [p <= P_i] is non-increasing along the stream.
    for i in offloadable:
        chain = [u[i, p] for p in points if (i, p) in u]
        for earlier, later in zip(chain, chain[1:]):
            lp += earlier >= later
    return _FixedOrderMilp(lp, SF, SB, o, X, P, binaries)


def _fixed_order_horizon(instance: Instance, time_limit: float, seed: int) -> Solution:
    """A schedule that keeps the fixed orders, as short as the heuristics find (its makespan is the big-M horizon).

    `best_heuristic_solution` may reorder the channels (its order local search), so its schedule
    is used only if `follows_fixed_orders` accepts it; otherwise its set, and offload-all, are timed
    by the simulator with its default orders (offloads in production order, prefetches in order of
    use: the fixed orders, checked again here).  Offload-all always fits on a feasible instance.
    """
    from .heuristics import best_heuristic_solution
    from .model import validate
    from .simulate import simulate

    heuristic = best_heuristic_solution(instance, time_limit=time_limit, seed=seed)
    candidates = [heuristic, simulate(instance, heuristic.offloaded), simulate(instance, instance.offloadable)]
    valid = [c for c in candidates if c is not None and follows_fixed_orders(instance, c) and not validate(instance, c)]
    return min(valid, key=lambda c: _makespan(instance, c))


def _milp_schedule(instance: Instance, model: _FixedOrderMilp, value) -> tuple[Solution, float]:
    """The MILP's schedule with its times rounded, and the largest distance of a time to its rounding."""
    chosen = [i for i, o in model.offloaded.items() if value(o) > 0.5]
    times = {"forward": [value(v) for v in model.forward_start], "backward": [value(v) for v in model.backward_start],
             "offload": {i: value(model.offload_start[i]) for i in chosen},
             "prefetch": {i: value(model.prefetch_start[i]) for i in chosen}}
    flat = times["forward"] + times["backward"] + list(times["offload"].values()) + list(times["prefetch"].values())
    drift = max((abs(t - round(t)) for t in flat), default=0.0)
    solution = Solution(tuple(chosen), tuple(round(t) for t in times["forward"]),
                        tuple(round(t) for t in times["backward"]),
                        {i: round(t) for i, t in times["offload"].items()},
                        {i: round(t) for i, t in times["prefetch"].items()})
    return solution, drift


def solve_milp_fixed_order(instance: Instance, *, time_limit: float | None = 60.0, seed: int = 0,
                           backend: str = "highs", threads: int = 2, heuristic_time: float | None = None) -> Result:
    """Exact MILP of the fixed-order restricted problem (module docstring); an upper bound of the problem.

    ``heuristic_time``: seconds for the heuristic whose makespan is the big-M horizon (default: a tenth
    of the time limit, at most 1 s).  The time limit covers every phase: the heuristic, the build (its
    rows are checked against the deadline), the hand-over to the backend and the solves.  When time runs
    out before the MILP has an incumbent, the horizon schedule (valid, keeps the orders) is returned.
    """
    from ..solvers.milp import solve_pulp
    from . import bounds
    from .model import validate

    threads = require_int(threads, "options.threads", minimum=1)
    check_feasible(instance)
    budget = 60.0 if time_limit is None else float(time_limit)
    deadline = Deadline.after(budget)
    reference = _fixed_order_horizon(instance, heuristic_time if heuristic_time is not None else min(1.0, 0.1 * budget),
                                     seed)
    horizon = _makespan(instance, reference)
    lower = math.ceil(bounds.best(instance) - 1e-9)  # a proven bound of the problem
    notes = [f"restricted model (offloads in increasing i, prefetches in decreasing i): horizon {horizon} "
             "from a heuristic schedule that keeps these orders"]

    def horizon_schedule(why: str, solver: str | None = None) -> Result:
        # Like the other exact methods' warm starts: the horizon schedule keeps the fixed orders, so it
        # is a solution of the restricted model, and a user who asked for a schedule gets one.
        objective = _makespan(instance, reference)
        return Result(PROBLEM, "milp-fixed-order", Status.OPTIMAL if objective <= lower else Status.FEASIBLE,
                      objective=objective, bound=lower, solution=reference,
                      notes=(*notes, f"{why}: the horizon schedule is returned"), solver=solver)

    building = time.perf_counter()
    try:
        model = build_milp_fixed_order(instance, horizon=horizon, deadline=deadline)
    except TimeLimitReached as reached:
        return horizon_schedule(str(reached))
    build_seconds = time.perf_counter() - building
    if time_limit is not None and deadline.remaining() < build_seconds:
        # Handing the model to the backend (PuLP writes every row again) takes about as long as building it
        # and cannot be interrupted: starting it now would overrun the limit.
        return horizon_schedule(f"built in {build_seconds:.1f} s, {deadline.remaining():.1f} s left, not enough "
                                "to hand the MILP to the backend")
    outcome = solve_pulp(model.lp, backend=backend, time_limit=deadline.remaining(), threads=threads, seed=seed)
    notes.append(f"milp {outcome.message}")
    if outcome.bound is not None:
        # The restricted optimum is an integer (module docstring), so the bound rounds up.
        notes.append(f"bound of the restricted model: {math.ceil(outcome.bound - 1e-6)}")
    if not outcome.has_solution:
        if outcome.status is Status.INFEASIBLE:  # the horizon's schedule is a solution: a modelling bug
            return Result(PROBLEM, "milp-fixed-order", Status.ERROR,
                          notes=(*notes, "restricted model infeasible although the horizon schedule keeps its orders"),
                          solver=outcome.backend)
        return horizon_schedule("no MILP incumbent in time", outcome.backend)
    value = round(outcome.objective)
    solution, drift = _milp_schedule(instance, model, outcome.value)
    if drift > 1e-6 or validate(instance, solution) or _makespan(instance, solution) != value:
        # Fix the binaries and solve the LP of the times: its vertices are integral (difference constraints).
        for var in model.binaries:
            var.lowBound = var.upBound = round(outcome.value(var))
        retimed = solve_pulp(model.lp, backend=backend, time_limit=deadline.remaining(), threads=threads, seed=seed)
        notes.append(f"times of the MILP incumbent off integers by {drift:.2g}: LP of the times re-solved")
        if retimed.has_solution:
            solution, drift = _milp_schedule(instance, model, retimed.value)
        if not retimed.has_solution or drift > 1e-6 or validate(instance, solution) \
                or _makespan(instance, solution) > value:
            left = deadline.remaining()
            timed, _ = exact_timing(instance, set(solution.offloaded), seed=seed,
                                    time_limit=None if left is None else max(0.0, left))
            solution = timed if timed is not None else reference
            notes.append("the MILP's offload set was re-timed by CP-SAT (exact_timing, orders free)"
                         if timed is not None else "the horizon schedule is returned")
    objective = _makespan(instance, solution)
    proven = objective <= lower  # a schedule that meets a proven bound of the problem is optimal
    if outcome.status is Status.OPTIMAL:
        notes.append(f"restricted optimum {value}" + (" meets the problem's lower bound" if proven else
                                                      f"; problem lower bound {lower}"))
    return Result(PROBLEM, "milp-fixed-order", Status.OPTIMAL if proven else Status.FEASIBLE, objective=objective,
                  bound=lower, solution=solution, notes=tuple(notes), solver=outcome.backend)
