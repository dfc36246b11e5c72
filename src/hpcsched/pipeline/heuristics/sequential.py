"""The baseline `sequential`: micro-batch after micro-batch, each in one memory-frugal order.

Micro-batch m + 1 starts its first block only after micro-batch m has ended,
so at most one micro-batch holds memory at a time: its peak on every device
is that of one micro-batch alone, the least any schedule can have whenever
the order is a memory-minimal one (docs/pipeline.md). For a period instance
the R micro-batches run one after the other and repeat every R T, T the span
of one micro-batch.
"""

from __future__ import annotations

from ...core.result import Result, Status
from ..model import Instance, Solution, require_fits
from ..simulate import makespan_of, orders_fit, orders_from_sequence, semi_active, single_micro_batch_order


def sequential(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Micro-batch after micro-batch, each in a frees-first topological order (the minimal-memory baseline).

    Parameters
    ----------
    instance
        The instance.
    time_limit, seed, params
        Unused (one pass, O(N (B + E))).

    Returns
    -------
    Result
        FEASIBLE, or NOT_APPLICABLE when one micro-batch in this order does
        not fit in memory (which proves nothing: another order might).
    """
    require_fits(instance)
    order = single_micro_batch_order(instance)
    alone = orders_from_sequence(_one(instance), ((0, b) for b in order))
    if not orders_fit(instance, alone):
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=("one micro-batch in the frees-first order does not fit in memory",),
        )
    start = semi_active(_one(instance), alone)
    assert start is not None  # a topological order never contradicts the edges
    span = makespan_of(instance, start)
    rows = [[s + m * span for s in start[0]] for m in range(instance.micro_batches)]
    if instance.is_period:
        return Result(status=Status.FEASIBLE, solution=Solution.periodic(instance.micro_batches * span, rows))
    return Result(status=Status.FEASIBLE, solution=Solution.makespan(rows))


def _one(instance: Instance) -> Instance:
    """The instance with one micro-batch (to time a single micro-batch's order)."""
    from dataclasses import replace

    return replace(instance, objective="makespan", micro_batches=1)
