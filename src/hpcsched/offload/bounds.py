"""Lower bounds on the makespan of ``offload``.

All three are valid for the problem as defined (not for a restricted model):

- `compute_bound`: Σ (f_i + b_i), the compute stream alone.
- `transfer_bound` (see `transfer_bound_parts` for the chained version
  actually computed): before F_k starts, the activations a_0..a_{k-2} that
  are still resident, plus a_{k-1}, a_k and wf_k, fit in M; so at least
  ``need_k = Σ_{i<=k-2} s_i + s_{k-1} + s_k + wf_k - M`` bytes of offloadable
  a_0..a_{k-2} have finished their offload.  a_i cannot leave before
  ``r_i = f_1 + .. + f_i``; a fluid channel of rate bandwidth_out that ships
  released bytes as early as possible (splitting allowed, latency ignored:
  a relaxation) needs time T_k to ship need_k bytes, so
  ``makespan >= T_k + Σ_{j>=k} f_j + Σ b``.  Mirror argument in the backward
  phase: at the start of B_k at least ``need'_k`` bytes of a_0..a_{k-2} are
  absent and must be prefetched after it, a_i before B_{i+1}, i.e. at least
  ``b_1 + .. + b_{i+1}`` before the end; in reversed time this is the same
  fluid problem.
- `lp_bound`: the LP "fractional offloading" relaxation (see `lp_relaxation`).

`best` returns the maximum of the cheap ones (compute and transfer bounds);
the LP is solved on demand because it costs a solver call.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Mapping

from ..core.deadline import Deadline
from ..core.result import Status
from .model import Instance, canonical_schedule, exchange_pairs, identical_classes


def earliest(*deadlines: Deadline | None) -> Deadline:
    """The earliest of ``deadlines`` (None entries and unlimited ones ignored; unlimited if all are)."""
    points = [d.at for d in deadlines if d is not None and d.at is not None]
    return Deadline(min(points) if points else None)


def compute_bound(instance: Instance) -> int:
    """Σ (f_i + b_i)."""
    return instance.compute_time


def _fluid_time(items: list[tuple[float, int]], need: int, rate: float | None) -> float:
    """Earliest time a fluid channel has shipped ``need`` bytes of ``items`` = [(release, bytes)] sorted."""
    if need <= 0:
        return 0.0
    time, shipped = 0.0, 0
    for release, size in items:
        time = max(time, release)
        if rate is None:
            shipped += size
            if shipped >= need:
                return time
            continue
        if shipped + size >= need:
            return time + (need - shipped) / rate
        time += size / rate
        shipped += size
    return float("inf")  # cannot happen on a feasible instance (need <= offloadable bytes)


class _WholeItemShipping:
    """Earliest time a channel has shipped at least c units with whole items (incremental DP).

    Items arrive in release order; a subset is best processed in that order
    (earliest release first), so ``best[c]`` = the earliest completion of a
    subset of the items seen so far whose rounded-up sizes sum to c units
    (capped at the total).  Rounding sizes *up* keeps it a relaxation.
    """

    def __init__(self, total_units: int):
        import numpy as np

        self.np = np
        self.best = np.full(total_units + 1, np.inf)
        self.best[0] = 0.0

    def add(self, release: float, units: int, duration: float) -> None:
        np = self.np
        finish = np.maximum(self.best, release) + duration
        shifted = np.full_like(self.best, np.inf)
        top = len(self.best) - 1
        if units >= top:
            shifted[top] = finish.min()
        else:
            shifted[units:top] = finish[: top - units]
            shifted[top] = min(finish[top - units:].min(), np.inf)
        self.best = np.minimum(self.best, shifted)

    def earliest(self, units: int) -> float:
        if units <= 0:
            return 0.0
        if units >= len(self.best):
            return float("inf")
        return float(self.best[units:].min())


def transfer_bound(instance: Instance, *, buckets: int = 2000) -> float:
    """The transfer bound of the module docstring: `transfer_bound_parts` summed, rounded up."""
    import math

    forward_end, backward_span = transfer_bound_parts(instance, buckets=buckets)
    best = forward_end + backward_span
    return math.ceil(best - 1e-9) if math.isfinite(best) else best


def transfer_bound_parts(instance: Instance, *, buckets: int = 2000) -> tuple[float, float]:
    """(earliest end of the forward phase, shortest backward phase): the transfer bound.

    See `transfer_bound_chains` for the argument.
    """
    start, to_end = transfer_bound_chains(instance, buckets=buckets)
    n = instance.n_layers
    return start[n] + instance.forward[n - 1], to_end[n]


def transfer_bound_chains(instance: Instance, *, buckets: int = 2000) -> tuple[list[float], list[float]]:
    """(S, Z): S[k] <= start of F_k and Z[k] <= makespan - start of B_k (k = 1..L, index 0 unused).

    Forward, chained over k: ``S_k``, a lower bound on the start of F_k, is
    the larger of ``S_{k-1} + f_{k-1}`` and T_k, the earliest time the bytes
    that must be gone before F_k (``need_k``) can have left.  a_i cannot
    leave before F_i ends (>= S_i + f_i); T_k is the larger of a fluid
    estimate (bytes split at will) and a whole-item one (each activation
    leaves in one piece taking tau_out, earliest release first; sizes
    rounded up to ``Σ s / buckets``).

    Backward, chained in reversed time: ``Z_k`` bounds the time from the
    start of B_k to the end.  Nothing is allocated for B_k's own data during
    B_k, so the bytes absent just before B_k ends (``need'_k``) are
    prefetched after B_k ends, a_i before B_{i+1} starts, i.e. at least
    ``Z_{i+1}`` before the end; ``Y_k``, the time after B_k, is the larger of
    ``Z_{k-1}`` and the earliest reversed completion of those prefetches, and
    ``Z_k = Y_k + b_k``.  Steps of zero duration impose nothing (they contain
    no instant).  The forward phase ends before B_L starts, so the bound is
    ``S_L + f_L + Z_L``.
    """
    n, s = instance.n_layers, instance.activation
    f, b = instance.forward, instance.backward
    offloadable = set(instance.offloadable)
    prefix_s = [0] * (n + 2)
    for i in range(n + 1):
        prefix_s[i + 1] = prefix_s[i] + s[i]
    unit = max(1, -(-sum(s[i] for i in offloadable) // buckets))
    total_units = sum(-(-s[i] // unit) for i in offloadable)

    def units(need: int) -> int:
        return -(-need // unit)

    # Forward phase.
    start = [0.0] * (n + 1)  # start[k]: lower bound on the start of F_k (1-based)
    items: list[tuple[float, int]] = []
    shipping = _WholeItemShipping(total_units)
    for k in range(2, n + 1):
        start[k] = start[k - 1] + f[k - 2]
        i = k - 2
        if i in offloadable:
            release = 0.0 if i == 0 else start[i] + f[i - 1]
            items.append((release, s[i]))
            shipping.add(release, units(s[i]), instance.offload_time(i))
        need = prefix_s[k - 1] + s[k - 1] + s[k] + instance.workspace_forward[k - 1] - instance.memory
        if need > 0 and f[k - 1] > 0:
            start[k] = max(start[k], _fluid_time(items, need, instance.bandwidth_out), shipping.earliest(units(need)))
    # Backward phase in reversed time.
    to_end = [0.0] * (n + 1)  # to_end[k]: lower bound on (makespan - start of B_k)
    items = []
    shipping = _WholeItemShipping(total_units)
    for k in range(1, n + 1):
        after = to_end[k - 1] if k >= 2 else 0.0
        if k >= 2:
            i = k - 2
            if i in offloadable:
                items.append((to_end[k - 1], s[i]))  # a_{k-2} is back before B_{k-1} starts
                shipping.add(to_end[k - 1], units(s[i]), instance.prefetch_time(i))
            gradient_in = s[n] if k == n else s[k]
            need = prefix_s[k - 1] + 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1] - instance.memory
            if need > 0 and b[k - 1] > 0:
                after = max(after, _fluid_time(items, need, instance.bandwidth_in), shipping.earliest(units(need)))
        to_end[k] = after + b[k - 1]
    return start, to_end


def lp_relaxation(instance: Instance, *, time_limit: float | None = None,
                  integer: bool = False, volume_rows: bool = False,
                  deadline: Deadline | None = None) -> tuple[float | None, dict[int, float], Any]:
    """Solve the fractional-offloading LP; return (bound, fractional o_i, outcome).

    ``time_limit`` covers building and solving (on a 1,103-layer chain the
    build alone takes seconds); ``deadline``, the caller's, also stops it.
    When either passes during the build, `TimeLimitReached` is raised; the
    solve gets what is left.  The bound is None unless the LP was solved to
    optimality; the fractions are those of the LP point when the solver
    stopped at a primal feasible one (still a fine rounding guide, no bound).

    Variables: starts SF_k, SB_k; o_i in [0, 1]; q_ik in [0, o_i], the part of
    a_i whose offload is finished when F_k starts (i <= k-2); r_ik in
    [0, o_i], the part of a_i absent when B_k starts (i <= k-2).  Rows:
    - compute order and makespan = SB_1 + b_1;
    - memory at the start of F_k and of B_k with a_i counted as s_i (1 - q)
      and s_i (1 - r) (s_i (1 - o_i) for a step of zero duration: only the
      kept activations are checked at its instant, see `model`);
    - out channel: the q-parts of a_{i0}..a_{k-2} were shipped between the
      end of F_{i0} and SF_k (for a set of i0);
    - in channel: the r-parts of a_{i1}..a_{k-2} arrive between SB_k and the
      start of B_{i1+1};
    - each offloaded a_i travels out and back between F_i and B_{i+1}, and
      all offloaded a_i, i >= i1, travel out (and back) between the end of
      F_{i1} and the start of B_{i1+1}.
    Each row holds for every feasible schedule with q, r, o in {0, 1}, so the
    LP optimum is a lower bound.  With ``integer=True`` o, q, r are binary
    (the "relaxation MILP": still a relaxation, much tighter); then the
    returned value is the MILP's proven dual bound (valid at a time limit).  Latency is kept inside tau (exact for
    integer o).  For L > 60 only i0 at distances 1, 2, 4, ... from k are
    written (fewer rows: still a relaxation); for L > 120 the q, r variables
    exist only for the 60 (16 when L > 400) activations before k, older offloaded ones count
    as absent (optimistic: still a relaxation).
    """
    import pulp

    from ..solvers.milp import solve_pulp

    clock = earliest(Deadline.after(time_limit), deadline)
    n, s = instance.n_layers, instance.activation
    f, b = instance.forward, instance.backward
    wf, wb, M = instance.workspace_forward, instance.workspace_backward, instance.memory
    offloadable = list(instance.offloadable)
    tau_out = {i: instance.offload_time(i) for i in offloadable}
    tau_in = {i: instance.prefetch_time(i) for i in offloadable}
    lp = pulp.LpProblem("offload_lp", pulp.LpMinimize)
    SF, SB = compute_chain(lp, f, b)
    category = pulp.LpBinary if integer else pulp.LpContinuous
    o = {i: pulp.LpVariable(f"o{i}", 0, 1, cat=category) for i in offloadable}
    q: dict[tuple[int, int], Any] = {}
    r: dict[tuple[int, int], Any] = {}

    def distances(k: int) -> list[int]:
        if n <= 60:
            return list(range(0, k - 1))
        chosen, step = set(), 1
        while k - 1 - step >= 0:
            chosen.add(k - 1 - step)
            step *= 2
        chosen.add(0)
        return sorted(chosen)

    window = n if n <= 120 else (60 if n <= 400 else 16)
    for k in range(2, n + 1):
        clock.check("building the LP relaxation")
        early = [i for i in offloadable if k - 2 - window < i <= k - 2]
        # Activations older than the window count as gone as soon as they are offloaded
        # (optimistic, so still a relaxation): this keeps the LP at O(L * window) variables.
        old = [i for i in offloadable if i <= k - 2 - window]
        pinned = sum(s[i] for i in range(k - 1) if i not in o) + pulp.lpSum(s[i] * (1 - o[i]) for i in old)
        for i in early:
            q[i, k] = pulp.LpVariable(f"q{i}_{k}", 0, 1, cat=category)
            lp += q[i, k] <= o[i]
            r[i, k] = pulp.LpVariable(f"r{i}_{k}", 0, 1, cat=category)
            lp += r[i, k] <= o[i]
        # At the start of a step of zero duration nothing is resident in the half-open sense; the
        # validator checks only the kept activations with its floor there (o, not q or r).
        absent_f = q if f[k - 1] > 0 else {(i, k): o[i] for i in early}
        absent_b = r if b[k - 1] > 0 else {(i, k): o[i] for i in early}
        lp += pinned + pulp.lpSum(s[i] * (1 - absent_f[i, k]) for i in early) + s[k - 1] + s[k] + wf[k - 1] <= M
        gradient_in = s[n] if k == n else s[k]
        lp += (pinned + pulp.lpSum(s[i] * (1 - absent_b[i, k]) for i in early) + 2 * s[k - 1] + gradient_in
               + wb[k - 1] <= M)
        for i0 in distances(k):
            if early and i0 < early[0]:
                continue
            part = [i for i in early if i >= i0]
            if not part:
                continue
            released = 0 if i0 == 0 else SF[i0 - 1] + f[i0 - 1]
            lp += SF[k - 1] >= released + pulp.lpSum(tau_out[i] * q[i, k] for i in part)
            # Prefetches of a_i, i >= i0, end before B_{i0+1} starts.
            lp += SB[i0] >= SB[k - 1] + pulp.lpSum(tau_in[i] * r[i, k] for i in part)
    for i in offloadable:
        produced = 0 if i == 0 else SF[i - 1] + f[i - 1]
        lp += SB[i] >= produced + (tau_out[i] + tau_in[i]) * o[i]
    # Every offloaded a_i, i >= i1, travels out and back between the end of F_{i1} and the
    # start of B_{i1+1} (a_i's prefetch ends before B_{i+1}, which precedes B_{i1+1}).
    # Suffix sums through auxiliary variables keep the rows sparse.
    suffix_out: dict[int, Any] = {}
    suffix_in: dict[int, Any] = {}
    following = None
    for i1 in reversed(offloadable if volume_rows else []):
        suffix_out[i1] = pulp.LpVariable(f"U{i1}", lowBound=0)
        suffix_in[i1] = pulp.LpVariable(f"V{i1}", lowBound=0)
        lp += suffix_out[i1] == tau_out[i1] * o[i1] + (suffix_out[following] if following is not None else 0)
        lp += suffix_in[i1] == tau_in[i1] * o[i1] + (suffix_in[following] if following is not None else 0)
        following = i1
        produced = 0 if i1 == 0 else SF[i1 - 1] + f[i1 - 1]
        if instance.duplex == "full":
            lp += SB[i1] >= produced + suffix_out[i1]
            lp += SB[i1] >= produced + suffix_in[i1]
        else:
            lp += SB[i1] >= produced + suffix_out[i1] + suffix_in[i1]
    if instance.duplex == "half":
        # One channel carries every transfer, all within [0, start of B_1].
        lp += SB[0] >= pulp.lpSum((tau_out[i] + tau_in[i]) * o[i] for i in offloadable)
    clock.check("building the LP relaxation")
    outcome = solve_pulp(lp, time_limit=clock.remaining())
    fractions = {i: float(o[i].value() or 0.0) for i in offloadable} if outcome.has_solution else {}
    if integer:
        # Any proven bound of this relaxation is a bound of the problem.
        return outcome.bound, fractions, outcome
    if outcome.status is not Status.OPTIMAL:
        return None, fractions, outcome  # a point, not the LP optimum: no bound
    return float(outcome.objective), fractions, outcome


def lp_bound(instance: Instance, *, time_limit: float | None = None) -> float | None:
    """The LP relaxation bound rounded up to an integer (times are integers), or None."""
    import math

    value, _, _ = lp_relaxation(instance, time_limit=time_limit)
    return None if value is None else math.ceil(value * (1 - 1e-9) - 1e-6)


def relaxation_milp_bound(instance: Instance, *, time_limit: float | None = 10.0) -> float | None:
    """Proven bound of the relaxation MILP (binary o, q, r), rounded up, or None."""
    import math

    value, _, _ = lp_relaxation(instance, time_limit=time_limit, integer=True)
    return None if value is None or not math.isfinite(value) else math.ceil(value * (1 - 1e-9) - 1e-6)


def best(instance: Instance) -> float:
    """max(compute bound, transfer bound): cheap, valid for every instance."""
    return max(compute_bound(instance), transfer_bound(instance))


def compute_chain(lp: Any, forward, backward, upper: float | None = None) -> tuple[list, list]:
    """Start variables of F_1..F_L and B_1..B_L in the serial order F_1..F_L, B_L..B_1.

    Adds the precedence rows of the compute stream and the objective "end of
    B_1" to the PuLP model ``lp``; shared by the LP relaxation and the
    fixed-order MILP, whose compute stream is the same.
    """
    import pulp

    n = len(forward)
    SF = [pulp.LpVariable(f"SF{k}", 0, upper) for k in range(1, n + 1)]
    SB = [pulp.LpVariable(f"SB{k}", 0, upper) for k in range(1, n + 1)]
    lp += SB[0] + backward[0]
    for k in range(1, n):
        lp += SF[k] >= SF[k - 1] + forward[k - 1]
    lp += SB[n - 1] >= SF[n - 1] + forward[n - 1]
    for k in range(1, n):
        lp += SB[k - 1] >= SB[k] + backward[k]
    return SF, SB


def instant_relaxation(instance: Instance, *, upper: int, time_limit: float | None = 30.0, seed: int = 0,
                       workers: int = 2, hint: Any = None, log: bool = False, start_rows: bool = False,
                       prefetch_rows: Iterable[tuple[int, int]] = (),
                       fixed_offload: Mapping[int, bool] | None = None, exchange: bool = True,
                       deterministic_time: float | None = None,
                       deadline: Deadline | None = None) -> tuple[Any, Any]:
    """CP-SAT model of the *instant relaxation*; returns (outcome, the model's variables).

    ``time_limit`` (wall-clock seconds) and ``deterministic_time`` (CP-SAT's
    deterministic units, the same on any machine) limit the solve;
    ``deadline`` is checked while the model is built (`TimeLimitReached`).

    A relaxation that keeps one offload set and the two transfer sequences
    of the whole schedule (so it couples the forward and the backward phase)
    but checks memory only at 2L instants, with linear rows:

    - variables: starts of F_k and B_k in the serial order; for each
      offloadable a_i a presence o_i, the end e_i of its offload and the
      start p_i of its prefetch, optional intervals ``[e_i - τout_i, e_i)``
      and ``[p_i, p_i + τin_i)`` in one NoOverlap per channel (one for both on
      a half-duplex link), ``e_i - τout_i >= end F_i``, ``p_i >= e_i``,
      ``p_i + τin_i <= start B_{i+1}``; objective end of B_1;
    - at ``t = start F_k`` (f_k > 0): booleans x_ik (a_i absent at t,
      i <= k-2) with ``x_ik => o_i, e_i <= t, p_i >= t + 1`` and
      ``Σ s_i x_ik >= need_k`` (the `transfer_bound_parts` need);
    - at ``t = end B_k - 1`` (b_k > 0, k >= 2): booleans y_ik with
      ``y_ik => o_i, e_i <= t, p_i >= t + 1`` and ``Σ s_i y_ik >= need'_k``;
    - the chains of the transfer bound (`transfer_bound_chains`) as lower
      bounds on every start of F_k and on every (end of B_1 - start of B_k).

    Proof that its optimum (hence any proven CP-SAT bound of it) is a lower
    bound: take any valid schedule (integer times) and set o, e, p, the
    starts from it, x_ik = [a_i absent at start F_k], y_ik = [a_i absent at
    end B_k - 1].  Transfers, precedences and channels are the schedule's.
    At ``t = start F_k`` with f_k > 0 the half-open residency intervals
    containing t are (rule 3): every a_i, i <= k-2, except the absent ones
    (an offloaded a_i, whose out-part ends at ``max(e_i, end F_{i+1})`` with
    ``end F_{i+1} <= t``, is absent iff ``e_i <= t < p_i``; a kept one lives
    until end B_{i+1} > t); a_{k-1} (kept until end B_k, or its out-part
    lasts until at least end F_k > t); a_k and wf_k (both start at t and
    last at least f_k > 0).  So ``Σ_{i<=k-2} s_i - Σ s_i x_ik + s_{k-1} +
    s_k + wf_k <= M``, the x row.  At ``t = end B_k - 1`` with b_k > 0 (so
    t >= start B_k >= end F_L): a_i, i <= k-2, is resident unless
    ``e_i <= t < p_i`` (its kept interval and in-part end at end B_{i+1} >=
    end B_k > t); a_{k-1} (its prefetch ended before B_k started), δ_{k-1}
    (from start B_k to end B_{k-1} >= end B_k), the incoming gradient δ_k
    (a_L for k = L) and wb_k are resident: the y row.  The transfer-bound
    chains hold for every schedule (`transfer_bound_chains`).  So every
    schedule is a solution of the relaxation with the same makespan.

    Optional rows at more instants (each valid by the same argument; off by
    default, `missing_rows` finds the ones a relaxed solution breaks):

    - ``start_rows``: at ``t = start B_k`` (k >= 2, b_k > 0), the allocation of
      δ_{k-1}: a_i (i <= k-2) unless absent at t, a_{k-1}, δ_{k-1}, δ_k (a_L
      for k = L) and wb_k.  The row at end B_k - 1 misses the case of an
      offload that ends during B_k: it counts the activation absent, while
      it was resident at the start of B_k.
    - ``prefetch_rows`` (j, k): at ``t = p_j`` when the prefetch of a_j
      starts during B_k (k >= j + 2; the row is enforced by a literal that
      ``start B_k <= p_j < end B_k`` implies): a_j, a_{k-1}, δ_{k-1}, δ_k,
      wb_k and every a_i (i <= k-2, i != j) unless absent at t.  It closes
      the same loophole for allocations by prefetches: on VGG16 / PCIe 3 at
      60 % the relaxed optimum (≤ 1,062,716) starts four prefetches during
      B_29 while an offload ends at end B_29 - 1.

    ``fixed_offload`` (activation -> offloaded or kept) restricts the
    relaxation to the schedules with those decisions: a branch of a search
    over offload sets, where an INFEASIBLE answer rules out the whole branch.

    ``exchange`` (default on) adds ``o_j => o_i`` for the pairs of
    `model.exchange_pairs` (activations of equal size): every schedule has a
    canonical one with the same makespan (`model.canonical_schedule`), which
    is a solution, so the optimum and every refutation stay valid for the
    original problem.  It also orders the offloads of equal activations
    a_i, a_j (i < j, same group, both offloaded): ``e_i <= e_j`` or
    ``p_j < e_i``.  Any solution can be brought to that form with the same
    makespan: while some pair has ``e_j < e_i <= p_j``, swap e_i and e_j.
    The channel carries the same intervals (equal sizes), releases hold
    (a_i is released first, a_j now leaves later), ``p >= e`` holds
    (``p_i >= e_i > e_j`` and ``p_j >= e_i``), deadlines and prefetch
    instants do not move, and at every instant the pair counts as many
    absent activations as before, a_i (in every row a_j is in) at least as
    often; each swap removes an inversion of the group's offload order, so
    this ends.  A branch whose fixed decisions break a pair is then
    INFEASIBLE: none of its schedules is canonical, and the canonical
    equivalents of its schedules lie in other branches.  On VGG16 the pairs
    leave 512,000 of the 2^36 offload sets.

    The makespan and the variables are bounded by ``upper``: if ``upper`` is
    the makespan of a schedule (e.g. a heuristic's), an optimal schedule is
    still a solution, so CP-SAT's bound stays valid; if the model is
    infeasible, no schedule has makespan <= ``upper``, so ``upper + 1`` is a
    bound (whatever ``upper`` is; `relaxation_outcome_bound`).  Called with
    a guess below the best known makespan this is a destructive lower bound
    test.  ``hint``: a `Solution` used as a
    complete hint.
    """
    import math

    from ..solvers.cpsat import new_model, solve_cpsat

    n, s = instance.n_layers, instance.activation
    f, b = instance.forward, instance.backward
    wf, wb, M = instance.workspace_forward, instance.workspace_backward, instance.memory
    H = int(upper) + 1
    model = new_model()
    sf = [model.new_int_var(0, H, f"sf{k}") for k in range(1, n + 1)]
    sb = [model.new_int_var(0, H, f"sb{k}") for k in range(1, n + 1)]
    for k in range(n - 1):
        model.add(sf[k + 1] >= sf[k] + f[k])
    model.add(sb[n - 1] >= sf[n - 1] + f[n - 1])
    for k in range(n - 1):
        model.add(sb[k] >= sb[k + 1] + b[k + 1])
    makespan = sb[0] + b[0]
    offloadable = list(instance.offloadable)
    o, e, p = {}, {}, {}
    out_intervals, in_intervals = [], []
    for i in offloadable:
        tau_out, tau_in = instance.offload_time(i), instance.prefetch_time(i)
        o[i] = model.new_bool_var(f"o{i}")
        e[i] = model.new_int_var(0, H, f"e{i}")
        p[i] = model.new_int_var(0, H, f"p{i}")
        out_intervals.append(model.new_optional_interval_var(e[i] - tau_out, tau_out, e[i], o[i], f"out{i}"))
        in_intervals.append(model.new_optional_fixed_size_interval_var(p[i], tau_in, o[i], f"in{i}"))
        released = 0 if i == 0 else sf[i - 1] + f[i - 1]
        model.add(e[i] >= released + tau_out).only_enforce_if(o[i])
        model.add(p[i] >= e[i]).only_enforce_if(o[i])
        model.add(p[i] + tau_in <= sb[i]).only_enforce_if(o[i])
    if instance.duplex == "full":
        model.add_no_overlap(out_intervals)
        model.add_no_overlap(in_intervals)
    else:
        model.add_no_overlap(out_intervals + in_intervals)
    prefix = [0] * (n + 2)
    for i in range(n + 1):
        prefix[i + 1] = prefix[i] + s[i]
    absent: dict[tuple[str, int, int], Any] = {}
    deadline = deadline if deadline is not None else Deadline(None)

    def absent_row(kind: str, k: int, instant, need: int, resident: int | None = None, enforce: tuple = ()) -> None:
        """Σ s_i [a_i absent at instant] >= need over offloadable i <= k-2 (but ``resident``)."""
        chosen = []
        for i in offloadable:
            if i > k - 2:
                break
            if i == resident:
                continue
            x = model.new_bool_var(f"{kind}{i}_{k}")
            model.add_implication(x, o[i])
            model.add(e[i] <= instant).only_enforce_if(x)
            model.add(p[i] >= instant + 1).only_enforce_if(x)
            absent[kind, i, k] = x
            chosen.append((s[i], x))
        model.add(sum(size * x for size, x in chosen) >= need).only_enforce_if(list(enforce))

    for k in range(2, n + 1):
        deadline.check("building the instant relaxation")
        need = prefix[k - 1] + s[k - 1] + s[k] + wf[k - 1] - M
        if need > 0 and f[k - 1] > 0:
            absent_row("x", k, sf[k - 1], need)
        gradient_in = s[n] if k == n else s[k]
        need = prefix[k - 1] + 2 * s[k - 1] + gradient_in + wb[k - 1] - M
        if need > 0 and b[k - 1] > 0:
            absent_row("y", k, sb[k - 1] + b[k - 1] - 1, need)
    for k in range(2, n + 1) if start_rows else ():
        need = prefix[k - 1] + 2 * s[k - 1] + (s[n] if k == n else s[k]) + wb[k - 1] - M
        if need > 0 and b[k - 1] > 0:  # with b_k = 0, δ_k is released at t (half-open intervals)
            absent_row("z", k, sb[k - 1], need)
    prefetch_instants: dict[str, int] = {}  # row kind -> the activation whose prefetch start it checks
    for j, k in prefetch_rows:
        if j not in o or not j + 2 <= k <= n:
            raise ValueError(f"prefetch row ({j}, {k}): a{j} must be offloadable and prefetched during B{k}, k >= j + 2")
        need = prefix[k - 1] + 2 * s[k - 1] + (s[n] if k == n else s[k]) + wb[k - 1] - M
        if need <= 0:
            continue
        before, after, inside = (model.new_bool_var(f"{name}{j}_{k}") for name in ("pre", "post", "in"))
        model.add(p[j] <= sb[k - 1] - 1).only_enforce_if(before)
        model.add(p[j] >= sb[k - 1] + b[k - 1]).only_enforce_if(after)
        model.add_bool_or([before, after, inside, o[j].Not()])
        absent_row(f"q{j}_", k, p[j], need, resident=j, enforce=(inside, o[j]))
        prefetch_instants[f"q{j}_"] = j
    chain_start, chain_to_end = transfer_bound_chains(instance)
    for k in range(1, n + 1):
        if math.isfinite(chain_start[k]):
            model.add(sf[k - 1] >= math.ceil(chain_start[k] - 1e-9))
        if math.isfinite(chain_to_end[k]):
            model.add(makespan - sb[k - 1] >= math.ceil(chain_to_end[k] - 1e-9))
    model.add(makespan <= int(upper))
    if exchange:
        for i, j in exchange_pairs(instance):
            model.add_implication(o[j], o[i])
        for group in identical_classes(instance):
            for i, j in itertools.combinations(group, 2):
                # Out-channel order of equal offloads: a_i leaves first unless a_j is back before a_i has left.
                leaves_first = model.new_bool_var(f"first{i}_{j}")
                model.add(e[i] <= e[j]).only_enforce_if([leaves_first, o[i], o[j]])
                model.add(p[j] + 1 <= e[i]).only_enforce_if([~leaves_first, o[i], o[j]])
        if hint is not None:
            hint = canonical_schedule(instance, hint)
    for i, offloaded in (fixed_offload or {}).items():
        if i not in o:
            raise ValueError(f"fixed_offload: a{i} is not offloadable")
        model.add(o[i] == int(bool(offloaded)))
    model.minimize(makespan)
    if hint is not None:
        for k in range(n):
            model.add_hint(sf[k], hint.forward_start[k])
            model.add_hint(sb[k], hint.backward_start[k])
        for i in offloadable:
            chosen = i in hint.offloaded
            model.add_hint(o[i], chosen)
            if chosen:
                end_out = hint.offload_start[i] + instance.offload_time(i)
                model.add_hint(e[i], end_out)
                model.add_hint(p[i], hint.prefetch_start[i])
        for (kind, i, k), x in absent.items():
            if kind in prefetch_instants:
                instant = hint.prefetch_start.get(prefetch_instants[kind])
                if instant is None:  # a_j kept in the hint: its row is not enforced, x is free
                    continue
            else:
                instant = {"x": hint.forward_start[k - 1], "y": hint.backward_start[k - 1] + b[k - 1] - 1,
                           "z": hint.backward_start[k - 1]}[kind]
            gone = i in hint.offloaded and (hint.offload_start[i] + instance.offload_time(i) <= instant
                                            < hint.prefetch_start[i])
            model.add_hint(x, gone)
    deadline.check("building the instant relaxation")
    if deadline.at is not None:
        time_limit = deadline.remaining() if time_limit is None else min(time_limit, deadline.remaining())
    outcome = solve_cpsat(model, time_limit=time_limit, deterministic_time=deterministic_time, workers=workers,
                          seed=seed, log=log)
    return outcome, (sf, sb, o, e, p)


def relaxed_solution(instance: Instance, outcome: Any, handles: Any) -> Any:
    """The values of an `instant_relaxation` solution as a `Solution` (not necessarily a valid schedule)."""
    from .model import Solution

    forward, backward, chosen, end_out, start_in = handles
    value = outcome.value
    offloaded = [i for i, o in chosen.items() if value(o) > 0.5]
    return Solution(offloaded=offloaded, forward_start=[value(x) for x in forward],
                    backward_start=[value(x) for x in backward],
                    offload_start={i: value(end_out[i]) - instance.offload_time(i) for i in offloaded},
                    prefetch_start={i: value(start_in[i]) for i in offloaded})


def missing_rows(instance: Instance, solution: Any) -> tuple[bool, list[tuple[int, int]]]:
    """The optional rows of `instant_relaxation` that ``solution`` (a relaxed one) breaks.

    Returns ``(start_rows, prefetch_rows)``: whether memory is over the
    budget at the start of some B_k, and every (j, k) such that the prefetch
    of a_j starts during B_k with memory over the budget.  Adding them and
    solving again is a cutting-plane loop on the relaxation (each row is
    valid for every schedule, so the loop stays a relaxation); a relaxed
    solution that `validate` accepts is a schedule.
    """
    import bisect

    from .model import memory_profile

    profile = memory_profile(instance, solution)
    times = [time for time, _ in profile]

    def over(instant: int) -> bool:
        at = bisect.bisect_right(times, instant) - 1
        return at >= 0 and profile[at][1] > instance.memory

    n, b = instance.n_layers, instance.backward
    starts = solution.backward_start
    start_rows = any(over(starts[k - 1]) for k in range(2, n + 1) if b[k - 1] > 0)
    rows = []
    for j in solution.offloaded:
        instant = solution.prefetch_start[j]
        for k in range(j + 2, n + 1):
            if starts[k - 1] <= instant < starts[k - 1] + b[k - 1] and over(instant):
                rows.append((j, k))
    return start_rows, rows


def relaxation_outcome_bound(instance: Instance, outcome: Any, upper: int) -> int:
    """The proven bound carried by an `instant_relaxation` outcome (at least `best`)."""
    import math

    from ..core.result import Status

    value = best(instance)
    if outcome.status is Status.INFEASIBLE:
        # No solution of the relaxation (hence no schedule) has makespan <= upper.
        return max(value, upper + 1)
    if outcome.status is Status.OPTIMAL and outcome.objective is not None:
        value = max(value, math.ceil(outcome.objective - 1e-6))
    elif outcome.bound is not None and math.isfinite(outcome.bound):
        value = max(value, math.ceil(outcome.bound - 1e-6))
    return value


def instant_relaxation_bound(instance: Instance, *, upper: int, time_limit: float | None = 30.0, seed: int = 0,
                             workers: int = 2, hint: Any = None, start_rows: bool = False,
                             prefetch_rows: Iterable[tuple[int, int]] = ()) -> int:
    """Proven lower bound from `instant_relaxation` (at least `best`).

    ``upper`` must be the makespan of a schedule (e.g. a heuristic's); then
    the result is at most ``upper``.
    """
    outcome, _ = instant_relaxation(instance, upper=upper, time_limit=time_limit, seed=seed, workers=workers,
                                    hint=hint, start_rows=start_rows, prefetch_rows=prefetch_rows)
    return relaxation_outcome_bound(instance, outcome, upper)


def instant_relaxation_search(instance: Instance, *, lower: int, upper: int, time_limit: float = 30.0,
                              seed: int = 0, workers: int = 2, hint: Any = None,
                              first_fraction: float = 0.15, probe_fraction: float = 0.75,
                              exchange: bool = True, deadline: Deadline | None = None) -> tuple[int, Any, Any]:
    """Destructive lower bounding with `instant_relaxation`: (bound, first outcome, its variables).

    ``lower`` must be a proven bound and ``upper`` the makespan of a
    schedule (``hint``, if given).  First the relaxation is minimized for
    ``first_fraction`` of the time (its best solution, returned for repair,
    caps what the relaxation can prove); then the relaxation with the
    makespan capped at X is solved for X a third of the way from the best
    proven bound to that cap (small steps: infeasibility far below the
    relaxed optimum is proven much faster): INFEASIBLE proves X + 1
    (`relaxation_outcome_bound`), a solution of value w shows the relaxation
    cannot prove more than w, a time-out makes X - 1 the new cap (later
    probes are closer to the bound).  Each probe gets ``probe_fraction`` of
    the time left (on VGG16 / PCIe 3, 60 s: 0.75 reached 1,060,762 at 60 %
    and nothing at 40 %; 0.5 reached 1,059,785 and 1,667,352).  The bound
    is valid whatever the probes' outcomes.  ``exchange``: as in
    `instant_relaxation`.  ``deadline`` (the caller's) stops the first
    model's build (`TimeLimitReached`) and the probes.
    """
    from ..core.deadline import TimeLimitReached

    deadline = earliest(Deadline.after(time_limit), deadline)
    outcome, handles = instant_relaxation(instance, upper=upper, time_limit=first_fraction * time_limit,
                                          seed=seed, workers=workers, hint=hint, exchange=exchange, deadline=deadline)
    bound = max(lower, relaxation_outcome_bound(instance, outcome, upper))
    cap = upper if outcome.objective is None else min(upper, int(round(outcome.objective)))
    if outcome.status is Status.OPTIMAL:
        return bound, outcome, handles
    cap -= 1  # the largest value still worth testing: a relaxed solution of value w proves nothing above w
    while bound <= cap:
        left = deadline.remaining()
        if left < 0.5:
            break
        probe = bound + (cap - bound) // 3
        try:
            result, _ = instant_relaxation(instance, upper=probe, time_limit=probe_fraction * left, seed=seed,
                                           workers=workers, exchange=exchange, deadline=deadline)
        except TimeLimitReached:
            break
        if result.status is Status.INFEASIBLE:
            bound = max(bound, relaxation_outcome_bound(instance, result, probe))
        elif result.has_solution:
            cap = min(cap, int(round(result.objective)) - 1)
            bound = max(bound, relaxation_outcome_bound(instance, result, probe))
        else:
            cap = probe - 1
    return bound, outcome, handles
