"""What the pipeline heuristics share: class checks, the cheap bound, timing orders into a `Result`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ..bounds import critical_path, device_bound, work_bound
from ..model import Instance, Solution
from ..simulate import Orders, order_peaks, semi_active
from ..stages import StageChain, stage_chain


def not_applicable(*why: str) -> Result:
    """NOT_APPLICABLE with the reasons as notes."""
    return Result(status=Status.NOT_APPLICABLE, notes=why)


def cheap_bound(instance: Instance) -> int:
    """The bounds that cost O(B + E): work, critical path, device (makespan); work (period). No LP."""
    if instance.is_period:
        return work_bound(instance)
    return max(work_bound(instance), critical_path(instance), device_bound(instance))


def chain_of(
    instance: Instance, *, one_per_device: bool = False, split: bool = False, what: str = "the schedule"
) -> StageChain | Result:
    """The instance's `StageChain`, or a NOT_APPLICABLE `Result` naming why ``what`` does not apply."""
    chain = stage_chain(instance)
    if isinstance(chain, str):
        return not_applicable(f"{what} needs a stage chain: {chain}")
    if one_per_device and not chain.one_stage_per_device():
        return not_applicable(f"{what} needs one stage per device (a device holds several)")
    if split and not chain.split:
        return not_applicable(f"{what} needs W blocks (the backward split into B and W) on every stage")
    return chain


def overflow(instance: Instance, peaks: Sequence[int]) -> str | None:
    """The first device whose ``peaks`` entry exceeds its limit, as a sentence; None when all fit."""
    for d, (peak, limit) in enumerate(zip(peaks, instance.memory_limit, strict=True)):
        if limit is not None and peak > limit:
            return f"device {d} would hold {peak}, its limit is {limit}"
    return None


def finished(instance: Instance, solution: Solution, notes: Sequence[str] = ()) -> Result:
    """FEASIBLE (OPTIMAL when the objective meets `cheap_bound`) with the cheap bound."""
    bound = cheap_bound(instance)
    if solution.period is not None:
        value = solution.period
    else:
        value = max(s + block.duration for row in solution.start for s, block in zip(row, instance.blocks, strict=True))
    status = Status.OPTIMAL if value <= bound else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=bound, notes=tuple(notes))


def timed(instance: Instance, orders: Orders, what: str, deadline: Deadline, notes: Sequence[str] = ()) -> Result:
    """The semi-active schedule of ``orders`` as a Result; NOT_APPLICABLE when they break memory or the edges.

    The deadline is checked before each O(N (B + E)) pass (peaks, timing) and inside the timing.
    """
    deadline.check(f"checking {what}'s memory")
    why = overflow(instance, order_peaks(instance, orders))
    if why is not None:
        return not_applicable(f"{what} does not fit in memory: {why} (not a proof of infeasibility)")
    deadline.check(f"timing {what}")
    start = semi_active(instance, orders, deadline)
    if start is None:
        return not_applicable(f"{what}'s orders contradict the edges (a deadlock)")
    return finished(instance, Solution.makespan(start), notes)


def memory_aware(
    instance: Instance,
    chain: StageChain,
    build: Callable[[list[int], list[int]], Orders],
    warmups: list[int],
    lags: list[int],
    deadline: Deadline,
    *,
    lags_first: bool = False,
) -> tuple[Orders, list[int], list[int]] | str:
    """Lower warm-ups, then W lags, on the stages whose device overflows until ``build``'s orders fit.

    ``warmups[s]`` and ``lags[s]`` are per stage; each round lowers by one the
    largest warm-up (or, when those are all 0, the largest lag; the other way
    round with ``lags_first``) among the stages on an overflowing device,
    then makes the warm-ups non-increasing along the stages (what keeps the
    1F1B orders acyclic). At most Σ warm-ups + Σ lags rounds, each one
    `order_peaks`. Returns the orders, warm-ups and lags, or the reason they
    never fit (every warm-up and lag 0 and still over).
    """
    device_of = chain.device
    while True:
        deadline.check("building the orders")
        orders = build(warmups, lags)
        peaks = order_peaks(instance, orders)
        why = overflow(instance, peaks)
        if why is None:
            return orders, warmups, lags
        over = {d for d, (p, m) in enumerate(zip(peaks, instance.memory_limit, strict=True)) if m is not None and p > m}
        stages = [s for s in range(len(warmups)) if device_of[s] in over]
        if not _lower(stages, warmups, lags, lags_first):
            return why


def _lower(stages: list[int], warmups: list[int], lags: list[int], lags_first: bool) -> bool:
    """Lower one warm-up or lag of ``stages`` (see `memory_aware`); False when all are 0."""
    for kind in ("lags", "warmups") if lags_first else ("warmups", "lags"):
        values = lags if kind == "lags" else warmups
        if any(values[s] for s in stages):
            s = max(stages, key=lambda t: (values[t], -t))
            values[s] -= 1
            if kind == "warmups":
                for t in range(s + 1, len(warmups)):
                    warmups[t] = min(warmups[t], warmups[t - 1])
            return True
    return False
