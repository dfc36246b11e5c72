"""The instant relaxation: CP-SAT with memory checked at 2L instants, a proven lower bound per branch.

Notes
-----
The model, the proof that every schedule is one of its solutions, the
optional rows and the exchange rows: docs/offload.md, "The instant relaxation".
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ...core.deadline import Deadline
from ...core.result import Status
from ...solvers.cpsat import new_model, solve_cpsat
from ..model import Instance, Solution, canonical_schedule, exchange_pairs, identical_classes, memory_profile
from .transfer import best, transfer_bound_chains


class RelaxationVars(NamedTuple):
    """The variables a relaxed solution is read from (`relaxed_solution`)."""

    forward: list
    backward: list
    offloaded: dict
    offload_end: dict
    prefetch_start: dict


def instant_relaxation(
    instance: Instance,
    *,
    upper: float,
    time_limit: float | None = 30.0,
    seed: int = 0,
    workers: int = 2,
    hint: Solution | None = None,
    log: bool = False,
    start_rows: bool = False,
    prefetch_rows: Iterable[tuple[int, int]] = (),
    fixed_offload: Mapping[int, bool] | None = None,
    exchange: bool = True,
    deterministic_time: float | None = None,
    deadline: Deadline | None = None,
) -> tuple[Any, RelaxationVars]:
    """CP-SAT model of the *instant relaxation*; returns (outcome, the model's variables).

    Parameters
    ----------
    upper
        Cap on the makespan. If it is the makespan of a schedule, CP-SAT's
        bound stays valid; if the model is infeasible, ``upper + 1`` is a
        bound (`relaxation_outcome_bound`): with a guess below the best known
        makespan this is a destructive lower bound test.
    time_limit, deterministic_time
        Wall-clock seconds and CP-SAT deterministic units (the same on any machine) for the solve.
    hint
        A `Solution` used as a complete hint.
    start_rows, prefetch_rows
        Optional rows at the start of B_k and at prefetch starts (`missing_rows` finds them).
    fixed_offload
        Activation -> offloaded or kept: a branch of a search over offload sets.
    exchange
        The exchange lemma's implications and order rows (`model.exchange_pairs`).
    deadline
        Checked while the model is built (`TimeLimitReached`).

    Returns
    -------
    tuple
        The backend's outcome and the `RelaxationVars`.

    Notes
    -----
    The proofs: docs/offload.md, "The instant relaxation".
    """
    deadline = deadline if deadline is not None else Deadline(None)
    builder = _InstantRelaxation(instance, upper)
    builder.add_transfers()
    builder.add_instant_rows(deadline)
    if start_rows:
        builder.add_start_rows()
    builder.add_prefetch_rows(prefetch_rows)
    builder.add_chain_bounds()
    builder.model.add(builder.makespan <= int(upper))
    if exchange:
        builder.add_exchange()
        if hint is not None:
            hint = canonical_schedule(instance, hint)
    builder.fix(fixed_offload or {})
    builder.model.minimize(builder.makespan)
    if hint is not None:
        builder.add_hint(hint)
    deadline.check("building the instant relaxation")
    left = deadline.remaining()
    if left is not None:
        time_limit = left if time_limit is None else min(time_limit, left)
    outcome = solve_cpsat(
        builder.model,
        time_limit=time_limit,
        deterministic_time=deterministic_time,
        workers=workers,
        seed=seed,
        log=log,
    )
    return outcome, builder.handles()


class _InstantRelaxation:
    """The CP-SAT model of `instant_relaxation`, one row family per method (called in a fixed order)."""

    def __init__(self, instance: Instance, upper: float):
        self.instance = instance
        n, f, b = instance.n_layers, instance.forward, instance.backward
        self.n, self.s = n, instance.activation
        H = int(upper) + 1
        self.model = model = new_model()
        self.sf = sf = [model.new_int_var(0, H, f"sf{k}") for k in range(1, n + 1)]
        self.sb = sb = [model.new_int_var(0, H, f"sb{k}") for k in range(1, n + 1)]
        for k in range(n - 1):
            model.add(sf[k + 1] >= sf[k] + f[k])
        model.add(sb[n - 1] >= sf[n - 1] + f[n - 1])
        for k in range(n - 1):
            model.add(sb[k] >= sb[k + 1] + b[k + 1])
        self.makespan = sb[0] + b[0]
        self.horizon = H
        self.offloadable = list(instance.offloadable)
        self.o: dict[int, Any] = {}
        self.e: dict[int, Any] = {}
        self.p: dict[int, Any] = {}
        self.prefix = [0] * (n + 2)
        for i in range(n + 1):
            self.prefix[i + 1] = self.prefix[i] + self.s[i]
        self.absent: dict[tuple[str, int, int], Any] = {}
        self.prefetch_instants: dict[str, int] = {}  # row kind -> the activation whose prefetch start it checks

    def handles(self) -> RelaxationVars:
        return RelaxationVars(self.sf, self.sb, self.o, self.e, self.p)

    def add_transfers(self) -> None:
        """o_i, the end e_i of the offload, the start p_i of the prefetch; one NoOverlap per channel."""
        instance, model, H = self.instance, self.model, self.horizon
        out_intervals, in_intervals = [], []
        for i in self.offloadable:
            tau_out, tau_in = instance.offload_time(i), instance.prefetch_time(i)
            o = self.o[i] = model.new_bool_var(f"o{i}")
            e = self.e[i] = model.new_int_var(0, H, f"e{i}")
            p = self.p[i] = model.new_int_var(0, H, f"p{i}")
            out_intervals.append(model.new_optional_interval_var(e - tau_out, tau_out, e, o, f"out{i}"))
            in_intervals.append(model.new_optional_fixed_size_interval_var(p, tau_in, o, f"in{i}"))
            released = 0 if i == 0 else self.sf[i - 1] + instance.forward[i - 1]
            model.add(e >= released + tau_out).only_enforce_if(o)
            model.add(p >= e).only_enforce_if(o)
            model.add(p + tau_in <= self.sb[i]).only_enforce_if(o)
        if instance.duplex == "full":
            model.add_no_overlap(out_intervals)
            model.add_no_overlap(in_intervals)
        else:
            model.add_no_overlap(out_intervals + in_intervals)

    def backward_need(self, k: int) -> int:
        """Bytes of a_0..a_{k-2} that must be absent during B_k."""
        s, n, instance = self.s, self.n, self.instance
        gradient_in = s[n] if k == n else s[k]
        return self.prefix[k - 1] + 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1] - instance.memory

    def absent_row(self, kind: str, k: int, instant, need: int, resident: int | None = None, enforce=()) -> None:
        """Σ s_i [a_i absent at instant] >= need over offloadable i <= k-2 (but ``resident``)."""
        model, chosen = self.model, []
        for i in self.offloadable:
            if i > k - 2:
                break
            if i == resident:
                continue
            x = model.new_bool_var(f"{kind}{i}_{k}")
            model.add_implication(x, self.o[i])
            model.add(self.e[i] <= instant).only_enforce_if(x)
            model.add(self.p[i] >= instant + 1).only_enforce_if(x)
            self.absent[kind, i, k] = x
            chosen.append((self.s[i], x))
        model.add(sum(size * x for size, x in chosen) >= need).only_enforce_if(list(enforce))

    def add_instant_rows(self, deadline: Deadline) -> None:
        """The x rows (start of F_k) and the y rows (end of B_k - 1)."""
        instance, s, f, b = self.instance, self.s, self.instance.forward, self.instance.backward
        for k in range(2, self.n + 1):
            deadline.check("building the instant relaxation")
            need = self.prefix[k - 1] + s[k - 1] + s[k] + instance.workspace_forward[k - 1] - instance.memory
            if need > 0 and f[k - 1] > 0:
                self.absent_row("x", k, self.sf[k - 1], need)
            need = self.backward_need(k)
            if need > 0 and b[k - 1] > 0:
                self.absent_row("y", k, self.sb[k - 1] + b[k - 1] - 1, need)

    def add_start_rows(self) -> None:
        """The z rows: memory at the start of B_k."""
        b = self.instance.backward
        for k in range(2, self.n + 1):
            need = self.backward_need(k)
            if need > 0 and b[k - 1] > 0:  # with b_k = 0, δ_k is released at t (half-open intervals)
                self.absent_row("z", k, self.sb[k - 1], need)

    def add_prefetch_rows(self, rows: Iterable[tuple[int, int]]) -> None:
        """Memory at the start of the prefetch of a_j when it starts during B_k."""
        model, b = self.model, self.instance.backward
        for j, k in rows:
            if j not in self.o or not j + 2 <= k <= self.n:
                raise ValueError(
                    f"prefetch row ({j}, {k}): a{j} must be offloadable and prefetched during B{k}, k >= j + 2"
                )
            need = self.backward_need(k)
            if need <= 0:
                continue
            before, after, inside = (model.new_bool_var(f"{name}{j}_{k}") for name in ("pre", "post", "in"))
            model.add(self.p[j] <= self.sb[k - 1] - 1).only_enforce_if(before)
            model.add(self.p[j] >= self.sb[k - 1] + b[k - 1]).only_enforce_if(after)
            model.add_bool_or([before, after, inside, self.o[j].Not()])
            self.absent_row(f"q{j}_", k, self.p[j], need, resident=j, enforce=(inside, self.o[j]))
            self.prefetch_instants[f"q{j}_"] = j

    def add_chain_bounds(self) -> None:
        """The transfer-bound chains as lower bounds on every start of F_k and every (end - start of B_k)."""
        chain_start, chain_to_end = transfer_bound_chains(self.instance)
        for k in range(1, self.n + 1):
            if math.isfinite(chain_start[k]):
                self.model.add(self.sf[k - 1] >= math.ceil(chain_start[k] - 1e-9))
            if math.isfinite(chain_to_end[k]):
                self.model.add(self.makespan - self.sb[k - 1] >= math.ceil(chain_to_end[k] - 1e-9))

    def add_exchange(self) -> None:
        """o_j => o_i for equal sizes (i < j), and the out-channel order of equal offloads."""
        model, o, e, p = self.model, self.o, self.e, self.p
        for i, j in exchange_pairs(self.instance):
            model.add_implication(o[j], o[i])
        for group in identical_classes(self.instance):
            for i, j in itertools.combinations(group, 2):
                # Out-channel order of equal offloads: a_i leaves first unless a_j is back before a_i has left.
                leaves_first = model.new_bool_var(f"first{i}_{j}")
                model.add(e[i] <= e[j]).only_enforce_if([leaves_first, o[i], o[j]])
                model.add(p[j] + 1 <= e[i]).only_enforce_if([~leaves_first, o[i], o[j]])

    def fix(self, fixed_offload: Mapping[int, bool]) -> None:
        for i, offloaded in fixed_offload.items():
            if i not in self.o:
                raise ValueError(f"fixed_offload: a{i} is not offloadable")
            self.model.add(self.o[i] == int(bool(offloaded)))

    def add_hint(self, hint: Solution) -> None:
        """A complete hint: the schedule's starts, decisions and absences."""
        model, instance, b = self.model, self.instance, self.instance.backward
        for k in range(self.n):
            model.add_hint(self.sf[k], hint.forward_start[k])
            model.add_hint(self.sb[k], hint.backward_start[k])
        for i in self.offloadable:
            chosen = i in hint.offloaded
            model.add_hint(self.o[i], chosen)
            if chosen:
                model.add_hint(self.e[i], hint.offload_start[i] + instance.offload_time(i))
                model.add_hint(self.p[i], hint.prefetch_start[i])
        for (kind, i, k), x in self.absent.items():
            if kind in self.prefetch_instants:
                instant = hint.prefetch_start.get(self.prefetch_instants[kind])
                if instant is None:  # a_j kept in the hint: its row is not enforced, x is free
                    continue
            else:
                instant = {
                    "x": hint.forward_start[k - 1],
                    "y": hint.backward_start[k - 1] + b[k - 1] - 1,
                    "z": hint.backward_start[k - 1],
                }[kind]
            gone = i in hint.offloaded and (
                hint.offload_start[i] + instance.offload_time(i) <= instant < hint.prefetch_start[i]
            )
            model.add_hint(x, gone)


def relaxed_solution(instance: Instance, outcome: Any, handles: RelaxationVars) -> Solution:
    """The values of an `instant_relaxation` solution as a `Solution` (not necessarily a valid schedule)."""
    forward, backward, chosen, end_out, start_in = handles
    value = outcome.value
    offloaded = [i for i, o in chosen.items() if value(o) > 0.5]
    return Solution(
        offloaded=tuple(offloaded),
        forward_start=tuple(value(x) for x in forward),
        backward_start=tuple(value(x) for x in backward),
        offload_start={i: value(end_out[i]) - instance.offload_time(i) for i in offloaded},
        prefetch_start={i: value(start_in[i]) for i in offloaded},
    )


def missing_rows(instance: Instance, solution: Solution) -> tuple[bool, list[tuple[int, int]]]:
    """The optional rows of `instant_relaxation` that ``solution`` (a relaxed one) breaks.

    Returns ``(start_rows, prefetch_rows)``: whether memory is over the
    budget at the start of some B_k, and every (j, k) such that the prefetch
    of a_j starts during B_k with memory over the budget.  Adding them and
    solving again is a cutting-plane loop on the relaxation (each row is
    valid for every schedule, so the loop stays a relaxation); a relaxed
    solution that `validate` accepts is a schedule.
    """
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


def relaxation_outcome_bound(instance: Instance, outcome: Any, upper: float) -> float:
    """The proven bound carried by an `instant_relaxation` outcome (at least `best`)."""
    value = best(instance)
    if outcome.status is Status.INFEASIBLE:
        # No solution of the relaxation (hence no schedule) has makespan <= upper.
        return max(value, upper + 1)
    if outcome.status is Status.OPTIMAL and outcome.objective is not None:
        value = max(value, math.ceil(outcome.objective - 1e-6))
    elif outcome.bound is not None and math.isfinite(outcome.bound):
        value = max(value, math.ceil(outcome.bound - 1e-6))
    return value
