"""A two-level heuristic for kind ``chain-offload``: a remat sequence, then offload what the link can hide.

The stated greedy (POFO's DP, Beaumont, Eyraud-Dubois & Shilova, NeurIPS
2021, is not restated here: see docs/checkpoint.md):

1. **Remat sequences.** For a few remat budgets M' between the two-level
   budget M and the store-all peak (the store-all sequence itself, and
   rotor's persistent DP at M' on a grid), take the remat sequence valid at
   M' as a chain. A larger M' recomputes less but holds more.
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
   compute); re-time; re-check memory with the definition
   (`two_levels.validate`). Keep the best valid schedule over all M'.

Every returned schedule is valid by the definition; the bound is Σfw + Σbw
(`bounds.best` for this kind), so the status is FEASIBLE unless the
makespan meets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from ..core.deadline import Deadline, TimeLimitReached
from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.params import at_least
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, store_all_peak, store_all_sequence
from .model.two_levels import evaluate_two_levels, memory_over_time, validate_two_levels


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
class _Copy:
    """A GPU copy in a remat sequence: its value, creator position (-1: x_0) and read positions."""

    value: tuple[str, int]
    created: int
    reads: tuple[int, ...]


Made = list[tuple[tuple[str, int], int]]  # (value, creator position; -1: x_0) per copy, in list order


def _created_copies(sequence: tuple[tuple[str, int], ...]) -> Made:
    """The copies a remat sequence creates: x_0 at -1, then one per ``F`` / ``Fall``."""
    made: Made = [(("x", 0), -1)]
    for k, (name, stage) in enumerate(sequence):
        if name == "F":
            made.append((("x", stage + 1), k))
        elif name == "Fall":
            made.append((("xbar", stage + 1), k))
    return made


def _xbar_span_ends(made: Made, sequence: tuple[tuple[str, int], ...]) -> dict[int, int]:
    """The explicit end of each xbar copy: the first ``B i-1`` after its creation (its creator if none)."""
    span_end: dict[int, int] = {}
    for c, ((kind, i), p) in enumerate(made):
        if kind == "xbar":
            span_end[c] = next((k for k in range(p + 1, len(sequence)) if sequence[k] == ("B", i - 1)), p)
    return span_end


def _latest_copy(made: Made, value: tuple[str, int], k: int) -> int:
    """The latest copy of ``value`` created before position k."""
    return max(c for c, (v, p) in enumerate(made) if v == value and p < k)


def _server_of_x(made: Made, span_end: dict[int, int], i: int, k: int) -> int:
    """The copy serving a read of x_i at position k: an xbar_i copy whose span covers k, else x_i's latest."""
    serving = [c for c, (v, p) in enumerate(made) if v == ("xbar", i) and p < k <= span_end[c]] if i else []
    return serving[-1] if serving else _latest_copy(made, ("x", i), k)


def _copies(length: int, sequence: tuple[tuple[str, int], ...]) -> list[_Copy]:
    """The copies of a remat sequence and which positions read each (the chain's least-fixpoint rule)."""
    made = _created_copies(sequence)
    reads: dict[int, list[int]] = {c: [] for c in range(len(made))}
    span_end = _xbar_span_ends(made, sequence)
    for k, (name, stage) in enumerate(sequence):
        if name == "B" and stage < length:
            reads[_latest_copy(made, ("xbar", stage + 1), k)].append(k)
        if name in ("F", "Fall", "B"):
            c = _server_of_x(made, span_end, stage, k)
            if k not in reads[c]:
                reads[c].append(k)
    return [_Copy(v, p, tuple(sorted(reads[c]))) for c, (v, p) in enumerate(made)]


@dataclass(frozen=True)
class _Bridge:
    """Copy ``copy`` is absent from the GPU between use ``opens`` and read ``closes`` (list positions)."""

    copy: int
    opens: int  # position of the creation or read after which it is offloaded (-1: x_0 at time 0)
    closes: int  # position of the read it is prefetched for
    offload: bool  # the first bridge of its copy writes the host copy
    serial: bool = False  # the prefetch waits for the compute operation before ``closes`` to end


def _durations(instance: Instance, sequence) -> list[int]:
    return [instance.bw[s] if n == "B" else instance.fw[s] for n, s in sequence]


def _link_time(instance: Instance, value: tuple[str, int], direction: str) -> int:
    size = instance.x[value[1]] if value[0] == "x" else instance.xbar[value[1]]
    return instance.transfer_time(size, direction)


def _timed(
    instance: Instance, sequence, copies: list[_Copy], bridges: list[_Bridge], early: bool = True
) -> tuple[Solution, dict[_Bridge, tuple[int, int]]]:
    """The explicit schedule of ``sequence`` with ``bridges`` (module docstring, step 2).

    The prefetches are planned as late as possible against compute start
    times that are first back to back, then those of the previous timing
    (a late prefetch delays the compute, so earlier plans would prefetch too
    early and hold memory for nothing); a few rounds, the lowest peak kept.
    """

    planned, now = [], 0
    for d in _durations(instance, sequence):
        planned.append(now)
        now += d
    best: tuple[tuple[int, int], Solution, dict[_Bridge, tuple[int, int]]] | None = None
    for _ in range(4):
        solution, actual, windows = _timed_once(instance, sequence, copies, bridges, planned, early)
        peak = max((held for _, held in memory_over_time(instance, solution)), default=0)
        key = (max(0, peak - instance.memory), max(t for t in (solution.start or (0,))))
        if best is None or key < best[0]:
            best = (key, solution, windows)
        if actual == planned:
            break
        planned = actual
    assert best is not None  # the loop runs at least once
    return best[1], best[2]


def _timed_once(
    instance: Instance, sequence, copies: list[_Copy], bridges: list[_Bridge], planned: list[int], early: bool
) -> tuple[Solution, list[int], dict[_Bridge, tuple[int, int]]]:
    """One timing of `_timed` against ``planned`` compute starts; also the compute starts it got and each
    prefetch's interval."""
    dur = _durations(instance, sequence)
    half = instance.duplex == "half"
    by_close: dict[int, list[_Bridge]] = {}
    by_open: dict[int, list[_Bridge]] = {}
    for b in bridges:
        by_close.setdefault(b.closes, []).append(b)
        by_open.setdefault(b.opens, []).append(b)
    names = {"x": ("Off", "Pre"), "xbar": ("Offall", "Preall")}
    # Prefetches as late as possible on the in channel against the planned compute starts.
    order = sorted(bridges, key=lambda b: b.closes, reverse=True)
    pre_plan: dict[_Bridge, int] = {}
    channel_start = None
    for b in order:
        t = _link_time(instance, copies[b.copy].value, "in")
        finish = planned[b.closes] if channel_start is None else min(planned[b.closes], channel_start)
        pre_plan[b] = finish - t
        channel_start = finish - t
    events: list[tuple[int, int, str, int]] = []  # (start, tie, name, stage)
    free = {"out": 0, "in": 0}
    off_end: dict[int, int] = {}
    op_end: dict[int, int] = {}
    windows: dict[_Bridge, tuple[int, int]] = {}
    segment_ready: dict[int, int] = {}  # copy -> ready time of its current GPU segment

    def channel(direction: str) -> str:
        return "out" if half else direction

    def place_offloads(position: int, ready: int) -> None:
        for b in by_open.get(position, ()):
            if not b.offload:
                continue
            value = copies[b.copy].value
            d = _link_time(instance, value, "out")
            # as early as the copy is ready, overlapping the reads before the gap, but ending no earlier
            # than they do (an xbar copy serves reads of x only up to its last explicit read, this one)
            s = max(segment_ready.get(b.copy, 0) if early else ready, ready - d, free[channel("out")])
            free[channel("out")] = s + d
            off_end[b.copy] = s + d
            events.append((s, 1, names[value[0]][0], value[1]))

    created_by = {copy.created: c for c, copy in enumerate(copies) if copy.created >= 0}
    place_offloads(-1, 0)
    clock, actual = 0, []
    for k, (name, stage) in enumerate(sequence):
        begin = clock
        for b in sorted(by_close.get(k, ()), key=lambda b: pre_plan[b]):
            value = copies[b.copy].value
            d = _link_time(instance, value, "in")
            # after the host copy is written and after the previous GPU copy's segment ends
            s = max(pre_plan[b], free[channel("in")], off_end.get(b.copy, 0), op_end.get(b.opens, 0))
            if b.serial:
                s = max(s, clock)
            free[channel("in")] = s + d
            windows[b] = (s, s + d)
            segment_ready[b.copy] = s + d
            events.append((s, 1, names[value[0]][1], value[1]))
            begin = max(begin, s + d)
        events.append((begin, 0, name, stage))
        actual.append(begin)
        clock = begin + dur[k]
        op_end[k] = clock
        if name in ("F", "Fall"):
            segment_ready[created_by[k]] = clock
        place_offloads(k, clock)
    events.sort(key=lambda e: (e[0], e[1]))
    return Solution(tuple((n, s) for _, _, n, s in events), tuple(t for t, _, _, _ in events)), actual, windows


def _gaps(copies: list[_Copy]) -> list[tuple[int, int, int]]:
    """(copy, opens, closes) for every gap between consecutive uses of a copy."""
    found: list[tuple[int, int, int]] = []
    for c, copy in enumerate(copies):
        uses = [copy.created, *copy.reads]
        found.extend((c, a, z) for a, z in pairwise(uses) if z > a + 1)
    return found


@dataclass(frozen=True)
class _Attempt:
    """The bridges before the last one was added, and the first excess (instant, bytes) they left."""

    bridges: list[_Bridge]
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
        Checked once per iteration.
    early, undo
        As in `offload_sequence`.
    """

    def __init__(self, instance: Instance, sequence: tuple, deadline: Deadline, early: bool, undo: bool) -> None:
        self.instance, self.sequence, self.deadline, self.early, self.undo = instance, sequence, deadline, early, undo
        self.copies = _copies(instance.length, sequence)
        self.gaps = _gaps(self.copies)
        self.dur = _durations(instance, sequence)
        self.bridges: list[_Bridge] = []
        self.offloaded: set[int] = set()
        self.tried_serial: set[tuple[int, int]] = set()
        self.used: set[tuple[int, int, int]] = set()
        self.previous: _Attempt | None = None

    def run(self, max_bridges: int) -> Solution | None:
        """Add bridges at the first excess until the schedule fits M; None when it cannot."""
        for _ in range(4 * max_bridges + 1):
            self.deadline.check("adding offloads")
            solution, windows, over = self._timed_excess()
            if not over:
                return solution if not validate_two_levels(self.instance, solution) else None
            undo_to = self.previous
            if undo_to is not None and self._last_bridge_useless(over):
                # the last bridge did not lower the first excess (e.g. its offload waits behind others on
                # the link): undo it; its gap stays marked as tried
                self.bridges = undo_to.bridges
                self.offloaded = {b.copy for b in self.bridges}
                solution, windows, over = self._timed_excess()
            if len(self.bridges) >= max_bridges:
                return None
            self.previous = _Attempt(list(self.bridges), over[0])
            instant = over[0][0]
            gap = self._best_gap(solution, instant)
            if gap is not None:
                self._add_bridge(gap)
            elif not self._serialize_a_prefetch(windows, instant):
                return None
        return None

    def _timed_excess(self):
        """The timed schedule of the current bridges, its transfer windows, and every (instant, bytes) over M."""
        solution, windows = _timed(self.instance, self.sequence, self.copies, self.bridges, self.early)
        memory = self.instance.memory
        over = [(t, held) for t, held in memory_over_time(self.instance, solution) if held > memory]
        return solution, windows, over

    def _last_bridge_useless(self, over: list[tuple[int, int]]) -> bool:
        """Whether undo is on and the last bridge left the first excess no earlier and no smaller."""
        previous = self.previous
        return (
            self.undo
            and previous is not None
            and over[0][0] <= previous.first_excess[0]
            and over[0][1] >= previous.first_excess[1]
        )

    def _best_gap(self, solution: Solution, instant: int) -> tuple[int, int, int] | None:
        """The untried gap spanning ``instant`` whose bridge hides best, then moves most bytes, then is longest."""
        instance, copies, dur = self.instance, self.copies, self.dur
        position_start = _compute_starts(solution)
        best = None
        for gap in self.gaps:
            if gap in self.used:
                continue
            c, a, z = gap
            lo, hi = (0 if a < 0 else position_start[a] + dur[a]), position_start[z]
            value = copies[c].value
            size = instance.x[value[1]] if value[0] == "x" else instance.xbar[value[1]]
            need_out = _link_time(instance, value, "out") if c not in self.offloaded or value[0] == "xbar" else 0
            need_in = _link_time(instance, value, "in")
            if not lo <= instant < hi:
                continue
            hidden = lo + need_out <= instant and instant + need_in <= hi
            key = (hidden, size, hi - lo)
            if best is None or key > best[0]:
                best = (key, gap)
        return None if best is None else best[1]

    def _add_bridge(self, gap: tuple[int, int, int]) -> None:
        """Bridge ``gap``; the first bridge in time of a copy writes its host copy."""
        c, a, z = gap
        self.used.add(gap)
        self.bridges.append(_Bridge(c, a, z, c not in self.offloaded))
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
        self.bridges = [_Bridge(b.copy, b.opens, b.closes, b.offload, True) if b == late else b for b in self.bridges]
        return True


def _compute_starts(solution: Solution) -> dict[int, int]:
    """Start time of the k-th compute operation of a timed schedule."""
    position_start = {}
    compute_k = 0
    for (name, _), t in zip(solution.sequence, solution.start or (), strict=True):
        if name in ("F", "Fall", "B"):
            position_start[compute_k] = t
            compute_k += 1
    return position_start


def offload_sequence(
    instance: Instance, sequence, deadline: Deadline, max_bridges: int, early: bool = True, undo: bool = True
) -> Solution | None:
    """Add bridges to a remat ``sequence`` until it fits M (module docstring, step 3); None when it cannot.

    ``early``: an offload starts as soon as its copy is ready (overlapping the reads before its gap,
    ending no earlier than they do); otherwise after the read that opens the gap (the link is then
    busy for less of the time the copy is still needed on the GPU). ``undo``: a bridge that does not
    lower the first excess is undone.
    """
    return _OffloadSearch(instance, tuple(sequence), deadline, early, undo).run(max_bridges)


def _reassign_offloads(bridges: list[_Bridge], copies: list[_Copy]) -> list[_Bridge]:
    """Only the earliest bridge of an x copy offloads (later ones reuse the host copy); every bridge of an
    xbar copy offloads, since an xbar copy serves reads of x only up to its last *explicit* read (the
    ``Offall`` that ends its segment)."""
    first: dict[int, int] = {}
    for b in bridges:
        first[b.copy] = min(first.get(b.copy, b.opens), b.opens)
    return [
        _Bridge(b.copy, b.opens, b.closes, copies[b.copy].value[0] == "xbar" or b.opens == first[b.copy], b.serial)
        for b in bridges
    ]


def remat_candidates(
    instance: Instance, count: int, slots: int, deadline: Deadline, recompute: bool = True
) -> list[tuple[str, tuple]]:
    """(label, remat sequence) for store-all and the persistent DP at ``count`` budgets between M and the peak."""
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
    return found


def offload_greedy(
    instance: Instance, /, *, time_limit: float, seed: int, params: OffloadGreedyParams | None
) -> Result:
    """Remat sequences (store-all, persistent DP at several budgets) plus greedy offloads that fit M."""
    params = params or OffloadGreedyParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    deadline = Deadline.after(time_limit)

    best: tuple[float, Solution, str] | None = None
    tried = 0
    try:
        candidates = remat_candidates(instance, params.budgets, params.slots, deadline, params.recompute)
        plans = [(label, sequence, early, True) for label, sequence in candidates for early in (True, False)]
        plans += [(label, sequence, True, False) for label, sequence in candidates]  # tried when all else fails
        for label, sequence, early, undo in plans:
            if not undo and best is not None:
                break
            tried += 1
            solution = offload_sequence(instance, sequence, deadline, params.max_bridges, early, undo)
            if solution is None:
                continue
            makespan = evaluate_two_levels(instance, solution)["makespan"]
            if best is None or makespan < best[0]:
                timing = "early" if early else "after the read"
                best = (makespan, solution, f"{label}, offloads {timing}{'' if undo else ', no undo'}")
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
