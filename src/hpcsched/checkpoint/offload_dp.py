"""Our persistent DP with offloads for kind ``chain-offload`` (issue 23: a POFO-style DP as the heuristic).

This is **our own** dynamic program, written in the spirit of POFO (Beaumont,
Eyraud-Dubois & Shilova, NeurIPS 2021), whose text could not be read here:
it is not POFO's recurrence. It extends rotor's persistent DP
(`formulations.dp`) with one choice: the input of a segment may leave the
GPU while the inner part of the segment runs.

State P(s, t, bar, m), s <= t <= L: the input of stage s is held (x_s, or
xbar_s when ``bar``; its bytes are counted by the caller), so is delta_{t+1}
when t < L (counted in m); run ``B t .. B s`` within m free slots. Choices:

* ``Fall s``, P(s+1, t, 1, m − xbar_{s+1}), ``B s`` (rotor's);
* ``F s .. F s'-1``, P(s', t, 0, m − x_{s'}), P(s, s'−1, bar, m) (rotor's);
* the same two with the input **offloaded**: written to the host during the
  forwards that read it, absent during the inner subproblem (which then has
  m + input − new checkpoint slots), prefetched before the read that
  follows (``B s``, or the first operation of P(s, s'−1)). Two prefetch
  variants: after the inner subproblem's last operation ``B s'`` (charged
  in full), or under it (charged what it exceeds bw_{s'} by; only where
  ``B s'`` fits the budget with the input back).

The write must fit in a *window* of compute time (`WINDOWS`): "forwards",
the forwards before the inner subproblem (``Fall s``, or ``F s .. F s'-1``:
then, on a free link, the DP's memory accounting holds); "segment", every
forward before ``B t`` (the input may still be held while the inner
subproblem's first forwards run: optimistic, so when its schedule
exceeds M the DP is run again at M' = M − margin·M, `MARGINS`, to leave
room). `offload_plan` also takes "any" (no limit on the write); the method
does not try it: on the PCIe 3 chains it offloads everything, its estimate
falls to Σfw + Σbw, and no margin up to 10 % made its schedule fit M. P(L, L) = ``B L``; P(t+1, t) = 0. The
table has 2·O(L²·W) cells over W = ⌊M / slot⌋ slots (sizes rounded up;
when that loses every sequence: to the nearest slot, then 4× finer slots),
each in O(L): O(W·L³) time per run.

**The DP's value is an estimate, used only to choose.** The chosen sequence
and its offloads (each a *bridge* of `offload_bridges`: a copy absent
between two consecutive uses) are timed by `offload_bridges.timed_schedule`
(the timing `offload_greedy` uses) three ways: the prefetches the DP
charged in full wait for the compute before their reader and the others
are as late as possible; all wait; none waits. The validator of the
definition (`two_levels.validate_two_levels`) keeps the valid ones, and the
registry's `evaluate` gives the true makespan. The remat-only `dp` answer
on the chain (when remat alone fits M) is a candidate too, so this method
is never worse than it. The bound is Σfw + Σbw (`bounds.best`): FEASIBLE
unless the makespan meets it (then OPTIMAL, the only proof it makes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.deadline import Deadline, TimeLimitReached
from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.params import at_least
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution
from .model.two_levels import evaluate_two_levels, validate_two_levels
from .offload_bridges import Bridge, copy_gaps, timed_schedule, value_copies

_INFINITY = np.iinfo(np.int64).max // 4
_FILLING = "filling the offload DP table"


@dataclass(frozen=True)
class OffloadDpParams:
    """Options of `offload_dp`.

    Attributes
    ----------
    slots
        Most memory slots for M − x_0 (as `dp`'s option; the gcd of the sizes
        is the slot when it gives at most this many, else sizes are rounded up).
    remat_candidate
        Also run the remat-only `dp` on the chain and keep its sequence when it
        is faster (guarantees never worse than remat only).
    """

    slots: int = 200
    remat_candidate: bool = True

    def __post_init__(self) -> None:
        at_least("slots", self.slots, 1)


@dataclass(frozen=True)
class OffloadPlan:
    """The DP's choice: its estimated time, the remat sequence, and the offloaded gaps.

    Each gap is (value, opens, closes, serial): the input copy is absent between the operations at positions
    ``opens`` and ``closes``; ``serial``: its prefetch was charged after the compute before ``closes`` (else
    under that operation).
    """

    estimate: int
    sequence: tuple[tuple[str, int], ...]
    gaps: tuple[tuple[tuple[str, int], int, int, bool], ...]


class _OffloadTable:
    """P(s, t, bar)[m] of the module docstring, vectorized over the budget m (0..W slots).

    Parameters
    ----------
    instance
        A ``chain-offload`` instance.
    slots
        Most slots for M − x_0 (see `OffloadDpParams`).
    deadline
        Checked while building and filling.
    """

    def __init__(
        self, instance: Instance, slots: int, deadline: Deadline, window: str = "forwards", rounding: str = "up"
    ) -> None:
        from .formulations.dp_slots import slot_size, slot_sizes

        slot, exact = slot_size(instance, slots)
        sizes = slot_sizes(instance, slot, exact, rounding)
        self.instance, self.slot, self.exact, self.L = instance, slot, exact, instance.length
        self.window = window
        self.X, self.XB, self.FT, self.BT = sizes.x, sizes.xbar, sizes.ftmp, sizes.btmp
        # the whole budget in slots; x_0 is charged X[0] slots at the top, returned when it is offloaded
        self.W = instance.memory // slot if rounding == "up" else (2 * instance.memory + slot) // (2 * slot)
        self.m = np.arange(self.W + 1)
        L = self.L
        self.fw_prefix = [0]
        for f in instance.fw:
            self.fw_prefix.append(self.fw_prefix[-1] + f)
        self.index: dict[tuple[int, int], int] = {}
        for s in range(L + 1):
            deadline.check(_FILLING)
            for t in range(s, L + 1):
                self.index[s, t] = len(self.index)
        shape = (2, len(self.index), self.W + 1)
        self.table = np.full(shape, _INFINITY, dtype=np.int64)
        self.choice = np.full(shape, -2, dtype=np.int32)  # -1 Fall first, s' > 0 checkpoint x_{s'}, -2 none
        self.offloaded = np.zeros(shape, dtype=np.int8)  # 0 kept; prefetch 1 after B s', 2 under it
        self.forward_need = [self._forward_need(s) for s in range(L + 1)]

    def _forward_need(self, s: int) -> list[int]:
        """Slots held by ``F s .. F s'-1`` besides the input and delta_{t+1}, per s' = s+1.. (a running max)."""
        need, running = [], 0
        for k in range(s, self.L):
            running = max(running, (self.X[k] if k > s else 0) + self.X[k + 1] + self.FT[k])
            need.append(running)
        return need

    def input_bytes(self, s: int, bar: int) -> int:
        return self.instance.xbar[s] if bar else self.instance.x[s]

    def row(self, s: int, t: int, bar: int) -> np.ndarray:
        if s == t + 1:
            return np.zeros(self.W + 1, dtype=np.int64)
        return self.table[bar, self.index[s, t]]

    def shifted(self, row: np.ndarray, delta: int) -> np.ndarray:
        """``row[m + delta]`` for every m (infinite where m + delta < 0, capped at W)."""
        source = self.m + delta
        out = row[np.clip(source, 0, self.W)].copy()
        out[source < 0] = _INFINITY
        return out

    def fill(self, deadline: Deadline) -> None:
        for d in range(self.L + 1):
            deadline.check(_FILLING)
            for s in range(self.L - d + 1):
                deadline.check(_FILLING)
                for bar in (0, 1) if s > 0 else (0,):
                    self._fill_cell(s, s + d, bar)

    def _backward_need(self, k: int) -> int:
        """Slots held by ``B k`` besides the input of stage k (xbar_{k+1}, delta_{k+1}, delta_k, its transient)."""
        if k == self.L:
            return self.X[self.L] + self.BT[self.L]
        return self.XB[k + 1] + self.X[k + 1] + self.X[k] + self.BT[k]

    def _fill_cell(self, s: int, t: int, bar: int) -> None:
        L, X, XB, m, instance = self.L, self.X, self.XB, self.m, self.instance
        best = np.full(self.W + 1, _INFINITY, dtype=np.int64)
        how = np.full(self.W + 1, -2, dtype=np.int32)
        offl = np.zeros(self.W + 1, dtype=np.int8)

        def improve(candidate: np.ndarray, code: int, offload: int) -> None:
            better = candidate < best
            best[better], how[better], offl[better] = candidate[better], code, offload

        if s == L:
            best[m >= X[L] + self.BT[L]] = instance.bw[L]
            how[m >= X[L] + self.BT[L]] = -1
        else:
            held = X[t + 1] if t < L else 0
            # the window an offload of the input must fit in: the forwards before the inner subproblem
            # ("forwards"), or every forward before the first backward B t ("segment": the input may then still
            # be held during the inner subproblem's first forwards, which the validator checks)
            segment = self.fw_prefix[t] - self.fw_prefix[s] if t < L else self.fw_prefix[L] - self.fw_prefix[s]
            # Fall s, P(s+1, t, 1), B s
            need = max(held + XB[s + 1] + self.FT[s], XB[s + 1] + X[s + 1] + X[s] + self.BT[s])
            sub = self.row(s + 1, t, 1)
            base = instance.fw[s] + instance.bw[s]
            variants = [(0, 0, 0, None)]
            if t > s:
                window = {"forwards": instance.fw[s], "segment": max(instance.fw[s], segment)}.get(
                    self.window, _INFINITY
                )
                variants += self._variants(s, bar, s + 1, window)
            for code, freed, extra, under_need in variants:
                inner = self.shifted(sub, freed - XB[s + 1])
                ok = (m >= need) & (inner < _INFINITY)
                if under_need is not None:
                    ok &= m - XB[s + 1] >= under_need
                improve(np.where(ok, inner + base + extra, _INFINITY), -1, code)
            # F s .. F s'-1, P(s', t, 0), P(s, s'-1, bar)
            for sp in range(s + 1, t + 1):
                left, right = self.row(s, sp - 1, bar), self.row(sp, t, 0)
                forwards = self.fw_prefix[sp] - self.fw_prefix[s]
                room = (m >= self.forward_need[s][sp - s - 1] + held) & (left < _INFINITY)
                window = {"forwards": forwards, "segment": max(forwards, segment)}.get(self.window, _INFINITY)
                for code, freed, extra, under_need in [(0, 0, 0, None), *self._variants(s, bar, sp, window)]:
                    inner = self.shifted(right, freed - X[sp])
                    ok = room & (inner < _INFINITY)
                    if under_need is not None:
                        ok &= m - X[sp] >= under_need
                    improve(np.where(ok, inner + left + forwards + extra, _INFINITY), sp, code)
        cell = self.index[s, t]
        self.table[bar, cell], self.choice[bar, cell], self.offloaded[bar, cell] = best, how, offl

    def _variants(self, s: int, bar: int, inner_first: int, window: int) -> list[tuple]:
        """(code, slots freed, extra time, memory need of the overlapped backward or None) per way to offload
        the input of s while P(inner_first, t) runs: 1 prefetch after its last operation ``B inner_first``
        (charged in full), 2 prefetch under ``B inner_first`` (charged what it exceeds that backward by; only
        where ``B inner_first`` fits the budget with the input back). None when the write takes longer than
        ``window``."""
        moved = self.input_bytes(s, bar)
        instance = self.instance
        if moved == 0 or instance.transfer_time(moved, "out") > window:
            return []
        back = instance.transfer_time(moved, "in")
        size = self.XB[s] if bar else self.X[s]
        under = max(0, back - instance.bw[inner_first])
        return [(1, size, back, None), (2, size, under, self._backward_need(inner_first))]

    def plan(self) -> OffloadPlan | None:
        """The chosen sequence at the full budget and its offloaded gaps (None: nothing fits)."""
        L, X, XB, W = self.L, self.X, self.XB, self.W
        top = W - X[0]
        if top < 0 or self.row(0, L, 0)[top] >= _INFINITY:
            return None
        sequence: list[tuple[str, int]] = []
        gaps: list[list] = []
        stack: list[tuple] = [(0, L, 0, top)]
        while stack:
            item = stack.pop()
            if item[0] == "op":
                sequence.append((item[1], item[2]))
                continue
            if item[0] == "closes":
                gaps[item[1]][2] = len(sequence)  # the next operation reads the prefetched input
                continue
            s, t, bar, budget = item
            if s == t + 1:
                continue
            if s == L:
                sequence.append(("B", L))
                continue
            cell = self.index[s, t]
            how, offload = int(self.choice[bar, cell, budget]), int(self.offloaded[bar, cell, budget])
            size = XB[s] if bar else X[s]
            opens = len(sequence)  # Fall s or F s: the last read of the input before the gap
            if how == -1:
                sequence.append(("Fall", s))
                stack.append(("op", "B", s))
                inner = budget - XB[s + 1]
                nxt: tuple = (s + 1, t, 1)
            else:
                sequence.extend(("F", k) for k in range(s, how))
                stack.append((s, how - 1, bar, budget))
                inner = budget - X[how]
                nxt = (how, t, 0)
            if offload:
                stack.append(("closes", len(gaps)))
                gaps.append([("xbar" if bar else "x", s), opens, None, offload == 1])
                inner = min(W, inner + size)
            stack.append((*nxt, inner))
        estimate = int(self.row(0, L, 0)[top])
        return OffloadPlan(estimate, tuple(sequence), tuple((v, a, z, serial) for v, a, z, serial in gaps))


def offload_plan(
    instance: Instance, slots: int, deadline: Deadline, window: str = "forwards", rounding: str = "up"
) -> tuple[OffloadPlan | None, int, bool]:
    """Run the DP (module docstring); the plan, the slot size and whether the sizes were exact multiples of it.

    ``window`` (see `WINDOWS`): "forwards", "segment" or "any". ``rounding``: "up" (sizes up, budget down:
    the DP's accounting fits in bytes) or "nearest" (optimistic: the validator decides).
    """
    table = _OffloadTable(instance, slots, deadline, window, rounding)
    table.fill(deadline)
    return table.plan(), table.slot, table.exact


def plan_bridges(instance: Instance, plan: OffloadPlan, timing: str = "dp") -> list[Bridge]:
    """The plan's offloaded gaps as bridges of `offload_bridges` (the copy whose consecutive uses they are).

    ``timing``: "dp", the prefetches the DP charged in full wait for the compute before their reader, the
    others are as late as possible; "serial": all wait; "late": none waits.
    """
    copies = value_copies(instance.length, plan.sequence)
    known = set(copy_gaps(copies))
    bridges = []
    for value, opens, closes, serial in plan.gaps:
        found = [
            c
            for c, copy in enumerate(copies)
            if copy.value == value and (c, opens, closes) in known and closes in copy.reads
        ]
        if len(found) != 1:
            raise AssertionError(f"offloaded gap {value} {opens}->{closes} is not one copy's gap")
        wait = timing == "serial" or (timing == "dp" and serial)
        bridges.append((found[0], opens, closes, wait))
    first: dict[int, int] = {}
    for c, opens, _, _ in bridges:
        first[c] = min(first.get(c, opens), opens)
    # an x copy is written once (the host copy stays valid); an xbar copy at each of its gaps, since it serves
    # reads of x only up to its last explicit read (see offload_greedy._reassign_offloads)
    return [
        Bridge(c, a, z, copies[c].value[0] == "xbar" or a == first[c], serial)
        for c, a, z, serial in sorted(bridges, key=lambda b: b[1])
    ]


#: Offload windows tried, from the one the DP's memory accounting holds for to the most optimistic.
WINDOWS = ("forwards", "segment")
#: Fractions of M withheld from the DP (its budget M' = M − margin·M) when its schedule exceeds M: with the
#: the window "segment" an input can still be held while the inner subproblem starts.
MARGINS = (0.0, 0.02, 0.05, 0.1, 0.2)


def _plan_with_margin(
    instance: Instance, slots: int, deadline: Deadline, window: str, margin: float
) -> tuple[OffloadPlan | None, str]:
    """The DP's plan at the budget M − margin·M (None when it finds none or the budget is below the floor)."""
    memory = instance.memory - int(margin * instance.memory)
    try:
        shrunk = instance.with_memory(memory)
    except (InvalidInstanceError, InfeasibleError) as error:
        return None, f"window {window}, margin {margin:.0%}: budget refused ({error})"
    plan, slot, exact = offload_plan(shrunk, slots, deadline, window)
    rounding = f"slot = {slot} bytes, {'exact sizes' if exact else 'sizes rounded up'}"
    if plan is None and not exact and margin == 0:
        # a tight budget lost to rounding (rotor's dp does the same): sizes to the nearest slot, then finer slots
        plan, slot, exact = offload_plan(shrunk, slots, deadline, window, "nearest")
        rounding = f"slot = {slot} bytes, sizes to the nearest slot"
        if plan is None:
            plan, slot, exact = offload_plan(shrunk, 4 * slots, deadline, window)
            rounding = f"slot = {slot} bytes ({4 * slots} slots), sizes rounded up"
    if plan is None:
        return None, f"window {window}, margin {margin:.0%}: no sequence ({rounding})"
    return plan, (
        f"window {window}, margin {margin:.0%}: estimate {plan.estimate}, {len(plan.gaps)} offloads ({rounding})"
    )


def _remat_candidate(instance: Instance, deadline: Deadline) -> tuple[Solution, str] | None:
    """The remat-only `dp` answer on the chain (back to back), when remat alone fits M."""
    from .formulations.dp import dp

    try:
        chain = instance.as_chain()
        left = deadline.remaining()
        # when the DP used up the limit, dp still returns its cheap baseline incumbent (FEASIBLE)
        result = dp(chain, time_limit=math.inf if left is None else left, seed=0, params=None)
    except (InvalidInstanceError, InfeasibleError, TimeLimitReached):
        return None
    if result.solution is None:
        return None
    return result.solution, "remat-only dp's sequence"


def offload_dp(instance: Instance, /, *, time_limit: float, seed: int, params: OffloadDpParams | None) -> Result:
    """Our persistent DP with offloads (module docstring): a heuristic for kind ``chain-offload``.

    Parameters
    ----------
    instance
        A ``chain-offload`` instance (kind ``chain``: NOT_APPLICABLE).
    time_limit
        Seconds of wall time for the whole method, the table included; when it
        cuts the DP, the remat-only baseline found so far is returned.
    seed
        Random seed (unused: the DP is deterministic).
    params : OffloadDpParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        FEASIBLE with the fastest valid schedule among the DP's (timed two
        ways) and remat `dp`'s; OPTIMAL only when it meets Σfw + Σbw;
        NOT_APPLICABLE when none fits M. The DP's own estimate is in the
        notes; the objective is the registry's `evaluate`.
    """
    params = params or OffloadDpParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    deadline = Deadline.after(time_limit)
    found: list[tuple[float, Solution, str]] = []
    notes: list[str] = []

    def consider(solution: Solution, label: str) -> bool:
        if validate_two_levels(instance, solution):
            return False
        found.append((evaluate_two_levels(instance, solution)["makespan"], solution, label))
        return True

    try:
        for window in WINDOWS:
            for margin in MARGINS:
                plan, text = _plan_with_margin(instance, params.slots, deadline, window, margin)
                notes.append(text)
                if plan is None:
                    break  # a smaller budget finds nothing either
                copies = value_copies(instance.length, plan.sequence)
                valid = False
                for timing in ("dp", "serial", "late"):
                    deadline.check("timing the DP's schedule")
                    solution, _ = timed_schedule(instance, plan.sequence, copies, plan_bridges(instance, plan, timing))
                    label = f"our DP (window {window}, budget margin {margin:.0%}, prefetch timing {timing})"
                    valid = consider(solution, label) or valid
                if valid:
                    break  # a larger margin only recomputes more
    except TimeLimitReached:
        notes.append("the time limit cut the DP")
    if params.remat_candidate:
        remat = _remat_candidate(instance, deadline)
        if remat is not None:
            consider(*remat)
    bound = float(bounds.best(instance))
    if not found:
        return Result(status=Status.NOT_APPLICABLE, bound=bound, notes=(*notes, "no valid schedule found that fits M"))
    makespan, solution, label = min(found, key=lambda entry: entry[0])
    status = Status.OPTIMAL if makespan <= bound else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=bound, notes=(*notes, f"kept: {label}"))


__all__ = ["OffloadDpParams", "OffloadPlan", "offload_dp", "offload_plan", "plan_bridges"]
