"""Flow algorithms for equal-duration tasks, below `bounds` and every method that uses them.

`networks` holds the max-flow networks (unit network, quota network, the
capacity search), `semi_matching` the optimal semi-matching. The proofs are
in ``docs/locality.md`` (section "Special cases").
"""

from .networks import (
    QuotaAssignment,
    UnitFlowAssignment,
    UnitNetwork,
    equal_duration,
    greedy_upper_bound,
    maxflow_version,
    padded_replicas,
    quota_flow_assignment,
    smallest_capacity,
    unit_flow_assignment,
)
from .semi_matching import (
    MIN_COST_BALANCING,
    SearchStats,
    SemiMatching,
    batched_least_loaded_start,
    min_cost_flow_version,
    optimal_semi_matching_assignment,
    semi_matching_assignment,
)

__all__ = [
    "MIN_COST_BALANCING",
    "QuotaAssignment",
    "SearchStats",
    "SemiMatching",
    "UnitFlowAssignment",
    "UnitNetwork",
    "batched_least_loaded_start",
    "equal_duration",
    "greedy_upper_bound",
    "maxflow_version",
    "min_cost_flow_version",
    "optimal_semi_matching_assignment",
    "padded_replicas",
    "quota_flow_assignment",
    "semi_matching_assignment",
    "smallest_capacity",
    "unit_flow_assignment",
]
