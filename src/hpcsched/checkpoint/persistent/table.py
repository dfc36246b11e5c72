"""The table of rotor's persistent DP: P(s, t)[m] filled in place, and the sequence it chooses.

See the package (`persistent`) for the recurrence. The table is refused before any work when it
would exceed `MAX_TABLE_BYTES` or ``max_cells`` (`DpTableTooLarge`), or when
its fill could not finish in the time left (`TimeLimitReached`).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ..model import Instance
from .slots import SlotSizes

INFINITY = np.iinfo(np.int64).max // 4
#: Element operations per second the table's fill is assumed to reach at most (measured 2.6e8 on a 2-core
#: machine; 2e9 is optimistic): a DP that needs more than this × the time left would be cut anyway, so
#: it is not started and the incumbent answers at once.
FILL_ELEMENTS_PER_SECOND = 2e9
#: Bytes the table (int64 values and int16 choices per cell) may take whatever the time limit.
MAX_TABLE_BYTES = 4 * 2**30
_BUILDING = "building the DP table"
#: Runs of equal forward needs up to which the checkpoint block is masked by slices (see `_mask_too_small`).
_MOST_RUNS = 16


class DpTooSlow(TimeLimitReached):
    """The DP's fill could not finish in the time left (`FILL_ELEMENTS_PER_SECOND`): not started.

    A `TimeLimitReached` (the limit is what is short), raised before any work, so a caller with
    other things to try in the time left may catch it and go on.
    """


class DpTableTooLarge(Exception):
    """The DP table would exceed ``max_cells`` or `MAX_TABLE_BYTES` (deterministic budgets, unlike the time limit)."""


class PersistentTable:
    """The DP table P(s, t)[m] of `persistent_dp` and its choices.

    Filled by increasing t, and for each t by decreasing s: P(s, t) reads
    P(s+1, t) and P(s', t) (s' > s, same t) and P(s, s'−1) (smaller t). Each
    cell is computed in place in its table row, with work buffers allocated
    once: allocating numpy temporaries per cell cost more system time (page
    faults) than the arithmetic.

    Parameters
    ----------
    instance
        A ``chain`` instance.
    sizes
        Its sizes in slots.
    """

    def __init__(self, instance: Instance, sizes: SlotSizes, deadline: Deadline, max_cells: int | None = None) -> None:
        L, S = instance.length, sizes.budget
        cells = (L + 1) * (L + 2) // 2 * (S + 1)
        if max_cells is not None and cells > max_cells:
            raise DpTableTooLarge(f"the DP table needs {cells} cells > max_cells = {max_cells}")
        if cells * 10 > MAX_TABLE_BYTES:
            raise DpTableTooLarge(
                f"the DP table needs {cells} cells ({cells * 10 / 2**30:.3g} GiB > {MAX_TABLE_BYTES / 2**30:g} GiB)"
            )
        # each of the ~L²/2 cells scans the t − s checkpoints over S + 1 budgets: ~L³·(S + 1)/6 elements
        work, left = L**3 * (S + 1) / 6, deadline.remaining()
        if left is not None and work > FILL_ELEMENTS_PER_SECOND * left:
            raise DpTooSlow(
                f"time limit too short for the DP: ~{work:.3g} element operations, more than "
                f"{FILL_ELEMENTS_PER_SECOND:.3g}/s × the {left:.3g} s left"
            )
        self.instance, self.sizes, self.L, self.S = instance, sizes, L, S
        self.fw_prefix = np.concatenate([[0], np.cumsum(np.array(instance.fw, dtype=np.int64))])
        self.m = np.arange(S + 1)
        self.index = -np.ones((L + 2, L + 1), dtype=np.int64)
        pairs = 0
        for s in range(L + 1):
            deadline.check(_BUILDING)
            for t in range(s, L + 1):
                self.index[s, t] = pairs
                pairs += 1
        self.table = np.full((pairs, S + 1), INFINITY, dtype=np.int64)
        # choice: -1 Fall, s' > 0 checkpoint x_{s'}, -2 infeasible
        self.choice = np.full((pairs, S + 1), -2, dtype=np.int16 if L < 32000 else np.int32)
        self.forward_need = self._forward_needs(deadline)
        # Work buffers. Row s' of `shifted` is P(s', t) shifted right by X[s'] (the budget left
        # once x_{s'} is stored), for the t being filled: the checkpoints' right-hand rows, contiguous.
        self.shifted = np.full((L + 1, S + 1), INFINITY, dtype=np.int64)
        self.cost = np.empty((max(L, 1), S + 1), dtype=np.int64)
        self.too_small = np.empty((max(L, 1), S + 1), dtype=bool)
        self.better = np.empty(S + 1, dtype=bool)

    def _forward_needs(self, deadline: Deadline) -> list[np.ndarray]:
        """Forward need of F s .. F s'-1 (without delta_{t+1}): running max, per s."""
        X, FT = self.sizes.x, self.sizes.ftmp
        forward_need = []
        for s in range(self.L + 1):
            deadline.check(_BUILDING)
            need, running = [], 0
            for k in range(s, self.L):
                running = max(running, (X[k] if k > s else 0) + X[k + 1] + FT[k])
                need.append(running)  # need[s' - s - 1] for s' = k + 1
            forward_need.append(np.array(need, dtype=np.int64))
        return forward_need

    def fill(self, deadline: Deadline) -> None:
        """Every cell, by increasing t and decreasing s."""
        for t in range(self.L + 1):
            for s in range(t, -1, -1):
                deadline.check("filling the DP table")
                self._fill_cell(s, t)

    def _fill_cell(self, s: int, t: int) -> None:
        """P(s, t): the better of ``Fall s`` first and every checkpoint s' in (s, t], written in its row."""
        L = self.L
        held = self.sizes.x[t + 1] if t < L else 0
        best, how = self.table[self.index[s, t]], self.choice[self.index[s, t]]  # views, still INF / -2
        if s == L:  # t == L
            fits = self.sizes.x[L] + self.sizes.btmp[L]
            best[fits:], how[fits:] = self.instance.bw[L], -1
        else:
            self._try_fall_first(s, t, held, best, how)
        if t > s and s < L:
            self._try_checkpoints(s, t, held, best, how)
        self._keep_shifted(s, best)

    def _keep_shifted(self, s: int, best: np.ndarray) -> None:
        """Row s of `shifted`: P(s, t) at the budget m − X[s] (INF below X[s])."""
        shift = min(self.sizes.x[s], self.S + 1)
        self.shifted[s, :shift] = INFINITY
        self.shifted[s, shift:] = best[: self.S + 1 - shift]

    def _try_fall_first(self, s: int, t: int, held: int, best: np.ndarray, how: np.ndarray) -> None:
        """``Fall s``, P(s+1, t) with xbar_{s+1} held, ``B s`` (the first candidate: ``best`` is all INF)."""
        X, XB, S = self.sizes.x, self.sizes.xbar, self.S
        need = max(held + XB[s + 1] + self.sizes.ftmp[s], XB[s + 1] + X[s + 1] + X[s] + self.sizes.btmp[s], XB[s + 1])
        if need > S:
            return
        step = self.instance.fw[s] + self.instance.bw[s]
        if s == t:  # P(s+1, s) = 0
            best[need:], how[need:] = step, -1
            return
        sub = self.table[self.index[s + 1, t], need - XB[s + 1] : S + 1 - XB[s + 1]]
        np.add(sub, step, out=best[need:])
        np.minimum(best[need:], INFINITY, out=best[need:])  # INF + step back to INF
        np.less(sub, INFINITY, out=self.better[need:])
        np.copyto(how[need:], -1, where=self.better[need:])

    def _try_checkpoints(self, s: int, t: int, held: int, best: np.ndarray, how: np.ndarray) -> None:
        """Every checkpoint s' in (s, t] at once: P(s', t) shifted by X[s'] plus P(s, s'-1), rows s' − s − 1.

        An entry where either part is INF sums to at least INF and never
        beats ``best`` (at most INF), so only the forwards' need is masked.
        """
        count, first = t - s, self.index[s, s]
        cost = self.cost[:count]
        # P(s', t) at m − X[s'] (rows s+1 .. t of `shifted`) + P(s, s'−1) at m (rows (s, s) .. (s, t−1))
        np.add(self.shifted[s + 1 : t + 1], self.table[first : first + count], out=cost)
        np.add(cost, (self.fw_prefix[s + 1 : t + 1] - self.fw_prefix[s])[:, None], out=cost)
        self._mask_too_small(cost, self.forward_need[s][:count] + held)
        pick = np.argmin(cost, axis=0)
        value = np.take_along_axis(cost, pick[None, :], axis=0)[0]
        np.less(value, best, out=self.better)
        np.copyto(best, value, where=self.better)
        np.copyto(how, pick + (s + 1), where=self.better)

    def _mask_too_small(self, cost: np.ndarray, need: np.ndarray) -> None:
        """INF where the budget m is below row j's forward need (``need`` is non-decreasing: a running max).

        The needs come in few runs of equal values on most chains (a running
        max of sizes), and a slice per run is much cheaper than a boolean mask
        over the whole block; many runs fall back to the mask.
        """
        starts = np.flatnonzero(np.diff(need)) + 1
        if len(starts) >= _MOST_RUNS:
            too_small = self.too_small[: len(need)]
            np.less(self.m, need[:, None], out=too_small)
            np.copyto(cost, INFINITY, where=too_small)
            return
        for first, end in pairwise([0, *starts.tolist(), len(need)]):
            cost[first:end, : need[first]] = INFINITY

    def sequence(self) -> tuple[tuple[str, int], ...]:
        """The optimal sequence of P(0, L) at the full budget, from the choices."""
        L, X, XB = self.L, self.sizes.x, self.sizes.xbar
        sequence: list[tuple[str, int]] = []
        # explicit stack of (s, t, m) subproblems and literal operations, to avoid recursion limits
        stack: list = [(0, L, self.S)]
        while stack:
            item = stack.pop()
            if isinstance(item[0], str):
                sequence.append(item)
                continue
            s, t, budget = item
            if s == t + 1:
                continue
            how = int(self.choice[self.index[s, t], budget])
            if s == L:
                sequence.append(("B", L))
            elif how == -1:
                # Fall s, P(s+1, t), B s  (pushed in reverse)
                stack.append(("B", s))
                stack.append((s + 1, t, budget - XB[s + 1]))
                sequence.append(("Fall", s))
            else:
                sp = how
                stack.append((s, sp - 1, budget))
                stack.append((sp, t, budget - X[sp]))
                sequence.extend(("F", k) for k in range(s, sp))
        return tuple(sequence)
