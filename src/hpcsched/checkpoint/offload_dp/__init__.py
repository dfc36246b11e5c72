"""Our persistent DP with offloads for kind ``chain-offload`` (a POFO-style DP as the heuristic).

This is **our own** dynamic program, written in the spirit of POFO (Beaumont,
Eyraud-Dubois & Shilova, NeurIPS 2021), whose text could not be read here:
it is not POFO's recurrence. It extends rotor's persistent DP
(`persistent`) with one choice: the input of a segment may leave the
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
registry's `evaluate` gives the true makespan. The remat-only `dp`'s
candidates on the chain (when remat alone fits M) are candidates too: its
cheap baselines before the DP (store-all, Chen, recompute-all; then
checkpoint_sequential within `incumbent.SEQUENTIAL_SHARE` of the limit), its
persistent DP with the time the offload DP leaves; so given the time `dp`
needs, this method is never worse than it. Every phase checks the
deadline (table, timings, waits, validation): a cut phase keeps what was
found before it. The bound is Σfw + Σbw (`bounds.best`): FEASIBLE
unless the makespan meets it (then OPTIMAL, the only proof it makes).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError, InvalidInstanceError
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution, too_long_to_check
from ..model.two_levels import evaluate_two_levels, validate_two_levels
from ..offload_bridges import Bridge, copy_gaps, timed_schedule, timing_with_waits, value_copies
from ..persistent import DpTableTooLarge
from .table import OffloadPlan, offload_plan


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


def plan_bridges(instance: Instance, plan: OffloadPlan, timing: str = "dp") -> list[Bridge]:
    """The plan's offloaded gaps as bridges of `offload_bridges` (the copy whose consecutive uses they are).

    ``timing``: "dp", the prefetches the DP charged in full wait for the compute before their reader, the
    others are as late as possible; "serial": all wait; "late": none waits.
    """
    copies = value_copies(instance.length, plan.sequence)
    known = set(copy_gaps(copies))
    bridges = []
    for value, opens, closes, serial in plan.gaps:
        found = [c for c, copy in enumerate(copies) if copy.value == value and (c, opens, closes) in known]
        if len(found) != 1:
            raise AssertionError(f"offloaded gap {value} {opens}->{closes} is not one copy's gap")
        bridges.append((found[0], opens, closes, timing == "serial" or (timing == "dp" and serial)))
    return _with_writes(bridges, copies)


def _with_writes(bridges: list[tuple[int, int, int, bool]], copies: list) -> list[Bridge]:
    """Bridges from (copy, opens, closes, wait): an x copy is written at its first gap only (the host copy
    stays valid); an xbar copy at each of its gaps, since it serves reads of x only up to its last explicit
    read (as `offload_greedy` does)."""
    first: dict[int, int] = {}
    for c, opens, _, _ in bridges:
        first[c] = min(first.get(c, opens), opens)
    return [
        Bridge(c, a, z, copies[c].value[0] == "xbar" or a == first[c], wait)
        for c, a, z, wait in sorted(bridges, key=lambda b: b[1])
    ]


#: Offload windows tried, from the one the DP's memory accounting holds for to the most optimistic.
WINDOWS = ("forwards", "segment")
#: Fractions of M withheld from the DP (its budget M' = M − margin·M) when its schedule exceeds M: with the
#: window "segment" an input can still be held while the inner subproblem starts.
MARGINS = (0.0, 0.02, 0.05, 0.1, 0.2)

#: The label of a remat-only candidate: `dp`'s answer, the fastest of its baselines and its persistent DP, each
#: within the time limit.
REMAT = "remat-only dp's sequence"
#: (makespan, schedule, label) of a valid schedule found.
Candidate = tuple[float, Solution, str]


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


def _window_schedules(
    instance: Instance, slots: int, deadline: Deadline, window: str, notes: list[str], found: list[Candidate]
) -> None:
    """Add to ``found`` the valid timed schedules of the DP with ``window``, at M and then at the `MARGINS` below
    it until one fits M without waiting for an offload (each run noted in ``notes``); the schedules that fit by
    waiting (`_valid_timings`) at the margins tried are kept too. Each is added once timed, so a time limit
    reached later keeps it."""
    for margin in MARGINS:
        plan, text = _plan_with_margin(instance, slots, deadline, window, margin)
        notes.append(text)
        if plan is None:
            return  # a smaller budget finds nothing either
        before = len(found)
        _valid_timings(instance, plan, deadline, f"window {window}, budget margin {margin:.0%}", found)
        if any("waits" not in label for _, _, label in found[before:]):
            return  # a larger margin only recomputes more


def _valid_timings(
    instance: Instance, plan: OffloadPlan, deadline: Deadline, label: str, found: list[Candidate]
) -> None:
    """Add to ``found`` (makespan, schedule, label) for each timing of ``plan`` that the definition's validator
    accepts; a timing that does not fit M is timed again with the compute waiting for offloads where that frees
    memory (`offload_bridges.timing_with_waits`; label "waits"). The deadline is checked before each timing,
    validation and wait."""
    copies = value_copies(instance.length, plan.sequence)
    fitted = False
    for timing in ("dp", "serial", "late"):
        deadline.check("timing the DP's schedule")
        bridges = plan_bridges(instance, plan, timing)
        solution, _ = timed_schedule(instance, plan.sequence, copies, bridges, deadline=deadline)
        text = f"our DP ({label}, prefetch timing {timing})"
        deadline.check("validating the DP's schedule")
        if validate_two_levels(instance, solution):
            solution = timing_with_waits(instance, plan.sequence, copies, bridges, deadline=deadline).solution
            text = f"our DP ({label}, prefetch timing {timing}, compute waits for offloads)"
            deadline.check("validating the DP's schedule")
        if not validate_two_levels(instance, solution):
            found.append((evaluate_two_levels(instance, solution)["makespan"], solution, text))
            fitted = True
    if not fitted:
        _repaired(instance, plan, deadline, label, found)


#: The bridge-adding loop's options tried when repairing a plan: (undo rule, compute may wait for offloads).
REPAIRS = (("earlier", False), ("no-gain", False), ("earlier", True), ("no-gain", True))


def _repaired(instance: Instance, plan: OffloadPlan, deadline: Deadline, label: str, found: list[Candidate]) -> None:
    """No timing of ``plan`` fits M (the DP's accounting is optimistic): add to ``found`` the plan's sequence with
    its offloads plus those `offload_greedy`'s bridge-adding loop adds at the first excess, for each of `REPAIRS`
    that fits (the loop's answers pass the definition's validator)."""
    from ..offload_greedy import offload_sequence

    start = tuple(plan_bridges(instance, plan, "dp"))
    for undo, wait in REPAIRS:
        solution = offload_sequence(instance, plan.sequence, deadline, MAX_REPAIR_BRIDGES, True, undo, wait, start)
        if solution is not None:
            waits = ", compute waits for offloads" if wait else ""
            text = f"our DP ({label}), repaired by offload-greedy's bridge loop (undo {undo}{waits})"
            found.append((evaluate_two_levels(instance, solution)["makespan"], solution, text))


#: Most bridges the repair adds to one plan (as `OffloadGreedyParams.max_bridges`).
MAX_REPAIR_BRIDGES = 2000


def _remat_baselines(chain: Instance, deadline: Deadline, time_limit: float) -> list[Candidate]:
    """`dp`'s baselines that fit M (`incumbent.baselines`: store-all, Chen, recompute-all, then
    checkpoint_sequential within its share of the limit), run before the DP so that a time limit cutting it still
    leaves an answer."""
    from ..formulations.incumbent import baselines

    return [
        (float(found.time), found.solution, f"{REMAT}: its {found.method} baseline")
        for found in baselines(chain, deadline, time_limit)
    ]


def _remat_entry(chain: Instance, solution: Solution, label: str) -> list[Candidate]:
    """[(makespan, solution, label)] when the remat sequence is valid on the chain (then, back to back, it is a
    valid two-level schedule of the same makespan: see the package's `_remat_only`), else []."""
    from ..model import validate
    from ..simulate import total_time

    if validate(chain, solution):
        return []
    return [(float(total_time(chain, solution.sequence)), solution, label)]


def _remat_searches(chain: Instance, deadline: Deadline, notes: list[str]) -> list[Candidate]:
    """What `dp` adds to the baselines, within ``deadline``: rotor's persistent DP (`dp`'s defaults); cut by the
    deadline, it adds nothing (noted)."""
    from ..formulations.dp import DpParams
    from ..persistent import best_persistent

    try:
        defaults = DpParams()
        plan, _ = best_persistent(chain, defaults.slots, deadline, max_cells=defaults.max_cells)
    except (TimeLimitReached, DpTableTooLarge) as stop:
        notes.append(f"no remat-only persistent search ({stop})")
        return []
    if plan.time is None:
        return []
    return _remat_entry(chain, Solution(plan.sequence), f"{REMAT}: its persistent DP")


def offload_dp(instance: Instance, /, *, time_limit: float, seed: int, params: OffloadDpParams | None) -> Result:
    """Our persistent DP with offloads (module docstring): a heuristic for kind ``chain-offload``.

    Parameters
    ----------
    instance
        A ``chain-offload`` instance (kind ``chain``: NOT_APPLICABLE).
    time_limit
        Seconds of wall time for the whole method, the table included; when it
        cuts the DP, the best schedule found so far is returned (FEASIBLE), or
        `TimeLimitReached` (TIME_LIMIT_NO_SOLUTION) when there is none.
    seed
        Random seed (unused: the DP is deterministic).
    params : OffloadDpParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        FEASIBLE with the fastest valid schedule among the DP's (each plan
        timed three ways) and remat `dp`'s; OPTIMAL only when it meets Σfw + Σbw;
        NOT_APPLICABLE when none fits M. The DP's own estimate is in the
        notes; the objective is the registry's `evaluate`.
    """
    params = params or OffloadDpParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    deadline = Deadline.after(time_limit)
    found: list[Candidate] = []
    notes: list[str] = []
    try:
        chain: Instance | None = instance.as_chain() if params.remat_candidate else None
    except (InvalidInstanceError, InfeasibleError):
        chain = None  # M is below the remat-only floor
    if chain is not None:
        found += _remat_baselines(chain, deadline, time_limit)
    try:
        for window in WINDOWS:
            _window_schedules(instance, params.slots, deadline, window, notes, found)
    except TimeLimitReached as stop:
        notes.append(f"the time limit cut the DP ({stop})")
    except DpTableTooLarge as stop:
        notes.append(f"no offload DP: {stop}")
    if chain is not None and not deadline.expired():
        found += _remat_searches(chain, deadline, notes)
    bound = float(bounds.best(instance))
    checkable = [entry for entry in found if too_long_to_check(instance.kind, len(entry[1].sequence), deadline) is None]
    if found and not checkable:
        shortest = min(len(entry[1].sequence) for entry in found)
        return Result(
            status=Status.TIME_LIMIT_NO_SOLUTION,
            bound=bound,
            notes=(
                *notes,
                f"every schedule found is too long to check: {too_long_to_check(instance.kind, shortest, deadline)}",
            ),
        )
    found = checkable
    if not found:
        if deadline.expired():
            raise TimeLimitReached("time limit reached before a schedule that fits M was found")
        return Result(status=Status.NOT_APPLICABLE, bound=bound, notes=(*notes, "no valid schedule found that fits M"))
    makespan, solution, label = min(found, key=lambda entry: entry[0])
    status = Status.OPTIMAL if makespan <= bound else Status.FEASIBLE
    if label.startswith(REMAT):
        notes.append(label)  # which of dp's candidates (all that the time limit left it) was the fastest
        label = REMAT
    return Result(status=status, solution=solution, bound=bound, notes=(*notes, f"kept: {label}"))
