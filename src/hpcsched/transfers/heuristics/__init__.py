"""Heuristics and baselines: transfer orders scored by the earliest-start simulator.

`rules` holds the constructive rules (static sorts, dynamic memory-aware
choices), `search` the searches over orders (NEH, ILS, iterated greedy).
Every method here produces a *permutation* schedule (the device computes in
transfer order; the exact formulations may compute in another order) and
carries `bounds.best` as its bound, reporting OPTIMAL when it meets it.
"""

from .rules import (
    DYNAMIC_METHODS,
    PERMUTATION_NOTE,
    STATIC_METHODS,
    Constructed,
    best_constructive,
    constructive_orders,
    dynamic_johnson,
    dynamic_largest_transfer,
    dynamic_max_gain,
    dynamic_order,
    dynamic_priorities,
    dynamic_smallest_transfer,
    fifo,
    johnson_blocking,
    order_result,
    sort_compute_desc,
    sort_gain_desc,
    sort_ratio_asc,
    sort_transfer_asc,
    static_order,
)
from .search import (
    NEH_MAX_N,
    IlsParams,
    IteratedGreedyParams,
    SearchOutcome,
    ils,
    iterated_greedy,
    iterated_greedy_search,
    neh,
    neh_order,
)

__all__ = [
    "DYNAMIC_METHODS",
    "NEH_MAX_N",
    "PERMUTATION_NOTE",
    "STATIC_METHODS",
    "Constructed",
    "IlsParams",
    "IteratedGreedyParams",
    "SearchOutcome",
    "best_constructive",
    "constructive_orders",
    "dynamic_johnson",
    "dynamic_largest_transfer",
    "dynamic_max_gain",
    "dynamic_order",
    "dynamic_priorities",
    "dynamic_smallest_transfer",
    "fifo",
    "ils",
    "iterated_greedy",
    "iterated_greedy_search",
    "johnson_blocking",
    "neh",
    "neh_order",
    "order_result",
    "sort_compute_desc",
    "sort_gain_desc",
    "sort_ratio_asc",
    "sort_transfer_asc",
    "static_order",
]
