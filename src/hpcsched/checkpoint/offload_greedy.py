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
   its own floor, its sequence with every activation dropped.
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
   schedule over all M'. Each try is run twice: the compute never waits
   for an offload, or (where no hidden bridge is left, or a bridge did not
   help) the compute operation starting at the first excess waits for the
   end of an offload that frees its copy (`offload_bridges.wait_for_offload`).

Every returned schedule is valid by the definition; the bound is Σfw + Σbw
(`bounds.best` for this kind), so the status is FEASIBLE unless the
makespan meets it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.deadline import Deadline, TimeLimitReached
from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.params import at_least
from ..core.result import Result, Status
from . import bounds, offload_bridges
from .model import Instance, Solution, store_all_peak, store_all_sequence
from .model.two_levels import evaluate_two_levels, memory_over_time, validate_two_levels
from .offload_bridges import Bridge, Copy, Timed, Wait, copy_gaps, durations, link_time, timing, value_copies


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
        self, instance: Instance, sequence: tuple, deadline: Deadline, early: bool, undo: str, wait: bool = False
    ) -> None:
        self.instance, self.sequence, self.deadline, self.early, self.undo = instance, sequence, deadline, early, undo
        self.wait = wait
        self.waits: list[Wait] = []
        self.tried_waits: set[Wait] = set()
        self.copies = value_copies(instance.length, sequence)
        self.gaps = copy_gaps(self.copies)
        self.dur = durations(instance, sequence)
        self.bridges: list[Bridge] = []
        self.offloaded: set[int] = set()
        self.tried_serial: set[tuple[int, int]] = set()
        self.used: set[tuple[int, int, int]] = set()
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
    """
    return _OffloadSearch(instance, tuple(sequence), deadline, early, undo, wait).run(max_bridges)


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


def remat_candidates(
    instance: Instance, count: int, slots: int, deadline: Deadline, recompute: bool = True
) -> list[tuple[str, tuple]]:
    """(label, remat sequence) for store-all, the persistent DP and (``recompute``) `greedy_candidates` at ``count``
    budgets between M and the peak, each sequence once (the first label kept)."""
    from .formulations.dp import persistent_dp
    from .model import validate as validate_chain

    peak = store_all_peak(instance)  # the chain's rules: the peak of Fall 0..L-1, B L..0 back to back
    chain = instance.with_memory(max(peak, instance.memory)).as_chain()  # M itself may be below the remat floor
    found = [("store-all", tuple(store_all_sequence(instance.length)))]
    for k in range(count if recompute else 0):
        deadline.check("remat sequences")
        budget = instance.memory + max(0, peak - instance.memory) * k // count
        try:
            candidate = chain.with_memory(budget)
        except (InvalidInstanceError, InfeasibleError):
            continue
        plan = persistent_dp(candidate, slots, deadline)
        if plan.time is not None and not validate_chain(candidate, Solution(plan.sequence)):
            found.append((f"persistent DP at M' = {budget}", tuple(plan.sequence)))
    if recompute:
        found += greedy_candidates(chain, instance.memory, count, deadline)
    first = {sequence: k for k, (_, sequence) in reversed(list(enumerate(found)))}
    return [found[k] for k in sorted(first.values())]  # each sequence once, at its first place


def greedy_candidates(chain: Instance, memory: int, count: int, deadline: Deadline) -> list[tuple[str, tuple]]:
    """(label, sequence) of the remat ``greedy`` heuristic at ``count`` budgets M' from ``memory`` to the peak.

    The heuristic's rule (`heuristics.greedy`): drop the xbar of the stages in
    increasing forward-time-per-byte order until the simulated peak fits M'.
    The kept sets are nested, so the peak of each prefix of the drop order is
    computed once; at an M' below every prefix's peak the last prefix (every
    activation dropped, the least memory the rule reaches) is taken. Duplicates
    are returned once.
    """
    from .heuristics import kept_sequence
    from .simulate import peak as simulated_peak

    L, peak = chain.length, store_all_peak(chain)
    # the order of heuristics.greedy: the forward time xbar_{i+1} saves per byte it holds
    order = sorted(range(L), key=lambda i: (chain.fw[i] / max(1, chain.xbar[i + 1]), -i))
    prefixes = []  # (kept, peak, sequence) for the first 0, 1, ... stages of the order dropped
    for dropped in range(L + 1):
        deadline.check("greedy remat sequences")
        kept = set(order[dropped:])
        sequence = tuple(kept_sequence(chain, kept))
        prefixes.append((len(kept), simulated_peak(chain, sequence), sequence))
        if prefixes[-1][1] <= memory:
            break  # the heuristic stops here at M, so at every larger M' too
    found: list[tuple[str, tuple]] = []
    for k in range(count):
        budget = memory + max(0, peak - memory) * k // count
        kept_count, _, sequence = next((p for p in prefixes if p[1] <= budget), prefixes[-1])
        if all(sequence != other for _, other in found):
            found.append((f"greedy at M' = {budget} ({kept_count} of {L} kept)", sequence))
    return found


def _plans(candidates: list[tuple[str, tuple]]) -> list[tuple[str, tuple, bool, str, bool]]:
    """(label, sequence, early, undo, wait) in order: no waits, waits, then undo "none" (see `offload_greedy`)."""
    plans = [
        (label, sequence, early, undo, wait)
        for wait in (False, True)
        for label, sequence in candidates
        for early in (True, False)
        for undo in ("earlier", "no-gain")
    ]
    return plans + [(label, sequence, True, "none", False) for label, sequence in candidates]


def offload_greedy(
    instance: Instance, /, *, time_limit: float, seed: int, params: OffloadGreedyParams | None
) -> Result:
    """Remat sequences (store-all, persistent DP and remat ``greedy`` at several budgets) plus greedy offloads.

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

    best: tuple[float, Solution, str] | None = None
    tried = 0
    try:
        candidates = remat_candidates(instance, params.budgets, params.slots, deadline, params.recompute)
        found_without_waits = False  # the undo "none" plans run only when no plan without waits fits
        for label, sequence, early, undo, wait in _plans(candidates):
            if undo == "none" and found_without_waits:
                break
            tried += 1
            solution = offload_sequence(instance, sequence, deadline, params.max_bridges, early, undo, wait)
            if solution is None:
                continue
            found_without_waits = found_without_waits or not wait
            makespan = evaluate_two_levels(instance, solution)["makespan"]
            if best is None or makespan < best[0]:
                when = "early" if early else "after the read"
                waits = ", compute may wait for offloads" if wait else ""
                best = (makespan, solution, f"{label}, offloads {when}, undo {undo}{waits}")
    except TimeLimitReached:
        if best is None:
            raise
    bound = float(bounds.best(instance))
    if best is None:
        return Result(
            status=Status.NOT_APPLICABLE,
            bound=bound,
            notes=(f"none of {tried} tries (remat sequence × offload timing) could be made to fit M",),
        )
    makespan, solution, label = best
    transfers = sum(1 for name, _ in solution.sequence if name in ("Off", "Pre", "Offall", "Preall"))
    status = Status.OPTIMAL if makespan <= bound else Status.FEASIBLE
    return Result(
        status=status,
        solution=solution,
        bound=bound,
        notes=(f"best of {tried} tries (remat sequence × offload timing): {label}, {transfers} transfers",),
    )


__all__ = ["OffloadGreedyParams", "offload_greedy", "offload_sequence", "remat_candidates"]
