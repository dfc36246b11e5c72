"""Non-preemptive heuristics and baselines, all scored by the validator.

Each builds a submission order (a permutation) and runs the two-slot
simulator of `simulate.py` with a start policy. The simulator only offers
kernels whose stream predecessor has completed, so every heuristic honours
``data.streams`` (the orders below are priorities among ready kernels):

- ``serial``: one kernel at a time (Σp), the no-concurrency baseline.
- ``fifo``: the hardware queue with the leftover policy: kernels are
  submitted in the instance's order; the head of the queue starts as soon as
  a slot is free and it is compatible with the running kernel (the first
  kernel takes what it wants, the next one the leftover, which the pair rates
  model); a blocked head blocks the queue. With streams (``data.streams``)
  it replays the streams as the hardware does: each stream issues its
  kernels in stream order (submission order: round r issues the r-th kernel
  of every stream, stream by stream; kernels in no stream first); a kernel
  is eligible once its stream predecessor has completed; when a slot is
  free, the first eligible kernel in submission order that may co-run with
  the running one starts (the leftover policy: the running kernel keeps its
  SMs, the newcomer gets the rest, even when the pair is slower than
  serial); a stream whose head is not eligible waits, the others do not.
- ``lpt`` / ``spt``: list scheduling in longest / shortest solo-duration
  order. List scheduling (also used by the methods below) starts the first
  pending kernel of the list when the GPU is idle, and next to a running
  kernel the first one whose pair saves time (r_{i|j} + r_{j|i} > 1);
  unlike the hardware it never co-runs a harmful pair.
- ``greedy-partner``: when a slot frees next to a running kernel i, start
  the pending kernel j maximizing r_{i|j} + r_{j|i} - 1 (the fraction of
  co-run time saved) if that is positive, else let i finish alone; on an
  idle GPU start the longest pending kernel.
- ``matching-list``: the maximum-weight matching of `special_cases`
  (weights = time saved by running the pair together), pairs submitted
  consecutively (longest block first), then list scheduling.
- ``lp-merge``: LP-guided: order kernels by their first phase in the
  caterpillar order of the preemptive LP; then, for each preempted kernel in
  turn, move it to the position of each of its pieces and keep the one with
  the least makespan increase (the "transform a preemptive solution" step).
- ``local-search``: from the best of the LPT, greedy, matching and lp-merge orders,
  random swap and insertion moves on the submission order, list-scheduled,
  keeping non-worsening moves, until the time limit or ``max_iterations``
  moves (default 3,000).

Heuristics attach the preemptive LP value as bound only when it is cheap
(n <= 300); it is a valid lower bound for every schedule.
"""

from .lists import (
    BOUND_MAX_N,
    fifo,
    greedy_partner,
    greedy_partner_schedule,
    list_schedule,
    lpt,
    makespan_of,
    serial,
    spt,
    stream_submission_order,
)
from .search import (
    LocalSearchParams,
    best_list_schedule,
    local_search,
    lp_merge,
    lp_merge_order,
    matching_list,
    matching_order,
    search_order,
)

__all__ = [
    "BOUND_MAX_N",
    "LocalSearchParams",
    "best_list_schedule",
    "fifo",
    "greedy_partner",
    "greedy_partner_schedule",
    "list_schedule",
    "local_search",
    "lp_merge",
    "lp_merge_order",
    "lpt",
    "makespan_of",
    "matching_list",
    "matching_order",
    "search_order",
    "serial",
    "spt",
    "stream_submission_order",
]
