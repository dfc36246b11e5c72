"""Exhaustive search over the timed schedules of kind ``chain-offload`` (small chains, small integer times).

The search
----------
A* over *configurations* at integer instants, one time unit per edge. A
configuration is what the future of a schedule depends on:

* k, the next backward to start (L..0; -1 once ``B 0`` has started);
* the running compute operation and the running link operation of each
  channel, with the time they still need and, for a read of x_i, whether its
  server is the x_i or the xbar_i copy;
* per value (x_0..x_L, xbar_1..xbar_L) whether a GPU copy is absent, being
  created or ready, and whether a host copy is absent, being written or there;
* the xbar copies that served a read of x_i which no explicit read of that
  copy has yet covered ("owed": rule 4 serves a read by xbar_i only inside the
  copy's span, which ends with its last explicit read).

At an instant the search branches on which operations start (at most one
compute operation and one per free channel; each read of x_i on either ready
copy), checks memory over the next time unit (held copies from their
creator's start, the deltas, the running transient: rule 6), and advances one
unit. When an operation ends, each copy it read or created that no running
operation still reads is kept or dropped (both branches); an xbar copy with an
owed read cannot be dropped. The rules are invariant under a shift in time, so
a configuration reached later is dominated by the same one reached earlier:
A* (an edge is one time unit, or, when nothing can start, a jump to the next
end; heuristic: a lower bound on the compute time still needed, see
`_Search._heuristic`; re-expansion on a shorter path) returns the earliest
instant at which ``B 0`` has ended and nothing runs.

Why it is exact over all schedules with integer start times
-----------------------------------------------------------
*Sound:* every path is a schedule the definition (`model.two_levels`)
accepts, with at most the memory the search counted: each copy the search
holds is held by the definition at most as long (the definition releases at
the last read, the search no earlier); a read the search serves by xbar_i is
inside that copy's span (its owed mark is cleared only when an explicit read
of the copy ends at or after the read's end, and a copy with an owed mark is
never dropped, not even at the end); a read the search serves by x_i that the
definition serves by a covering xbar_i copy only shortens the x_i copy's
life. *Complete:* given a valid schedule with integer starts, after removing
waste (below), the path that starts the same operations at the same instants,
serves each read as the definition does and drops each copy at the end of its
last reader reproduces its memory at every instant and its makespan.

Waste removed, by index (k: the next backward to start). Once ``B k+1`` has
started, nothing started later can make use of x_j (j > k) or xbar_j
(j > k+1): their readers are the forwards, backwards and link operations of
larger index, whose outputs again only such operations read, down to
``B k+1``, which has already started and reads the copies it found ready. So
the operations started after it that touch those values form a closed set;
removing them keeps every other read, server, span and host copy (they
create only copies of those values, and explicit reads of xbar_j, j > k+1,
cover only reads of x_j, j > k+1, which are in the set) and makes no
instant's memory or the makespan larger. The search therefore starts ``F j``
only for j+1 <= k, ``Fall j`` for j <= k, ``Off i``/``Pre i`` for i <= k,
``Offall i``/``Preall i`` for i <= k+1, and drops such values as soon as no
running operation reads them. A second ``Off i`` while a host copy of x_i is
there or being written is removed too (``Pre i`` needs any ``Off i`` ended by
its start; ``Off`` is no explicit read, so it covers nothing); a second
``Offall`` is kept, since as an explicit read it extends the copy's span.

The state space grows fast with L and the times: option ``max_states`` (a
deterministic budget, counted in configurations expanded) stops the search
without a proof, and the wall-clock limit is only the overall stop.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.params import at_least
from ...core.result import Result, Status
from ..model import Instance, Solution
from .offload_search import OffloadSearch


@dataclass(frozen=True)
class BruteForceOffloadParams:
    """Options of `brute_force_offload`.

    Attributes
    ----------
    max_stages
        Largest L searched; larger chains are NOT_APPLICABLE.
    max_states
        Configurations expanded before the search stops without a proof (a deterministic budget).
    """

    max_stages: int = 4
    max_states: int = 2_000_000

    def __post_init__(self) -> None:
        at_least("max_stages", self.max_stages, 1)
        at_least("max_states", self.max_states, 1)


def _upper_bound(instance: Instance, deadline: Deadline) -> int | None:
    """The least makespan of two valid schedules (None: neither), to prune the search.

    The remat-only schedule of `known_horizon` (store-all or the persistent DP)
    and the `offload_greedy` schedule when the definition accepts it
    (`offload_horizon`). Only states whose lower bound exceeds it are pruned, so
    the search still finds its own schedule of at most this makespan.
    """
    from .offload_horizon import known_horizon, offload_horizon

    try:
        remat = known_horizon(instance, deadline)
    except TimeLimitReached:
        raise
    except Exception:  # below the remat-only floor the chain cannot even be built: no remat schedule
        remat = None
    left = deadline.remaining()
    greedy = offload_horizon(instance, 10.0 if left is None else min(10.0, left / 4))
    found = [value for value in (remat, greedy) if value is not None]
    return min(found) if found else None


def brute_force_offload(
    instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceOffloadParams | None
) -> Result:
    """Exhaustive search over the timed two-level schedules (A* over configurations; L <= max_stages).

    Parameters
    ----------
    instance
        A ``chain-offload`` instance.
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused: the search is deterministic).
    params : BruteForceOffloadParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL with a schedule of least makespan among all schedules with
        integer start times (the module docstring); INFEASIBLE when none fits
        M; NOT_APPLICABLE for kind ``chain`` or above ``max_stages``;
        TIME_LIMIT_NO_SOLUTION when ``max_states`` or the time limit stops it.
    """
    params = params or BruteForceOffloadParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    if instance.length > params.max_stages:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"L = {instance.length} > max_stages = {params.max_stages} (the configurations grow fast)",),
        )
    deadline = Deadline.after(time_limit)
    upper = _upper_bound(instance, deadline)
    deadline.check("finding an upper bound")
    search = OffloadSearch(instance, deadline, params.max_states, upper)
    found = search.run()
    if found == "budget":
        return Result(
            status=Status.TIME_LIMIT_NO_SOLUTION,
            notes=(f"max_states = {params.max_states} configurations expanded without reaching the end",),
        )
    if found is None:
        if upper is not None:  # cannot happen: the remat schedule is a path; kept as a guard against a bug
            return Result(status=Status.ERROR, notes=("search missed a known schedule",))
        raise InfeasibleError("no two-level schedule fits the budget (exhaustive search over timed schedules)")
    assert not isinstance(found, str)
    makespan, sequence, starts = found
    return Result(
        status=Status.OPTIMAL,
        solution=Solution(sequence, starts),
        bound=float(makespan),
        notes=(f"exhaustive over timed schedules ({search.expanded} configurations expanded)",),
    )


__all__ = ["BruteForceOffloadParams", "brute_force_offload"]
