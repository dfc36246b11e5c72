"""The table of `offload_dp`'s dynamic program: P(s, t, bar)[m] and the plan it chooses (see the package)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.deadline import Deadline
from ..model import Instance

_INFINITY = np.iinfo(np.int64).max // 4
_FILLING = "filling the offload DP table"


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


def _check_size(length: int, budget: int, deadline: Deadline) -> None:
    """Refuse, before any work, a table over `MAX_TABLE_BYTES` (`DpTableTooLarge`) or one whose fill, ~L³·(W + 1)/3
    elements (two inputs per cell), cannot finish in the time left (`DpTooSlow`): the limits of rotor's DP."""
    from ..persistent.table import FILL_ELEMENTS_PER_SECOND, MAX_TABLE_BYTES, DpTableTooLarge, DpTooSlow

    cells = 2 * (length + 1) * (length + 2) // 2 * (budget + 1)
    if cells * 13 > MAX_TABLE_BYTES:  # int64 value, int32 choice, int8 offload flag per cell
        raise DpTableTooLarge(f"the offload DP table needs {cells} cells ({cells * 13 / 2**30:.3g} GiB)")
    work, left = length**3 * (budget + 1) / 3, deadline.remaining()
    if left is not None and work > FILL_ELEMENTS_PER_SECOND * left:
        raise DpTooSlow(
            f"time limit too short for the offload DP: ~{work:.3g} element operations, more than "
            f"{FILL_ELEMENTS_PER_SECOND:.3g}/s × the {left:.3g} s left"
        )


class _OffloadTable:
    """P(s, t, bar)[m] of the `offload_dp` docstring, vectorized over the budget m (0..W slots).

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
        from ..persistent.slots import slot_size, slot_sizes

        slot, exact = slot_size(instance, slots)
        sizes = slot_sizes(instance, slot, exact, rounding)
        self.instance, self.slot, self.exact, self.L = instance, slot, exact, instance.length
        self.window = window
        self.X, self.XB, self.FT, self.BT = sizes.x, sizes.xbar, sizes.ftmp, sizes.btmp
        # the whole budget in slots; x_0 is charged X[0] slots at the top, returned when it is offloaded
        self.W = instance.memory // slot if rounding == "up" else (2 * instance.memory + slot) // (2 * slot)
        self.m = np.arange(self.W + 1)
        L = self.L
        _check_size(L, self.W, deadline)
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

    def _expand(self, item: tuple, sequence: list, gaps: list[list], stack: list[tuple]) -> None:
        """Subproblem ``item`` = (s, t, bar, budget), s < L: append its first forwards, push the rest."""
        s, t, bar, budget = item
        X, XB = self.X, self.XB
        cell = self.index[s, t]
        how, offload = int(self.choice[bar, cell, budget]), int(self.offloaded[bar, cell, budget])
        opens = len(sequence)  # Fall s or F s: the last read of the input before the gap
        if how == -1:
            sequence.append(("Fall", s))
            stack.append(("op", "B", s))
            inner, nxt = budget - XB[s + 1], (s + 1, t, 1)
        else:
            sequence.extend(("F", k) for k in range(s, how))
            stack.append((s, how - 1, bar, budget))
            inner, nxt = budget - X[how], (how, t, 0)
        if offload:
            stack.append(("closes", len(gaps)))
            gaps.append([("xbar" if bar else "x", s), opens, None, offload == 1])
            inner = min(self.W, inner + (XB[s] if bar else X[s]))
        stack.append((*nxt, inner))

    def plan(self) -> OffloadPlan | None:
        """The chosen sequence at the full budget and its offloaded gaps (None: nothing fits)."""
        L = self.L
        top = self.W - self.X[0]
        if top < 0 or self.row(0, L, 0)[top] >= _INFINITY:
            return None
        sequence: list[tuple[str, int]] = []
        gaps: list[list] = []
        # an explicit stack of subproblems (s, t, bar, budget), literal operations and gap ends (no recursion)
        stack: list[tuple] = [(0, L, 0, top)]
        while stack:
            item = stack.pop()
            if item[0] == "op":
                sequence.append((item[1], item[2]))
            elif item[0] == "closes":
                gaps[item[1]][2] = len(sequence)  # the next operation reads the prefetched input
            elif item[0] == item[1] + 1:
                continue  # the empty chain
            elif item[0] == L:
                sequence.append(("B", L))
            else:
                self._expand(item, sequence, gaps, stack)
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


__all__ = ["OffloadPlan", "offload_plan"]
