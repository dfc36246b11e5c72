"""The LP "fractional offloading" relaxation: a lower bound and the fractions that guide lp-rounding.

Notes
-----
Variables, rows and the proof that every schedule is a solution (so the LP
optimum is a lower bound): docs/offload.md, "The LP relaxation".
"""

from __future__ import annotations

import bisect
import math
from typing import Any

from ...core.deadline import Deadline
from ...core.result import Status
from ..model import Instance
from .transfer import earliest

#: Rows added between two readings of the deadline while building (PuLP adds ~60,000 rows per second).
CHECK_EVERY = 1024

#: A lower estimate of the LP relaxation's build time per layer, in seconds. Measured (CPU, one core):
#: 2.7 ms per layer at 200 layers, 3.6 ms at 1,000, 9.5 ms at 3,000 (it grows with L); a machine
#: twice as fast still needs more than 1 ms per layer.
BUILD_SECONDS_PER_LAYER = 1e-3


def build_cannot_fit(instance: Instance, seconds: float) -> str | None:
    """Why the LP relaxation cannot be built in ``seconds`` (its least build time is longer), or None.

    A build stopped by its deadline gives neither a bound nor fractions, so a
    caller skips it and gives its time to the other phases.
    """
    least = BUILD_SECONDS_PER_LAYER * instance.n_layers
    if least <= seconds:
        return None
    return f"not built: at {instance.n_layers} layers its build takes more than {least:.3g} s"


def lp_variables(
    keys: Any, prefix: str, low: float | None, up: float | None, deadline: Deadline, cat: str = "Continuous"
) -> list:
    """PuLP variables named ``prefix + key`` for ``keys``; ``deadline`` read every `CHECK_EVERY` (~3,500 per second)."""
    import pulp

    made = []
    for count, key in enumerate(keys, 1):
        if count % CHECK_EVERY == 0:
            deadline.check(f"creating the {prefix} variables")
        made.append(pulp.LpVariable(f"{prefix}{key}", low, up, cat=cat))
    return made


def compute_chain(
    lp: Any, forward, backward, upper: float | None = None, deadline: Deadline | None = None
) -> tuple[list, list]:
    """Start variables of F_1..F_L and B_1..B_L in the serial order F_1..F_L, B_L..B_1.

    Adds the precedence rows of the compute stream and the objective "end of
    B_1" to the PuLP model ``lp``; shared by the LP relaxation and the
    fixed-order MILP, whose compute stream is the same. ``deadline`` is
    checked every `CHECK_EVERY` rows (2L rows: seconds at 10^5 layers);
    `TimeLimitReached` when it passes.
    """

    deadline = deadline or Deadline(None)
    n = len(forward)
    SF = lp_variables(range(1, n + 1), "SF", 0, upper, deadline)
    SB = lp_variables(range(1, n + 1), "SB", 0, upper, deadline)
    lp += SB[0] + backward[0]
    for k in range(1, n):
        if k % CHECK_EVERY == 0:
            deadline.check("building the compute chain's rows")
        lp += SF[k] >= SF[k - 1] + forward[k - 1]
    lp += SB[n - 1] >= SF[n - 1] + forward[n - 1]
    for k in range(1, n):
        if k % CHECK_EVERY == 0:
            deadline.check("building the compute chain's rows")
        lp += SB[k - 1] >= SB[k] + backward[k]
    return SF, SB


def lp_relaxation(
    instance: Instance, *, time_limit: float | None = None, deadline: Deadline | None = None
) -> tuple[float | None, dict[int, float], Any]:
    """Solve the fractional-offloading LP; return (bound, fractional o_i, outcome).

    ``time_limit`` covers building and solving (on a 1,103-layer chain the
    build alone takes seconds); ``deadline``, the caller's, also stops it.
    When either passes during the build, `TimeLimitReached` is raised; the
    solve gets what is left.  The bound is None unless the LP was solved to
    optimality; the fractions are those of the LP point when the solver
    stopped at a primal feasible one (still a fine rounding guide, no bound).

    Notes
    -----
    The model and its proof: docs/offload.md, "The LP relaxation".
    """
    from ...solvers.milp import solve_pulp

    clock = earliest(Deadline.after(time_limit), deadline)
    builder = _LpRelaxation(instance, clock)
    for k in range(2, instance.n_layers + 1):
        clock.check("building the LP relaxation")
        builder.add_step(k)
    builder.add_round_trips()
    builder.add_half_duplex_row()
    clock.check("building the LP relaxation")
    outcome = solve_pulp(builder.lp, time_limit=clock.remaining())
    o = builder.o
    fractions = {i: float(o[i].value() or 0.0) for i in builder.offloadable} if outcome.has_solution else {}
    if outcome.status is not Status.OPTIMAL or outcome.objective is None:
        return None, fractions, outcome  # a point, not the LP optimum: no bound
    return float(outcome.objective), fractions, outcome


class _LpRelaxation:
    """The PuLP model of `lp_relaxation`, built one row family at a time (in the order the rows are written)."""

    def __init__(self, instance: Instance, deadline: Deadline | None = None):
        import pulp

        self.pulp = pulp
        self.instance = instance
        n = instance.n_layers
        self.n, self.s = n, instance.activation
        self.offloadable = sorted(instance.offloadable)
        self.tau_out = {i: instance.offload_time(i) for i in self.offloadable}
        self.tau_in = {i: instance.prefetch_time(i) for i in self.offloadable}
        self.lp = pulp.LpProblem("offload_lp", pulp.LpMinimize)
        self.SF, self.SB = compute_chain(self.lp, instance.forward, instance.backward, deadline=deadline)
        deadline = deadline or Deadline(None)
        self.o = dict(zip(self.offloadable, lp_variables(self.offloadable, "o", 0, 1, deadline), strict=True))
        self.q: dict[tuple[int, int], Any] = {}
        self.r: dict[tuple[int, int], Any] = {}
        # Activations older than the window count as gone as soon as they are offloaded
        # (optimistic, so still a relaxation): this keeps the LP at O(L * window) variables.
        self.window = n if n <= 120 else (60 if n <= 400 else 16)

    def distances(self, k: int) -> list[int]:
        """The i0 of the channel rows of step k: all below k - 1, or (L > 60) at distances 1, 2, 4, ... and 0."""
        if self.n <= 60:
            return list(range(0, k - 1))
        chosen, step = set(), 1
        while k - 1 - step >= 0:
            chosen.add(k - 1 - step)
            step *= 2
        chosen.add(0)
        return sorted(chosen)

    def add_step(self, k: int) -> None:
        """The q, r variables of step k, its two memory rows and its channel rows."""
        # the offloadable layers in (k - 2 - window, k - 2], by bisection (a scan is O(L) per step)
        offloadable = self.offloadable
        low = bisect.bisect_right(offloadable, k - 2 - self.window)
        early = offloadable[low : bisect.bisect_right(offloadable, k - 2)]
        self.add_part_variables(k, early)
        self.add_memory_rows(k, early)
        self.add_channel_rows(k, early)

    def add_part_variables(self, k: int, early: list[int]) -> None:
        pulp, lp, o = self.pulp, self.lp, self.o
        for i in early:
            self.q[i, k] = pulp.LpVariable(f"q{i}_{k}", 0, 1, cat=pulp.LpContinuous)
            lp += self.q[i, k] <= o[i]
            self.r[i, k] = pulp.LpVariable(f"r{i}_{k}", 0, 1, cat=pulp.LpContinuous)
            lp += self.r[i, k] <= o[i]

    def add_memory_rows(self, k: int, early: list[int]) -> None:
        """Memory at the start of F_k and of B_k."""
        instance, pulp, lp, o, s, n = self.instance, self.pulp, self.lp, self.o, self.s, self.n
        f, b, M = instance.forward, instance.backward, instance.memory
        wf, wb = instance.workspace_forward, instance.workspace_backward
        old = [i for i in self.offloadable if i <= k - 2 - self.window]
        pinned = sum(s[i] for i in range(k - 1) if i not in o) + pulp.lpSum(s[i] * (1 - o[i]) for i in old)
        # At the start of a step of zero duration nothing is resident in the half-open sense; the
        # validator checks only the kept activations with its floor there (o, not q or r).
        absent_f = self.q if f[k - 1] > 0 else {(i, k): o[i] for i in early}
        absent_b = self.r if b[k - 1] > 0 else {(i, k): o[i] for i in early}
        lp += pinned + pulp.lpSum(s[i] * (1 - absent_f[i, k]) for i in early) + s[k - 1] + s[k] + wf[k - 1] <= M
        gradient_in = s[n] if k == n else s[k]
        lp += (
            pinned + pulp.lpSum(s[i] * (1 - absent_b[i, k]) for i in early) + 2 * s[k - 1] + gradient_in + wb[k - 1]
            <= M
        )

    def add_channel_rows(self, k: int, early: list[int]) -> None:
        """Out channel: the q-parts shipped before F_k; in channel: the r-parts back before B_{i0+1}."""
        pulp, lp, SF, SB, f = self.pulp, self.lp, self.SF, self.SB, self.instance.forward
        for i0 in self.distances(k):
            if early and i0 < early[0]:
                continue
            part = [i for i in early if i >= i0]
            if not part:
                continue
            released = 0 if i0 == 0 else SF[i0 - 1] + f[i0 - 1]
            lp += SF[k - 1] >= released + pulp.lpSum(self.tau_out[i] * self.q[i, k] for i in part)
            # Prefetches of a_i, i >= i0, end before B_{i0+1} starts.
            lp += SB[i0] >= SB[k - 1] + pulp.lpSum(self.tau_in[i] * self.r[i, k] for i in part)

    def add_round_trips(self) -> None:
        """Each offloaded a_i travels out and back between the end of F_i and the start of B_{i+1}."""
        lp, SF, SB, f, o = self.lp, self.SF, self.SB, self.instance.forward, self.o
        for i in self.offloadable:
            produced = 0 if i == 0 else SF[i - 1] + f[i - 1]
            lp += SB[i] >= produced + (self.tau_out[i] + self.tau_in[i]) * o[i]

    def add_half_duplex_row(self) -> None:
        """One channel carries every transfer, all within [0, start of B_1]."""
        if self.instance.duplex == "half":
            self.lp += self.SB[0] >= self.pulp.lpSum(
                (self.tau_out[i] + self.tau_in[i]) * self.o[i] for i in self.offloadable
            )


def lp_bound(instance: Instance, *, time_limit: float | None = None) -> float | None:
    """The LP relaxation bound rounded up to an integer (times are integers), or None."""
    value, _, _ = lp_relaxation(instance, time_limit=time_limit)
    return None if value is None else math.ceil(value * (1 - 1e-9) - 1e-6)
