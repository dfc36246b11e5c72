"""A two-level heuristic for kind ``chain-offload``: a remat sequence, then offload what the link can hide.

The stated greedy (POFO's DP, Beaumont, Eyraud-Dubois & Shilova, NeurIPS
2021, is not restated here: see docs/checkpoint.md):

1. **Remat sequences.** For a few remat budgets M' between the two-level
   budget M and the store-all peak (the store-all sequence itself, and
   rotor's persistent DP at M' on a grid), take the remat sequence valid at
   M' as a chain. A larger M' recomputes less but holds more. The
   non-persistent `greedy` heuristic's sequence at each M' of the grid is a
   candidate too (it beats the persistent DP near the peak: it may drop the
   input of a recorded stage and read it through the previous xbar); below
   its own floor, its sequence with every activation dropped. Store-all and
   the greedy sequences (O(L²) in all) are tried before the DP's are made
   (`offload_candidates`), so a time limit cutting the DP still leaves them.
2. **Bridges.** In that sequence every GPU copy (x_0, the output of each
   ``F``/``Fall``) has a creation and reads; a *gap* is the time between two
   consecutive uses (creation or read) of one copy. A bridge over a gap
   offloads the copy right after the use that opens it (``Off``/``Offall``,
   once per copy: the host copy stays valid for later gaps) and prefetches
   it just in time before the read that closes it (``Pre``/``Preall``),
   as late as the in channel allows (a reverse pass over the planned
   prefetches); the compute stream waits only when a prefetch is late.
3. **Greedy.** While the schedule exceeds M: at the first instant over the
   budget, bridge the largest copy whose gap covers that instant with room
   for both transfers (else any gap covering it, the link then delays the
   compute); re-time; a bridge that moves the first excess earlier, or
   leaves it at the same instant no smaller, is undone; re-check memory
   with the definition (`two_levels.validate`). Keep the best valid
   schedule over all M' (the tries stop once one meets the lower bound).
   Each try is run twice: the compute never waits for an offload, or
   (where no hidden bridge is left, or a bridge did not help) the compute
   operation starting at the first excess waits for the end of an offload
   that frees its copy (`offload_bridges.wait_for_offload`).

Every returned schedule is valid by the definition; the bound is Σfw + Σbw
(`bounds.best` for this kind), so the status is FEASIBLE unless the
makespan meets it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.deadline import Deadline, TimeLimitReached
from ..core.params import at_least
from ..core.result import Result, Status
from . import bounds, offload_bridges
from .model import Instance, Solution, too_long_to_check
from .model.two_levels import evaluate_two_levels, memory_over_time, validate_two_levels
from .offload_bridges import Bridge, Copy, Timed, Wait, copy_gaps, durations, link_time, timing, value_copies
from .offload_candidates import (
    dp_candidates,
    greedy_remat_candidates,
    remat_candidates,
    store_all_candidate,
    unique_sequences,
)


@dataclass(frozen=True)
class OffloadGreedyParams:
    """Options of `offload_greedy`.

    Attributes
    ----------
    budgets
        Remat budgets tried between M and the store-all peak (besides store-all itself).
    slots
        Memory slots of the persistent DP that makes each remat sequence.
    max_bridges
        Most bridges added to one remat sequence.
    recompute
        False: only the store-all sequence (every stage forwarded once): offload only.
    """

    budgets: int = 6
    slots: int = 200
    max_bridges: int = 2000
    recompute: bool = True

    def __post_init__(self) -> None:
        at_least("budgets", self.budgets, 1)
        at_least("slots", self.slots, 1)
        at_least("max_bridges", self.max_bridges, 0)


@dataclass(frozen=True)
class _Attempt:
    """The bridges and waits before the last one was added, and the first excess (instant, bytes) they left."""

    bridges: list[Bridge]
    waits: list[Wait]
    first_excess: tuple[int, int]


class _OffloadSearch:
    """The bridge-adding loop of `offload_sequence` (module docstring, step 3), one method per step.

    Parameters
    ----------
    instance
        A ``chain-offload`` instance.
    sequence
        The remat sequence to add bridges to.
    deadline
        Checked once per iteration, in each timing round and before validating.
    early, undo, wait
        As in `offload_sequence`.
    """

    def __init__(
        self,
        instance: Instance,
        sequence: tuple,
        deadline: Deadline,
        early: bool,
        undo: str,
        wait: bool = False,
        start: tuple[Bridge, ...] = (),
    ) -> None:
        self.instance, self.sequence, self.deadline, self.early, self.undo = instance, sequence, deadline, early, undo
        self.wait = wait
        self.waits: list[Wait] = []
        self.tried_waits: set[Wait] = set()
        self.copies = value_copies(instance.length, sequence)
        self.gaps = copy_gaps(self.copies)
        self.dur = durations(instance, sequence)
        self.bridges: list[Bridge] = list(start)
        self.offloaded: set[int] = {b.copy for b in start}
        self.tried_serial: set[tuple[int, int]] = set()
        self.used: set[tuple[int, int, int]] = {(b.copy, b.opens, b.closes) for b in start}
        self.previous: _Attempt | None = None

    def run(self, max_bridges: int) -> Solution | None:
        """Add bridges at the first excess until the schedule fits M; None when it cannot."""
        for _ in range(4 * max_bridges + 1):
            self.deadline.check("adding offloads")
            timed, over = self._timed_excess()
            if not over:
                self.deadline.check("validating a schedule")
                return timed.solution if not validate_two_levels(self.instance, timed.solution) else None
            undo_to = self.previous
            if undo_to is not None and self._last_bridge_useless(over):
                if self.wait and self._wait_for_an_offload(timed, over[0][0]):
                    continue  # its offload may yet help once the compute waits for it (undone together if not)
                # the last bridge or wait did not lower the first excess: undo it (its gap or wait stays tried)
                self.bridges, self.waits = undo_to.bridges, undo_to.waits
                self.offloaded = {b.copy for b in self.bridges}
                timed, over = self._timed_excess()
            if len(self.bridges) >= max_bridges:
                return None
            self.previous = _Attempt(list(self.bridges), list(self.waits), over[0])
            instant = over[0][0]
            gap, hidden = self._best_gap(timed, instant)
            if gap is not None and (hidden or not self.wait):
                self._add_bridge(gap)
            elif self.wait and self._wait_for_an_offload(timed, instant):
                continue
            elif gap is not None:
                self._add_bridge(gap)
            elif not self._serialize_a_prefetch(timed.prefetches, instant):
                return None
        return None

    def _wait_for_an_offload(self, timed: Timed, instant: int) -> bool:
        """Make the compute at ``instant`` wait for an offload (`offload_bridges.wait_for_offload`); False: none."""
        wait = offload_bridges.wait_for_offload(timed, self.bridges, instant, self.tried_waits)
        if wait is None:
            return False
        self.tried_waits.add(wait)
        self.waits.append(wait)
        return True

    def _timed_excess(self) -> tuple[Timed, list[tuple[int, int]]]:
        """The timing of the current bridges and waits, and every (instant, bytes) over M."""
        instance, waits = self.instance, tuple(self.waits)
        timed = timing(instance, self.sequence, self.copies, self.bridges, self.early, waits, self.deadline)
        return timed, [(t, held) for t, held in memory_over_time(instance, timed.solution) if held > instance.memory]

    def _last_bridge_useless(self, over: list[tuple[int, int]]) -> bool:
        """Whether the last bridge is to be undone (``undo``, see `offload_sequence`)."""
        previous = self.previous
        if self.undo == "none" or previous is None:
            return False
        (instant, held), (instant_before, held_before) = over[0], previous.first_excess
        if self.undo == "no-gain":
            return instant <= instant_before and held >= held_before
        return instant < instant_before or (instant == instant_before and held >= held_before)

    def _best_gap(self, timed: Timed, instant: int) -> tuple[tuple[int, int, int] | None, bool]:
        """The untried gap spanning ``instant`` that hides best, moves most, is longest; and whether it hides."""
        instance, copies, dur = self.instance, self.copies, self.dur
        position_start = timed.compute_start
        best = None
        for gap in self.gaps:
            if gap in self.used:
                continue
            c, a, z = gap
            lo, hi = (0 if a < 0 else position_start[a] + dur[a]), position_start[z]
            value = copies[c].value
            size = instance.x[value[1]] if value[0] == "x" else instance.xbar[value[1]]
            need_out = link_time(instance, value, "out") if c not in self.offloaded or value[0] == "xbar" else 0
            need_in = link_time(instance, value, "in")
            if not lo <= instant < hi:
                continue
            hidden = lo + need_out <= instant and instant + need_in <= hi
            key = (hidden, size, hi - lo)
            if best is None or key > best[0]:
                best = (key, gap)
        return (None, False) if best is None else (best[1], best[0][0])

    def _add_bridge(self, gap: tuple[int, int, int]) -> None:
        """Bridge ``gap``; the first bridge in time of a copy writes its host copy."""
        c, a, z = gap
        self.used.add(gap)
        self.bridges.append(Bridge(c, a, z, c not in self.offloaded))
        self.offloaded.add(c)
        self.bridges = _reassign_offloads(self.bridges, self.copies)

    def _serialize_a_prefetch(self, windows: dict, instant: int) -> bool:
        """No copy to move away at ``instant``: make the latest-ending prefetch running then wait for the
        compute operation before its reader (time traded for memory); False when there is none."""
        running = [
            b
            for b, (lo, hi) in windows.items()
            if lo <= instant < hi and not b.serial and (b.copy, b.opens) not in self.tried_serial
        ]
        if not running:
            return False
        late = max(running, key=lambda b: windows[b][1])
        self.tried_serial.add((late.copy, late.opens))
        self.bridges = [Bridge(b.copy, b.opens, b.closes, b.offload, True) if b == late else b for b in self.bridges]
        return True


def offload_sequence(
    instance: Instance,
    sequence,
    deadline: Deadline,
    max_bridges: int,
    early: bool = True,
    undo: str = "earlier",
    wait: bool = False,
    start: tuple[Bridge, ...] = (),
) -> Solution | None:
    """Add bridges to a remat ``sequence`` until it fits M (module docstring, step 3); None when it cannot.

    ``early``: an offload starts as soon as its copy is ready (overlapping the reads before its gap,
    ending no earlier than they do); otherwise after the read that opens the gap (the link is then
    busy for less of the time the copy is still needed on the GPU). ``undo``: which bridge is undone
    (its gap stays marked as tried): ``"earlier"`` one that moves the first excess earlier, or leaves it
    at the same instant no smaller (an earlier excess is a regression even when smaller: e.g. a large
    offload placed first on the link delays the others past the instants they relieved); ``"no-gain"``
    one that leaves the first excess no later and no smaller (keeps an earlier, smaller one);
    ``"none"``: none. Neither rule dominates the other on random chains, so both are tried. ``wait``: where
    no hidden bridge is left at the first excess, or a bridge did not help, the compute starting there
    waits for an offload that frees memory (`offload_bridges.wait_for_offload`); else it never does.
    ``start``: bridges already chosen (e.g. by `offload_dp`); the undo rules undo only bridges added here.
    """
    return _OffloadSearch(instance, tuple(sequence), deadline, early, undo, wait, start).run(max_bridges)


def _reassign_offloads(bridges: list[Bridge], copies: list[Copy]) -> list[Bridge]:
    """Only the earliest bridge of an x copy offloads (later ones reuse the host copy); every bridge of an
    xbar copy offloads, since an xbar copy serves reads of x only up to its last *explicit* read (the
    ``Offall`` that ends its segment)."""
    first: dict[int, int] = {}
    for b in bridges:
        first[b.copy] = min(first.get(b.copy, b.opens), b.opens)
    return [
        Bridge(b.copy, b.opens, b.closes, copies[b.copy].value[0] == "xbar" or b.opens == first[b.copy], b.serial)
        for b in bridges
    ]


def _plans(candidates: list[tuple[str, tuple]], waits: bool = True) -> list[tuple[str, tuple, bool, str, bool]]:
    """(label, sequence, early, undo, wait) in order: no waits, then (``waits``) waits (see `offload_greedy`)."""
    return [
        (label, sequence, early, undo, wait)
        for wait in ((False, True) if waits else (False,))
        for label, sequence in candidates
        for early in (True, False)
        for undo in ("earlier", "no-gain")
    ]


class _Tries:
    """The best valid schedule over the tries of `offload_greedy`, kept as they run (a time limit keeps it)."""

    def __init__(self, instance: Instance, deadline: Deadline, max_bridges: int, bound: float) -> None:
        self.instance, self.deadline, self.max_bridges, self.bound = instance, deadline, max_bridges, bound
        self.best: tuple[float, Solution, str] | None = None
        self.tried, self.too_long = 0, ""  # too_long: why a sequence was skipped (`too_long_to_check`)
        self.found_without_waits = False  # the undo "none" tries run only when no try without waits fits

    def met_bound(self) -> bool:
        """Whether the best schedule meets the lower bound (then it is optimal: no try can beat it)."""
        return self.best is not None and self.best[0] <= self.bound

    def run(self, plans: list[tuple[str, tuple, bool, str, bool]]) -> None:
        """Try each plan (remat sequence, offload timing, undo rule, waits) and keep the fastest valid schedule;
        stop once it meets the lower bound (nothing can beat it)."""
        for label, sequence, early, undo, wait in plans:
            if self.met_bound():
                return
            # with its offloads (at most an Off and a Pre per operation) too long to check in time: skipped
            if why := too_long_to_check(self.instance.kind, 2 * len(sequence), self.deadline):
                self.too_long = why
                continue
            self.tried += 1
            solution = offload_sequence(self.instance, sequence, self.deadline, self.max_bridges, early, undo, wait)
            if solution is None:
                continue
            self.found_without_waits = self.found_without_waits or not wait
            makespan = evaluate_two_levels(self.instance, solution)["makespan"]
            if self.best is None or makespan < self.best[0]:
                when = "early" if early else "after the read"
                waits = ", compute may wait for offloads" if wait else ""
                self.best = (makespan, solution, f"{label}, offloads {when}, undo {undo}{waits}")


def offload_greedy(
    instance: Instance, /, *, time_limit: float, seed: int, params: OffloadGreedyParams | None
) -> Result:
    """Remat sequences (store-all, remat ``greedy`` and persistent DP at several budgets) plus greedy offloads.

    The sequences are made and tried in three phases, store-all, the remat
    greedy's, the persistent DP's (`offload_candidates`), so a time limit
    that cuts a later phase still returns the best schedule found; the undo
    "none" tries run last, only when no try without waits fits.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused: the heuristic is deterministic).
    params : OffloadGreedyParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        FEASIBLE with the best valid two-level schedule found (OPTIMAL when it
        reaches the lower bound); NOT_APPLICABLE for kind ``chain`` or when no
        schedule found fits M.
    """
    params = params or OffloadGreedyParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    deadline = Deadline.after(time_limit)
    bound = float(bounds.best(instance))
    tries = _Tries(instance, deadline, params.max_bridges, bound)
    notes: list[str] = []
    phases = [lambda: [store_all_candidate(instance)]]
    if params.recompute:
        phases += [
            lambda: greedy_remat_candidates(instance, params.budgets, deadline),
            lambda: dp_candidates(instance, params.budgets, params.slots, deadline),
        ]
    every: list[tuple[str, tuple]] = []  # each sequence once, in the order tried
    try:
        for make in phases:
            if tries.met_bound():
                break
            known = {sequence for _, sequence in every}
            fresh = [(label, sequence) for label, sequence in unique_sequences(make()) if sequence not in known]
            every += fresh
            tries.run(_plans(fresh))
        if not tries.found_without_waits:
            tries.run([(label, sequence, True, "none", False) for label, sequence in every])
    except TimeLimitReached:
        if tries.best is None:
            raise
        notes.append("the time limit cut the tries (store-all first, then the greedy's, then the DP's sequences)")
    if tries.best is None:
        none = f"none of {tries.tried} tries (remat sequence × offload timing) could be made to fit M"
        status = Status.TIME_LIMIT_NO_SOLUTION if tries.too_long else Status.NOT_APPLICABLE
        return Result(status=status, bound=bound, notes=(none, tries.too_long) if tries.too_long else (none,))
    makespan, solution, label = tries.best
    transfers = sum(1 for name, _ in solution.sequence if name in ("Off", "Pre", "Offall", "Preall"))
    status = Status.OPTIMAL if makespan <= bound else Status.FEASIBLE
    return Result(
        status=status,
        solution=solution,
        bound=bound,
        notes=(
            *notes,
            f"best of {tries.tried} tries (remat sequence × offload timing): {label}, {transfers} transfers",
        ),
    )


__all__ = ["OffloadGreedyParams", "offload_greedy", "offload_sequence", "remat_candidates"]
