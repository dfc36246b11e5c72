"""The CP-SAT model of the spec (`build_cpsat`), its solutions, and the exact timing of a fixed offload set.

Fixed-size intervals for F/B, optional intervals for offloads and prefetches
(presence = offloaded), residency intervals (kept / out-part / in-part with
matching presence), one Cumulative of capacity M, NoOverlap per channel,
minimize the end of B_1.  The out-part ends at a variable
``e_i >= max(end offload_i, end F_{i+1})``: a larger e_i only wastes memory,
so the optimum is unchanged and every solution is valid.

Time scaling (``scale = q``): durations are rounded *up* to multiples of q
and starts restricted to multiples of q.  Every interval of the original
schedule with the same starts is contained in its scaled counterpart, so a
scaled solution is a valid schedule of the original instance (its makespan
is evaluated on the original); the scaled optimum and bound say nothing
about the original optimum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline
from ...core.result import Status
from ...solvers.cpsat import new_model, solve_cpsat
from ..model import Instance, Solution, canonical_schedule, evaluate, exchange_pairs
from ..simulate import simulate


@dataclass
class CpVars:
    """The variables of `build_cpsat` a schedule is read from (`extract`)."""

    scale: int
    sf: list
    sb: list
    offloaded: dict
    out_start: dict
    in_start: dict
    makespan: Any


def _up(value: int, scale: int) -> int:
    return -(-value // scale)


def makespan(instance: Instance, solution: Solution) -> int:
    """The validator's makespan of ``solution`` (an integer)."""
    return int(evaluate(instance, solution)["objective"])


def build_cpsat(
    instance: Instance,
    *,
    horizon: int,
    scale: int = 1,
    fixed: set[int] | None = None,
    hint: Solution | None = None,
    lower: float | None = None,
    exchange: bool = False,
    deadline: Deadline | None = None,
) -> tuple[Any, CpVars]:
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

    Returns
    -------
    tuple
        The CP-SAT model and its `CpVars`.
    """
    deadline = deadline if deadline is not None else Deadline(None)
    builder = _CpSatModel(instance, horizon, scale)
    builder.add_workspaces()
    builder.add_activations(fixed, deadline)
    builder.add_gradients()
    builder.model.add_cumulative(builder.intervals, builder.demands, instance.memory)
    builder.add_kept_prefix_rows(deadline)
    builder.add_channels()
    if exchange and fixed is None:
        for i, j in exchange_pairs(instance):
            builder.model.add_implication(builder.offloaded[j], builder.offloaded[i])
        if hint is not None:
            hint = canonical_schedule(instance, hint)
    deadline.check("building the CP-SAT model")
    builder.set_objective(lower)
    if hint is not None:
        builder.add_hint(hint)
    return builder.model, builder.handles


class _CpSatModel:
    """The model of `build_cpsat`, one row family per method (called in a fixed order)."""

    def __init__(self, instance: Instance, horizon: int, scale: int):
        self.instance, self.scale = instance, scale
        n = self.n = instance.n_layers
        self.s = instance.activation
        self.f = f = [_up(x, scale) for x in instance.forward]
        self.b = b = [_up(x, scale) for x in instance.backward]
        self.H = H = _up(horizon, scale) + 1
        self.model = model = new_model()
        self.sf = sf = [model.new_int_var(0, H, f"sf{k}") for k in range(1, n + 1)]
        self.sb = sb = [model.new_int_var(0, H, f"sb{k}") for k in range(1, n + 1)]
        self.f_end = f_end = [sf[k] + f[k] for k in range(n)]
        self.b_end = b_end = [sb[k] + b[k] for k in range(n)]
        for k in range(n - 1):
            model.add(sf[k + 1] >= f_end[k])
        model.add(sb[n - 1] >= f_end[n - 1])
        for k in range(n - 1):
            model.add(sb[k] >= b_end[k + 1])
        self.intervals: list[Any] = []
        self.demands: list[int] = []
        self.offloaded: dict[int, Any] = {}
        self.out_start: dict[int, Any] = {}
        self.in_start: dict[int, Any] = {}
        self.out_intervals: list[Any] = []
        self.in_intervals: list[Any] = []

    @property
    def handles(self) -> CpVars:
        return CpVars(self.scale, self.sf, self.sb, self.offloaded, self.out_start, self.in_start, self.b_end[0])

    def resident(self, start, end, size: int, presence=None, label: str = "") -> None:
        """A residency interval [start, end) of ``size`` bytes in the cumulative (optional with ``presence``)."""
        if size <= 0:
            return
        model = self.model
        length = model.new_int_var(0, self.H, f"len_{label}")
        if presence is None:
            interval = model.new_interval_var(start, length, end, f"res_{label}")
        else:
            interval = model.new_optional_interval_var(start, length, end, presence, f"res_{label}")
        self.intervals.append(interval)
        self.demands.append(size)

    def add_workspaces(self) -> None:
        instance, model = self.instance, self.model
        for k in range(self.n):
            if instance.workspace_forward[k]:
                self.intervals.append(model.new_fixed_size_interval_var(self.sf[k], self.f[k], f"F{k + 1}"))
                self.demands.append(instance.workspace_forward[k])
            if instance.workspace_backward[k]:
                self.intervals.append(model.new_fixed_size_interval_var(self.sb[k], self.b[k], f"B{k + 1}"))
                self.demands.append(instance.workspace_backward[k])

    def add_activations(self, fixed: set[int] | None, deadline: Deadline) -> None:
        """a_0..a_L: kept, or offloaded (transfers, out-part, in-part)."""
        n, s = self.n, self.s
        offloadable = set(self.instance.offloadable)
        zero = self.model.new_constant(0)
        for i in range(n + 1):
            if i % 64 == 0:
                deadline.check("building the CP-SAT model")
            born = zero if i == 0 else self.sf[i - 1]
            last_use = self.b_end[n - 1] if i == n else self.b_end[i]
            if i not in offloadable:
                self.resident(born, last_use, s[i], None, f"a{i}")
                continue
            self.add_offloadable(i, born, last_use, fixed)

    def add_offloadable(self, i: int, born, last_use, fixed: set[int] | None) -> None:
        model, H, s, scale = self.model, self.H, self.s, self.scale
        o = model.new_bool_var(f"o{i}")
        self.offloaded[i] = o
        if fixed is not None:
            model.add(o == (1 if i in fixed else 0))
        tau_out = _up(self.instance.offload_time(i), scale)
        tau_in = _up(self.instance.prefetch_time(i), scale)
        xo = model.new_int_var(0, H, f"xo{i}")
        xp = model.new_int_var(0, H, f"xp{i}")
        self.out_start[i], self.in_start[i] = xo, xp
        self.out_intervals.append(model.new_optional_fixed_size_interval_var(xo, tau_out, o, f"out{i}"))
        self.in_intervals.append(model.new_optional_fixed_size_interval_var(xp, tau_in, o, f"in{i}"))
        if i >= 1:
            model.add(xo >= self.f_end[i - 1]).only_enforce_if(o)
        model.add(xp >= xo + tau_out).only_enforce_if(o)
        model.add(xp + tau_in <= self.sb[i]).only_enforce_if(o)
        leave = model.new_int_var(0, H, f"leave{i}")
        model.add(leave >= xo + tau_out).only_enforce_if(o)
        model.add(leave >= self.f_end[i]).only_enforce_if(o)
        self.resident(born, last_use, s[i], ~o, f"a{i}_kept")
        self.resident(born, leave, s[i], o, f"a{i}_out")
        self.resident(xp, last_use, s[i], o, f"a{i}_in")

    def add_gradients(self) -> None:
        for i in range(self.n):
            end = self.b_end[i - 1] if i >= 1 else self.b_end[0]
            self.resident(self.sb[i], end, self.s[i], None, f"grad{i}")

    def add_kept_prefix_rows(self, deadline: Deadline) -> None:
        """Redundant: the kept a_0..a_{k-2} and the floor of F_k / B_k fit together (`model.kept_prefix_fits`).

        Linear in the o_i, it prunes offload sets long before the cumulative does.
        """
        instance, s, n, offloaded = self.instance, self.s, self.n, self.offloaded
        wf, wb = instance.workspace_forward, instance.workspace_backward
        for k in range(2, n + 1):
            if k % 16 == 0:
                deadline.check("building the CP-SAT model")
            kept = sum(s[i] * (1 - offloaded[i]) if i in offloaded else s[i] for i in range(k - 1))
            floor = max(s[k - 1] + s[k] + wf[k - 1], 2 * s[k - 1] + (s[n] if k == n else s[k]) + wb[k - 1])
            self.model.add(kept + floor <= instance.memory)

    def add_channels(self) -> None:
        if self.instance.duplex == "full":
            self.model.add_no_overlap(self.out_intervals)
            self.model.add_no_overlap(self.in_intervals)
        else:
            self.model.add_no_overlap(self.out_intervals + self.in_intervals)

    def set_objective(self, lower: float | None) -> None:
        makespan = self.b_end[0]
        if lower is not None:
            # A proven bound of the original; at a coarser scale the scaled makespan is >= the original one.
            scale = self.scale
            self.model.add(makespan >= _up(int(lower), scale) if scale == 1 else makespan >= int(lower) // scale)
        self.model.minimize(makespan)

    def add_hint(self, hint: Solution) -> None:
        model, scale = self.model, self.scale
        for k in range(self.n):
            model.add_hint(self.sf[k], hint.forward_start[k] // scale)
            model.add_hint(self.sb[k], hint.backward_start[k] // scale)
        for i, o in self.offloaded.items():
            chosen = i in hint.offloaded
            model.add_hint(o, chosen)
            if chosen:
                model.add_hint(self.out_start[i], hint.offload_start[i] // scale)
                model.add_hint(self.in_start[i], hint.prefetch_start[i] // scale)


def extract(instance: Instance, handles: CpVars, value) -> Solution:
    """The schedule of a CP-SAT solution, in original time units."""
    q = handles.scale
    chosen = [i for i, o in handles.offloaded.items() if value(o) > 0.5]
    return Solution(
        offloaded=tuple(chosen),
        forward_start=tuple(int(value(v)) * q for v in handles.sf),
        backward_start=tuple(int(value(v)) * q for v in handles.sb),
        offload_start={i: int(value(handles.out_start[i])) * q for i in chosen},
        prefetch_start={i: int(value(handles.in_start[i])) * q for i in chosen},
    )


@dataclass(frozen=True)
class Timing:
    """What `exact_timing` established for one offload set."""

    schedule: Solution | None
    proven: bool
    deterministic_time: float


def exact_timing(
    instance: Instance,
    offloaded: set[int],
    *,
    time_limit: float | None = 10.0,
    deterministic_time: float | None = None,
    seed: int = 0,
) -> Timing:
    """Optimal timing of a fixed offload set by CP-SAT (one worker).

    ``deterministic_time`` limits the solve in CP-SAT's deterministic units (the same verdict on any
    machine). ``proven``: the schedule is the set's optimum, or (schedule None) the set has no schedule
    of makespan at most the horizon (the offload-all schedule's or the set's own simulated one).
    """
    reference = simulate(instance, instance.offloadable)
    assert reference is not None, "offload-all fits on a feasible instance (model.memory_floors)"
    horizon = makespan(instance, reference)
    own = simulate(instance, offloaded)
    model, handles = build_cpsat(
        instance, horizon=max(horizon, makespan(instance, own) if own else 0), fixed=offloaded, hint=own
    )
    outcome = solve_cpsat(model, time_limit=time_limit, deterministic_time=deterministic_time, workers=1, seed=seed)
    used = float(getattr(outcome, "deterministic_time", 0.0))
    if outcome.status is Status.INFEASIBLE:
        return Timing(None, True, used)
    if not outcome.has_solution:
        return Timing(None, False, used)
    return Timing(extract(instance, handles, outcome.value), outcome.status is Status.OPTIMAL, used)
