"""Round-2 experiments on closing the VGG16 / PCIe 3 gaps (see README.md, "Round 2").

    PYTHONPATH=src python benchmarks/offload/round2.py --time-limit 60

For each instance (default vgg16-pcie3-60 and vgg16-pcie3-40) it measures, one
after the other (never two solves at once):

- ``cpsat``: the default exact method (run_method, validated);
- ``cpsat-lbtree``: the full CP-SAT model of ``formulations.build_cpsat`` at
  1 us with the local-search incumbent as complete hint, ``bounds.best`` as a
  lower-bound constraint, and ``optimize_with_lb_tree_search`` (a search aimed
  at the bound);
- ``relaxation-milp``: ``bounds.lp_relaxation(integer=True, volume_rows=True)``
  (binary o, q, r; HiGHS);
- ``phase``: the phase decomposition bound below (forward-only and
  backward-only CP-SAT relaxations, half the time limit each).

Results go to results/round2.{csv,md}.  None of these is in the package: none
raised the proven bound on these instances.
"""

from __future__ import annotations

import argparse
import math
import time

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.offload import bounds
from hpcsched.offload.bounds import transfer_bound_parts
from hpcsched.offload.formulations import _extract, build_cpsat
from hpcsched.offload.model import Instance, evaluate, validate
from hpcsched.solvers.cpsat import new_model, solve_cpsat

from run import INSTANCES, _write


def phase_relaxation_bound(instance: Instance, *, upper: int, hint=None, time_limit: float | None = 30.0,
                           seed: int = 0, workers: int = 2):
    """Phase decomposition bound: (forward bound, backward bound, forward outcome, backward outcome).

    The makespan is at least (end of F_L) + (end of B_1 − start of B_L), and
    each term is bounded below by the optimum of a relaxation that keeps one
    phase only, solved by CP-SAT (its proven bound is used):

    - **forward relaxation**: F_1..F_L, the offloads on the out channel (on
      a half-duplex link the prefetches are dropped, a relaxation), memory
      over ``[0, E)`` with E = end of F_L: a_i from the start of F_i until E
      if kept, until ``min(max(end offload_i, end F_{i+1}), E)`` if offloaded,
      plus wf_k.  Every schedule restricted to ``[0, E)`` is a solution: its
      memory there is at least this (prefetch parts dropped, no gradient
      before B_L), and its offloads obey the same release and channel rules.
    - **backward relaxation**, time 0 = start of B_L: a_i is either present
      from 0 until the end of B_{i+1}, or prefetched in the backward phase
      (prefetch start >= 0, end <= start of B_{i+1}, resident from the
      prefetch start); gradients and wb as in the model.  A schedule maps to
      it with "prefetched" = offloaded with a prefetch starting at or after
      B_L's start (an earlier prefetch makes a_i resident from B_L's start,
      as a kept one; the part of an unfinished offload lying after B_L's
      start is dropped, a relaxation).

    The chained transfer bound's two parts (`transfer_bound_parts`) are
    derived from constraints both relaxations keep, so they are added as
    lower bounds on the relaxed objectives.  Variables are bounded by
    ``upper`` (a known makespan): a schedule of makespan > upper is above the
    bound anyway since the returned bound is at most ``upper``.  ``hint`` (a
    Solution) warm-starts both models.
    """
    import math


    n, s = instance.n_layers, instance.activation
    f, b = instance.forward, instance.backward
    wf, wb = instance.workspace_forward, instance.workspace_backward
    offloadable = set(instance.offloadable)
    forward_part, backward_part = transfer_bound_parts(instance)
    H = int(upper) + 1

    # Forward relaxation.
    model = new_model()
    sf = [model.new_int_var(0, H, f"sf{k}") for k in range(1, n + 1)]
    f_end = [sf[k] + f[k] for k in range(n)]
    end = f_end[n - 1]
    for k in range(n - 1):
        model.add(sf[k + 1] >= f_end[k])
    intervals, demands, channel, chosen = [], [], [], {}
    for k in range(n):
        if wf[k]:
            intervals.append(model.new_fixed_size_interval_var(sf[k], f[k], f"F{k + 1}"))
            demands.append(wf[k])
    zero = model.new_constant(0)
    for i in range(n + 1):
        if s[i] <= 0:
            continue
        born = zero if i == 0 else sf[i - 1]
        if i not in offloadable:
            length = model.new_int_var(0, H, f"len{i}")
            intervals.append(model.new_interval_var(born, length, end, f"kept{i}"))
            demands.append(s[i])
            continue
        o = model.new_bool_var(f"o{i}")
        chosen[i] = o
        tau = instance.offload_time(i)
        xo = model.new_int_var(0, H, f"xo{i}")
        channel.append(model.new_optional_fixed_size_interval_var(xo, tau, o, f"out{i}"))
        if i >= 1:
            model.add(xo >= f_end[i - 1]).only_enforce_if(o)
        capped = model.new_int_var(0, H + tau, f"cap{i}")
        model.add_min_equality(capped, [xo + tau, end])
        leave = model.new_int_var(0, H + tau, f"leave{i}")
        model.add(leave >= f_end[i]).only_enforce_if(o)
        model.add(leave >= capped).only_enforce_if(o)
        model.add(leave == end).only_enforce_if(~o)
        length = model.new_int_var(0, H + tau, f"len{i}")
        intervals.append(model.new_interval_var(born, length, leave, f"res{i}"))
        demands.append(s[i])
    model.add_cumulative(intervals, demands, instance.memory)
    model.add_no_overlap(channel)
    if math.isfinite(forward_part):
        model.add(end >= math.ceil(forward_part - 1e-9))
    model.minimize(end)
    if hint is not None:
        for k in range(n):
            model.add_hint(sf[k], hint.forward_start[k])
        for i, o in chosen.items():
            model.add_hint(o, i in hint.offloaded)
    forward = solve_cpsat(model, time_limit=None if time_limit is None else time_limit / 2, workers=workers,
                          seed=seed)

    # Backward relaxation (time 0 = start of B_L).
    model = new_model()
    sb = [model.new_int_var(0, H, f"sb{k}") for k in range(1, n + 1)]
    b_end = [sb[k] + b[k] for k in range(n)]
    model.add(sb[n - 1] == 0)
    for k in range(n - 1):
        model.add(sb[k] >= b_end[k + 1])
    intervals, demands, channel, chosen = [], [], [], {}
    for k in range(n):
        if wb[k]:
            intervals.append(model.new_fixed_size_interval_var(sb[k], b[k], f"B{k + 1}"))
            demands.append(wb[k])
    for i in range(n + 1):
        last_use = b_end[n - 1] if i == n else b_end[i]
        if s[i] <= 0:
            continue
        if i not in offloadable or i == n:
            length = model.new_int_var(0, H, f"len{i}")
            intervals.append(model.new_interval_var(model.new_constant(0), length, last_use, f"kept{i}"))
            demands.append(s[i])
            continue
        p = model.new_bool_var(f"p{i}")
        chosen[i] = p
        tau = instance.prefetch_time(i)
        xp = model.new_int_var(0, H, f"xp{i}")
        channel.append(model.new_optional_fixed_size_interval_var(xp, tau, p, f"in{i}"))
        model.add(xp + tau <= sb[i]).only_enforce_if(p)
        model.add(xp == 0).only_enforce_if(~p)
        length = model.new_int_var(0, H, f"len{i}")
        intervals.append(model.new_interval_var(xp, length, last_use, f"res{i}"))
        demands.append(s[i])
    for i in range(n):
        if s[i] > 0:
            stop = b_end[i - 1] if i >= 1 else b_end[0]
            length = model.new_int_var(0, H, f"glen{i}")
            intervals.append(model.new_interval_var(sb[i], length, stop, f"grad{i}"))
            demands.append(s[i])
    model.add_cumulative(intervals, demands, instance.memory)
    model.add_no_overlap(channel)
    if math.isfinite(backward_part):
        model.add(b_end[0] >= math.ceil(backward_part - 1e-9))
    model.minimize(b_end[0])
    if hint is not None:
        origin = hint.backward_start[n - 1]
        for k in range(n):
            model.add_hint(sb[k], hint.backward_start[k] - origin)
        for i, p in chosen.items():
            late = i in hint.offloaded and hint.prefetch_start[i] >= origin
            model.add_hint(p, late)
    backward = solve_cpsat(model, time_limit=None if time_limit is None else time_limit / 2, workers=workers,
                           seed=seed)

    def proven(outcome, part: float) -> int:
        value = math.ceil(part - 1e-9) if math.isfinite(part) else 0
        if outcome.status is Status.INFEASIBLE:  # only if ``upper`` was not a makespan: claim nothing more
            return value
        if outcome.bound is not None and math.isfinite(outcome.bound):
            value = max(value, math.ceil(outcome.bound - 1e-6))
        return value

    return proven(forward, forward_part), proven(backward, backward_part), forward, backward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--instances", default="vgg16-pcie3-60,vgg16-pcie3-40")
    parser.add_argument("--experiments", default="cpsat,cpsat-lbtree,relaxation-milp,phase")
    args = parser.parse_args()
    rows = []
    for name in args.instances.split(","):
        instance = read_instance(INSTANCES / f"{name}.json")
        incumbent = run_method(instance, "local-search", time_limit=5, seed=0)  # hint and upper bound
        upper = int(incumbent.objective)
        for experiment in args.experiments.split(","):
            started = time.perf_counter()
            status, objective, bound, detail = "-", None, None, ""
            if experiment == "cpsat":
                result = run_method(instance, "cpsat", time_limit=args.time_limit, seed=0)
                status, objective, bound = result.status.value, result.objective, result.bound
            elif experiment == "cpsat-lbtree":
                model, handles = build_cpsat(instance, horizon=upper, hint=incumbent.solution,
                                             lower=int(bounds.best(instance)))
                outcome = solve_cpsat(model, time_limit=args.time_limit, workers=2, seed=0,
                                      parameters={"optimize_with_lb_tree_search": True})
                status, bound = outcome.status.value, math.ceil(outcome.bound - 1e-6)
                # Re-check the schedule with the independent validator, as run_method would.
                solution = _extract(instance, handles, outcome.value)
                violations = validate(instance, solution)
                objective = evaluate(instance, solution)["objective"]
                detail = "validator: ok" if not violations else f"validator: {len(violations)} violations"
            elif experiment == "relaxation-milp":
                value, _, outcome = bounds.lp_relaxation(instance, time_limit=args.time_limit, integer=True,
                                                         volume_rows=True)
                status, bound = outcome.status.value, math.ceil(value - 1e-6)
                detail = f"relaxation optimum {outcome.objective}"
            elif experiment == "phase":
                forward, backward, fo, bo = phase_relaxation_bound(instance, upper=upper, hint=incumbent.solution,
                                                                   time_limit=args.time_limit)
                status, bound = f"{fo.status.value}/{bo.status.value}", forward + backward
                detail = (f"forward bound {forward} (best relaxed {fo.objective}), "
                          f"backward bound {backward} (best relaxed {bo.objective})")
                objective = upper
            runtime = time.perf_counter() - started
            if objective is None:
                objective = upper
            gap = round(100 * (objective - bound) / objective, 3) if bound else None
            row = [name, experiment, args.time_limit, status, objective, bound, gap, round(runtime, 1), detail]
            print(row, flush=True)
            rows.append(row)
    _write("round2", ["instance", "experiment", "time_limit_s", "status", "objective", "bound", "gap_%",
                      "runtime_s", "detail"], rows)


if __name__ == "__main__":
    main()
