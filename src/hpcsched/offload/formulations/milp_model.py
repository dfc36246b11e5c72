"""The fixed-order MILP (`build_milp_fixed_order`): the model of ``milp-fixed-order``.

The restricted problem is the problem plus two chains: for offloaded i < j,
offload_i ends before offload_j starts (out channel) and prefetch_j ends
before prefetch_i starts (in channel).  Fixing the orders is *not* w.l.o.g.,
so the method claims OPTIMAL only when its makespan meets a proven lower
bound of the problem (`bounds.best`, also its ``bound``); the MILP's own
bound, a bound of the restricted model only, goes to ``notes``.

Notes
-----
The model (compute points, tie order, the rows at allocation instants, why
they hold iff the validator's sweep does, why the times are integral, the
big-M): docs/offload.md, "The fixed-order MILP".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, NamedTuple

from ...core.deadline import Deadline
from .. import bounds
from ..model import Instance, Solution


class Point(NamedTuple):
    """A compute point: the start (``end`` 0) or the end (1) of F_k or B_k."""

    kind: str
    k: int
    end: int


class Residency(NamedTuple):
    """A residency interval of the memory rows: ``size`` bytes from ``start`` to the max of ``ends``.

    ``start`` is a `Point`, ``"zero"`` (a_0) or ``("P", i)`` (the prefetch of a_i); an end is a `Point`
    or ``("X", i)`` (the end of the offload of a_i); ``gate`` is None, ``("kept", i)`` (1 - o_i) or
    ``("off", i)`` (o_i).
    """

    size: int
    start: Any
    ends: list
    gate: tuple[str, int] | None


@dataclass
class FixedOrderMilp:
    """The PuLP model of `build_milp_fixed_order` and the variables a solution is read from."""

    lp: Any
    forward_start: list
    backward_start: list
    offloaded: dict
    offload_start: dict
    prefetch_start: dict
    binaries: list


def follows_fixed_orders(instance: Instance, solution: Solution) -> bool:
    """Whether ``solution`` keeps the transfer orders of ``milp-fixed-order``.

    For offloaded i < j: the offload of a_i ends before the offload of a_j
    starts, and the prefetch of a_j ends before the prefetch of a_i starts
    (consecutive offloaded pairs suffice: durations are non-negative).
    """
    chosen = sorted(solution.offloaded)
    for i, j in itertools.pairwise(chosen):
        if solution.offload_start[j] < solution.offload_start[i] + instance.offload_time(i):
            return False
        if solution.prefetch_start[i] < solution.prefetch_start[j] + instance.prefetch_time(j):
            return False
    return True


def build_milp_fixed_order(instance: Instance, *, horizon: int, deadline: Deadline | None = None) -> FixedOrderMilp:
    """The fixed-order MILP for schedules of makespan <= ``horizon``.

    ``deadline`` is checked for every row (`TimeLimitReached`): the model has O(L^2) terms.

    Notes
    -----
    The rows and why they are exact: docs/offload.md, "The fixed-order MILP".
    """
    deadline = deadline if deadline is not None else Deadline(None)
    deadline.check("building the fixed-order MILP")  # the builder's variables and chains are O(L) PuLP work
    builder = _FixedOrderBuilder(instance, int(horizon), deadline)
    builder.add_transfer_chains(deadline)
    builder.add_compute_instant_rows(deadline)
    builder.add_prefetch_instant_rows(deadline)
    builder.add_kept_prefix_rows()
    builder.add_order_cuts()
    return FixedOrderMilp(builder.lp, builder.SF, builder.SB, builder.o, builder.X, builder.P, builder.binaries)


class _FixedOrderBuilder:
    """The rows of the fixed-order MILP, one family per method; order and joint variables created on demand."""

    def __init__(self, instance: Instance, horizon: int, deadline: Deadline):
        import pulp

        self.pulp, self.instance = pulp, instance
        self.n, self.s = instance.n_layers, instance.activation
        self.f, self.b = instance.forward, instance.backward
        self.offloadable = sorted(instance.offloadable)
        self.tau_out = {i: instance.offload_time(i) for i in self.offloadable}
        self.tau_in = {i: instance.prefetch_time(i) for i in self.offloadable}
        H = horizon
        # Every difference a deactivated row must absorb: times of a schedule of makespan <= H lie in
        # [0, H], an offload end (phantom or not) in [0, H + tau].
        self.big = H + 1 + max([0, *self.tau_out.values(), *self.tau_in.values()])
        self.lp = lp = pulp.LpProblem("offload_fixed_order", pulp.LpMinimize)
        self.SF, self.SB = bounds.compute_chain(lp, self.f, self.b, upper=H, deadline=deadline)
        lp.setObjective(self.SB[0] + self.b[0])  # the end of B_1
        chosen = self.offloadable
        self.o = dict(zip(chosen, bounds.lp_variables(chosen, "o", None, None, deadline, cat="Binary"), strict=True))
        self.X = dict(zip(chosen, bounds.lp_variables(chosen, "X", 0, H, deadline), strict=True))
        self.P = dict(zip(chosen, bounds.lp_variables(chosen, "P", 0, H, deadline), strict=True))
        self.binaries = list(self.o.values())
        self.u: dict[tuple[int, Point], Any] = {}
        self.extra: dict[Any, Any] = {}
        self.joints = 0
        self.points: list[Point] = []
        for k in range(1, self.n + 1):
            self.points += [Point("F", k, 0), Point("F", k, 1)]
        for k in range(self.n, 0, -1):
            self.points += [Point("B", k, 0), Point("B", k, 1)]
        self.pos: dict[Point, int] = {}
        self.lower: dict[Point, int] = {}  # least time from the first point to this one
        clock = 0
        for index, point in enumerate(self.points):
            self.pos[point] = index
            clock += self.duration(point) if point.end else 0
            self.lower[point] = clock
        self.intervals = self.residency_intervals()

    # ---- compute points
    def duration(self, point: Point) -> int:
        return (self.f if point.kind == "F" else self.b)[point.k - 1]

    def at(self, point: Point) -> Any:
        """The time of a compute point (a start variable plus the duration for an end)."""
        start = (self.SF if point.kind == "F" else self.SB)[point.k - 1]
        return start + (self.duration(point) if point.end else 0)

    def gap(self, p: Point, q: Point) -> int:
        return self.lower[q] - self.lower[p]

    def binary(self, name: str) -> Any:
        var = self.pulp.LpVariable(name, cat="Binary")
        self.binaries.append(var)
        return var

    # ---- order indicators (0, 1 or a binary)
    def order(self, i: int, p: Any) -> Any:
        """[p <= P_i] for a compute point p and an offloaded a_i, fixed where the chains decide."""
        if p == "zero":
            return 1
        if i >= 1 and self.pos[p] <= self.pos[Point("F", i, 1)]:
            return 1  # p <= end F_i <= P_i
        use = Point("B", i + 1, 0)
        if self.pos[p] >= self.pos[use] and self.gap(use, p) + self.tau_in[i] >= 1:
            return 0  # P_i + tau_in <= start B_{i+1} < p
        if (i, p) not in self.u:
            var = self.u[i, p] = self.binary(f"u{i}_{self.pos[p]}")
            big, o, P = self.big, self.o, self.P
            self.lp.addConstraint(self.at(p) <= P[i] + big * (1 - var) + big * (1 - o[i]))
            self.lp.addConstraint(P[i] <= self.at(p) - 1 + big * var + big * (1 - o[i]))
        return self.u[i, p]

    def before(self, q: Point, t: Point) -> Any:
        """Forced to 1 when compute point q is strictly before compute point t."""
        if self.pos[t] <= self.pos[q]:
            return 0
        if self.gap(q, t) >= 1:
            return 1
        if (q, t) not in self.extra:  # steps of zero duration: q and t may coincide
            var = self.extra[q, t] = self.binary(f"z{self.pos[q]}_{self.pos[t]}")
            self.lp.addConstraint(self.at(q) >= self.at(t) - self.big * var)
        return self.extra[q, t]

    def before_offload_end(self, q: Point, j: int) -> Any:
        """Forced to 1 when compute point q is strictly before the end of the offload of a_j (if offloaded)."""
        produced = Point("F", j, 1)
        if j >= 1 and self.pos[q] <= self.pos[produced] and self.gap(q, produced) + self.tau_out[j] >= 1:
            return 1
        if self.pos[q] >= self.pos[Point("B", j + 1, 0)]:
            return 0  # offload end <= prefetch start <= start B_{j+1} <= q
        if ("X", q, j) not in self.extra:
            var = self.extra["X", q, j] = self.binary(f"v{self.pos[q]}_{j}")
            self.lp.addConstraint(self.at(q) >= self.X[j] + self.tau_out[j] - self.big * var)
        return self.extra["X", q, j]

    def both(self, factors: list, ends: list) -> Any:
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
        self.joints += 1
        joint = self.pulp.LpVariable(f"c{self.joints}", 0)
        for group in groups:
            self.lp.addConstraint(joint >= self.pulp.lpSum(group) - (len(group) - 1))
        return joint

    def gate_of(self, gate: tuple[str, int] | None) -> Any:
        if gate is None:
            return 1
        kind, i = gate
        return 1 - self.o[i] if kind == "kept" else self.o[i]

    # ---- row families
    def residency_intervals(self) -> list[Residency]:
        n, s, instance = self.n, self.s, self.instance
        intervals = []
        for i in range(n + 1):
            born = "zero" if i == 0 else Point("F", i, 0)
            last = Point("B", n, 1) if i == n else Point("B", i + 1, 1)
            if i not in self.o:
                intervals.append(Residency(s[i], born, [last], None))
            else:
                intervals.append(Residency(s[i], born, [last], ("kept", i)))
                intervals.append(Residency(s[i], born, [("X", i), Point("F", i + 1, 1)], ("off", i)))
                intervals.append(Residency(s[i], ("P", i), [last], ("off", i)))
        for i in range(n):
            intervals.append(Residency(s[i], Point("B", i + 1, 0), [Point("B", i if i >= 1 else 1, 1)], None))
        for k in range(1, n + 1):
            intervals.append(Residency(instance.workspace_forward[k - 1], Point("F", k, 0), [Point("F", k, 1)], None))
            intervals.append(Residency(instance.workspace_backward[k - 1], Point("B", k, 0), [Point("B", k, 1)], None))
        return [interval for interval in intervals if interval.size > 0]

    def add_transfer_chains(self, deadline: Deadline) -> None:
        """Release, deadline and offload-before-prefetch rows; the two chains (phantoms for kept ones)."""
        lp, o, X, P, big = self.lp, self.o, self.X, self.P, self.big
        for i in self.offloadable:
            deadline.check("building the fixed-order MILP")
            if i >= 1:
                lp += X[i] >= self.at(Point("F", i, 1)) - big * (1 - o[i])
            lp += P[i] >= X[i] + self.tau_out[i] - big * (1 - o[i])
            lp += P[i] + self.tau_in[i] <= self.at(Point("B", i + 1, 0)) + big * (1 - o[i])
        for earlier, later in zip(self.offloadable, self.offloadable[1:], strict=False):
            lp += X[later] >= X[earlier] + self.tau_out[earlier] * o[earlier]
            lp += P[earlier] >= P[later] + self.tau_in[later] * o[later]

    def add_compute_instant_rows(self, deadline: Deadline) -> None:
        """Memory at the starts of F_k and B_k."""
        starts = [Point("F", k, 0) for k in range(1, self.n + 1)] + [Point("B", k, 0) for k in range(self.n, 0, -1)]
        for q in starts:
            deadline.check("building the fixed-order MILP")
            terms = []
            for size, start, ends, gate in self.intervals:
                if start == "zero":
                    ordered = 1
                elif start[0] == "P":
                    ordered = 1 - self.order(start[1], q)  # [P_j < q]
                else:
                    ordered = 1 if self.pos[start] <= self.pos[q] else 0
                end_flags = [
                    self.before_offload_end(q, end[1]) if end[0] == "X" else self.before(q, end) for end in ends
                ]
                count = self.both([self.gate_of(gate), ordered], end_flags)
                if not (isinstance(count, int) and count == 0):
                    terms.append(size * count)
            self.lp += self.pulp.lpSum(terms) <= self.instance.memory, f"memory_{q[0]}{q[1]}"

    def add_prefetch_instant_rows(self, deadline: Deadline) -> None:
        """Memory at the start of each prefetch (rows relaxed when a_i is kept)."""
        slack = sum(interval.size for interval in self.intervals)
        for i in self.offloadable:
            deadline.check("building the fixed-order MILP")
            terms = []
            for size, start, ends, gate in self.intervals:
                if start == "zero":
                    ordered = 1
                elif start[0] == "P":
                    ordered = 1 if start[1] >= i else 0  # the prefetch chain: P_j <= P_i for j >= i
                else:
                    ordered = self.order(i, start)
                # An offload end never exceeds P_i: its own offload precedes P_i, an earlier one (j < i)
                # precedes the offload of a_i in the chain, a later one (j > i) precedes P_j <= P_i.
                end_flags = [0 if end[0] == "X" else 1 - self.order(i, end) for end in ends]  # [P_i < end]
                count = self.both([self.gate_of(gate), ordered], end_flags)
                if not (isinstance(count, int) and count == 0):
                    terms.append(size * count)
            self.lp += self.pulp.lpSum(terms) <= self.instance.memory + slack * (1 - self.o[i]), f"memory_P{i}"

    def add_kept_prefix_rows(self) -> None:
        """The validator's row for steps of zero duration (implied by the sweep for the others)."""
        n, s, o, instance = self.n, self.s, self.o, self.instance
        wf, wb = instance.workspace_forward, instance.workspace_backward
        kept: Any = 0
        for k in range(1, n + 1):
            if k >= 2:
                kept = kept + (s[k - 2] * (1 - o[k - 2]) if (k - 2) in o else s[k - 2])
            floor = max(s[k - 1] + s[k] + wf[k - 1], 2 * s[k - 1] + (s[n] if k == n else s[k]) + wb[k - 1])
            self.lp += kept + floor <= instance.memory

    def add_order_cuts(self) -> None:
        """[p <= P_i] is non-increasing along the stream."""
        for i in self.offloadable:
            chain = [self.u[i, p] for p in self.points if (i, p) in self.u]
            for earlier, later in itertools.pairwise(chain):
                self.lp += earlier >= later
