"""What the exact models share: the heuristics' incumbent, the horizons, and the search over periods.

`warm_start` runs the registered heuristics and baselines within a share of
the time limit and keeps the best valid schedule (its objective is the
models' horizon). `makespan_cap` is a horizon that holds without any
incumbent. `search_periods` is the upward search over P that `cpsat` and
`milp` both run for the period objective, each fixed P answered by a probe.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.result import Result, Status
from ..model import Instance, Solution, evaluate, validate

#: Kinds of registered method the warm start runs.
WARM_START_KINDS = ("heuristic", "baseline")


def warm_start_seconds(option: float | None, time_limit: float) -> float:
    """Seconds for the warm start: the option, else 10 % of the time limit (at most 5 s)."""
    if option is not None:
        return float(option)
    return min(5.0, 0.1 * float(time_limit))


@dataclass(frozen=True)
class Incumbent:
    """The best heuristic schedule found (None when none fits), its objective and the method that made it."""

    solution: Solution | None
    value: int | None
    name: str


def warm_start(instance: Instance, deadline: Deadline, seconds: float, lower: int | None = None) -> Incumbent:
    """The best valid schedule of the registered heuristics and baselines, each within what ``seconds`` leaves.

    Every candidate goes through the validator (the registry checks only the
    answer a method returns). A heuristic cut by its limit, or that finds no
    schedule, is skipped; so is a heuristic that raises (a heuristic's bug
    must not sink an exact method). The baselines (one pass, e.g.
    `sequential`) run first with the method's whole deadline, then the
    heuristics within ``seconds``, one-pass ones (without options) before
    searches (with options); the warm start stops at a schedule meeting
    ``lower``, and at the method's deadline (the caller then returns what it
    has).
    """
    from ...core.registration import get_problem

    share = Deadline.after(seconds)
    best = Incumbent(None, None, "")
    candidates = [m for m in get_problem("pipeline").methods.values() if m.kind in WARM_START_KINDS and not m.choose]
    for method in sorted(candidates, key=lambda m: (m.kind != "baseline", m.params_type is not None, m.name)):
        if deadline.expired() or (lower is not None and best.value is not None and best.value <= lower):
            break
        left = deadline.remaining() or 0.0
        if method.kind != "baseline":
            left = min(left, share.remaining() or 0.0)
            if left <= 0:
                break
        try:
            params = method.params_type() if method.params_type else None
            result = method.func(instance, time_limit=max(left, 0.0), seed=0, params=params)
        except (TimeLimitReached, InfeasibleError):
            continue
        solution = result.solution
        if not isinstance(solution, Solution) or validate(instance, solution):
            continue
        value = int(evaluate(instance, solution)["objective"])
        if best.value is None or value < best.value:
            best = Incumbent(solution, value, method.name)
    return best


def makespan_cap(instance: Instance) -> int:
    """An upper bound on the optimal makespan of every feasible instance: ``N sum_b (d_b + max out-delay_b)``.

    Proof: if the instance is feasible, one micro-batch alone has per-device
    orders that fit (feasibility theorem, docs/pipeline.md); a linear
    extension of those orders and the edges, run one block after another,
    keeps every device's order (so it fits, by the memory-order lemma) and
    ends by ``sum_b (d_b + max out-delay_b)``. The N micro-batches one after
    another in that order hold one micro-batch's memory at a time.
    """
    return instance.micro_batches * lone_cap(instance)


def lone_cap(instance: Instance) -> int:
    """``sum_b (d_b + max out-delay_b)``: one micro-batch alone fits in this span whenever it fits at all."""
    out_delay = [0] * instance.n_blocks
    for edge in instance.edges:
        out_delay[edge.source] = max(out_delay[edge.source], edge.delay)
    return sum(block.duration + delay for block, delay in zip(instance.blocks, out_delay, strict=True))


def first_block(instance: Instance) -> int:
    """The block whose jobs break the symmetry between micro-batches: the first source in topological order."""
    return instance.topological_order()[0]


class Probe(Enum):
    """What a fixed-period model answered."""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"  # the step's deterministic limit, or the wall clock, cut it


@dataclass(frozen=True)
class ProbeAnswer:
    """A probe's verdict; ``stop`` ends the search there (a model too large to try)."""

    verdict: Probe
    offsets: list[list[int]] | None = None
    note: str = ""
    stop: bool = False


def search_periods(
    instance: Instance,
    lower: int,
    incumbent: Incumbent,
    deadline: Deadline,
    probe: Callable[[int], ProbeAnswer],
    *,
    probe_incumbent: bool = False,
) -> Result:
    """Try P = lower, lower + 1, ... below the incumbent's period (or `period_cap`), each answered by ``probe``.

    The first P whose probe is FEASIBLE is optimal when every smaller P from
    ``lower`` was proven INFEASIBLE; else the result is FEASIBLE with bound
    the smallest P not proven infeasible (feasibility need not be monotone in
    P, so nothing above an unproven P is claimed). Reaching the incumbent's
    period with every P below proven infeasible proves it optimal; reaching
    `period_cap` without an incumbent and every P proven infeasible proves
    the instance infeasible (feasibility theorem). ``probe_incumbent`` probes
    the incumbent's period too (the tests use it to exercise the models).
    """
    upper = incumbent.value + int(probe_incumbent) if incumbent.value is not None else period_cap(instance) + 1
    unproven: int | None = None
    undecided = ""
    for period in range(lower, upper):
        if deadline.expired():
            return _cut(incumbent, unproven if unproven is not None else period, f"time limit before period {period}")
        answer = probe(period)
        if answer.verdict is Probe.INFEASIBLE:
            continue
        if answer.verdict is Probe.UNKNOWN:
            if unproven is None:
                unproven, undecided = period, f"period {period} undecided ({answer.note})"
            if answer.stop:
                return _cut(incumbent, unproven, f"{undecided}; {answer.note}" if period > unproven else undecided)
            if deadline.expired():
                return _cut(incumbent, unproven, f"time limit at period {period}")
            continue
        assert answer.offsets is not None
        solution = Solution.periodic(period, answer.offsets)
        note = f"periods {lower}..{period - 1} proven infeasible" if period > lower else "the lower bound is met"
        if unproven is None:
            return Result(status=Status.OPTIMAL, solution=solution, bound=period, notes=(note,))
        return Result(status=Status.FEASIBLE, solution=solution, bound=unproven, notes=(undecided,))
    if incumbent.solution is None:
        if unproven is None:
            raise InfeasibleError(f"every period up to {upper - 1} proven infeasible, so none is feasible")
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=unproven, notes=("no period found",))
    if unproven is None:
        note = f"periods {lower}..{upper - 1} proven infeasible: {incumbent.name}'s period is optimal"
        if upper <= lower:
            note = f"{incumbent.name}'s period meets the lower bound"
        return Result(status=Status.OPTIMAL, solution=incumbent.solution, bound=incumbent.value, notes=(note,))
    return _cut(incumbent, unproven, undecided)


def period_cap(instance: Instance) -> int:
    """A period every feasible instance has: ``R sum_b (d_b + max out-delay_b)`` (`lone_cap`, one after another)."""
    return instance.micro_batches * lone_cap(instance)


def _cut(incumbent: Incumbent, bound: int, note: str) -> Result:
    if incumbent.solution is None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, notes=(note,))
    return Result(
        status=Status.FEASIBLE,
        solution=incumbent.solution,
        bound=bound,
        notes=(f"{note}: {incumbent.name}'s schedule is returned",),
    )


def integer_bound(value: float | None, lower: int) -> int:
    """A backend's dual bound as a proven integer bound (rounded down past its tolerance), at least ``lower``.

    The tolerance is 1e-6 plus 1e-9 relative: a relative 1e-6 alone took one unit off CP-SAT's exact
    integer bounds above 10^6 (1,902,715 became 1,902,714 beside an optimum of 1,902,715).
    """
    if value is None or not math.isfinite(value):
        return lower
    return max(lower, math.ceil(value * (1 - 1e-9) - 1e-6))
