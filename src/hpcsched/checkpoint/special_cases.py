"""Polynomial special cases of the checkpoint problem, each with its theorem.

* `store_all`: M >= the store-all peak. Theorem: ``Fall 0..L-1, B L..0``
  runs every operation once, so its time Σfw + Σbw meets `bounds.compute_time`:
  OPTIMAL. Below that peak: NOT_APPLICABLE.
* `revolve`: homogeneous chains (all fw equal, all x = xbar equal, no
  transients). Griewank & Walther (2000): with c checkpoints (x_0 counted),
  reversing l steps needs t(l, c) = r·l − C(c + r, c + 1) forward steps
  besides the recording ones, r the smallest integer with C(c + r, c) >= l,
  and Revolve's binomial splitting attains it. That optimality holds in
  Griewank's model, where every reverse step re-runs its recording forward.
  In this package's model a recording forward may also be *kept* (Fall
  before the backward sweep), which the persistent DP exploits: on unit
  chains `dp` is strictly better than Revolve at most budgets (see
  docs/checkpoint.md), so Revolve is returned FEASIBLE unless the lower
  bound meets it.
"""

from __future__ import annotations

import math
from functools import cache

from ..core.deadline import Deadline
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, store_all_peak, store_all_sequence, too_long_to_check
from .simulate import peak as simulated_peak


def store_all(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Store every activation (Fall for every stage): OPTIMAL when the store-all peak fits.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        OPTIMAL with the store-all sequence when its peak fits M (it recomputes
        nothing), else NOT_APPLICABLE.
    """
    peak = store_all_peak(instance)
    if peak > instance.memory:
        return Result(
            status=Status.NOT_APPLICABLE, notes=(f"the store-all peak is {peak} bytes > M = {instance.memory}",)
        )
    too_long = too_long_to_check(instance.kind, 2 * instance.length + 1, Deadline.after(time_limit))
    if too_long is not None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(too_long,))
    return Result(
        status=Status.OPTIMAL,
        solution=Solution(store_all_sequence(instance.length)),
        bound=float(bounds.compute_time(instance)),
        notes=("every operation runs once",),
    )


# ----------------------------------------------------------------------------------------------
# Revolve
# ----------------------------------------------------------------------------------------------


def revolve_repetition(steps: int, checkpoints: int) -> int:
    """r: the smallest integer with C(c + r, c) >= l."""
    r = 0
    while math.comb(checkpoints + r, checkpoints) < steps:
        r += 1
    return r


@cache
def revolve_extra_forwards(steps: int, checkpoints: int) -> int:
    """t(l, c) = r·l − C(c + r, c + 1): forward steps Revolve adds to the l recording ones."""
    if steps <= 1:
        return 0
    if checkpoints < 1:
        raise ValueError("Revolve needs at least one checkpoint (x_0)")
    r = revolve_repetition(steps, checkpoints)
    return r * steps - math.comb(checkpoints + r, checkpoints + 1)


def _best_split(steps: int, checkpoints: int) -> int:
    """An m in 1..l-1 with m + t(l−m, c−1) + t(m, c) = t(l, c) (Revolve's binomial split)."""
    target = revolve_extra_forwards(steps, checkpoints)
    best, best_m = None, 1
    for m in range(1, steps):
        value = m + revolve_extra_forwards(steps - m, checkpoints - 1) + revolve_extra_forwards(m, checkpoints)
        if best is None or value < best:
            best, best_m = value, m
            if value == target:
                break
    return best_m


def revolve_length(length: int, checkpoints: int) -> int:
    """Operations of `revolve_sequence`: t(L, c) ``F``, one ``Fall`` per stage, ``B L .. B 0``."""
    return revolve_extra_forwards(length, checkpoints) + 2 * length + 1


def revolve_sequence(length: int, checkpoints: int, deadline: Deadline | None = None) -> tuple[tuple[str, int], ...]:
    """The Revolve sequence of a chain of ``length`` stages with ``checkpoints`` stored states (x_0 counted).

    A reverse step on stage i is ``Fall i`` then ``B i`` (preceded by ``B L``
    for the last stage); advancing is ``F``. The number of ``F`` operations
    is `revolve_extra_forwards`. ``deadline`` is checked at every split.
    """
    deadline = deadline or Deadline(None)
    out: list[tuple[str, int]] = []
    # explicit stack: ("rev", start, steps, c) or a literal op
    stack: list = [("rev", 0, length, checkpoints)]
    while stack:
        deadline.check("building Revolve's sequence")
        item = stack.pop()
        if item[0] != "rev":
            out.append(item)
            continue
        _, start, steps, c = item
        if steps == 0:
            continue
        if steps == 1:
            out.append(("Fall", start))
            if start == length - 1:
                out.append(("B", length))
            out.append(("B", start))
            continue
        if c == 1:
            # advance from start to each later step in turn, from the last one down
            ops: list[tuple[str, int]] = []
            for last in range(start + steps - 1, start - 1, -1):
                ops.extend(("F", k) for k in range(start, last))
                ops.append(("Fall", last))
                if last == length - 1:
                    ops.append(("B", length))
                ops.append(("B", last))
            out.extend(ops)
            continue
        m = _best_split(steps, c)
        out.extend(("F", k) for k in range(start, start + m))
        stack.append(("rev", start, m, c))
        stack.append(("rev", start + m, steps - m, c - 1))
    return tuple(out)


def is_homogeneous(instance: Instance) -> str | None:
    """None when the chain is Revolve's class, else why not."""
    if len(set(instance.fw)) != 1:
        return "forward times differ"
    sizes = set(instance.x) | set(instance.xbar[1:])
    if len(sizes) != 1:
        return "sizes differ (Revolve needs x = xbar, all equal)"
    if any(instance.ftmp) or any(instance.btmp):
        return "transients are not 0"
    return None


def revolve_checkpoints(instance: Instance, deadline: Deadline | None = None) -> tuple[int | None, str | None]:
    """The most checkpoints c <= L whose Revolve sequence fits M in this model (None: none), and why none
    was checkable when every c that fits has a sequence too long to check by ``deadline`` (else None)."""
    deadline = deadline or Deadline(None)
    best, too_long = None, None
    low, high = 1, instance.length
    while low <= high:  # the peak grows with c: binary search
        deadline.check("searching Revolve's checkpoints")
        middle = (low + high) // 2
        # fewer checkpoints, longer sequences: one too long to check sends the search to more checkpoints
        why = too_long_to_check(instance.kind, revolve_length(instance.length, middle), deadline)
        if why is not None:
            too_long, low = why, middle + 1
            continue
        peak = simulated_peak(instance, revolve_sequence(instance.length, middle, deadline))
        if peak <= instance.memory:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best, (too_long if best is None else None)


def revolve(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Revolve (Griewank & Walther) on homogeneous chains: t(l, c) extra forwards with c checkpoints.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        OPTIMAL or FEASIBLE with Revolve's sequence on a homogeneous chain
        (see the docstring body); NOT_APPLICABLE on any other chain or when it does not fit M.
    """
    why = is_homogeneous(instance)
    if why is not None:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"not a homogeneous chain: {why}",))
    deadline = Deadline.after(time_limit)
    c, too_long = revolve_checkpoints(instance, deadline)
    if too_long is not None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(too_long,))
    if c is None:
        return Result(status=Status.NOT_APPLICABLE, notes=("even one checkpoint (x_0 alone) does not fit M",))
    sequence = revolve_sequence(instance.length, c, deadline)
    bound = bounds.best(instance, deadline)
    total = sum(instance.fw[i] for name, i in sequence if name != "B") + sum(instance.bw)
    status = Status.OPTIMAL if total <= bound else Status.FEASIBLE
    return Result(
        status=status,
        solution=Solution(sequence),
        bound=float(bound),
        notes=(
            f"c = {c} checkpoints (x_0 counted), t(L, c) = {revolve_extra_forwards(instance.length, c)} "
            "extra forwards; optimal in Griewank's model, not proven here (dp may beat it)",
        ),
    )
