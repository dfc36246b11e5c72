"""Exact formulations of ``offload``: CP-SAT (`cpsat`, `cpsat_plain`), the fixed-order MILP, brute force.

- `cpsat` (default method): heuristic start, offload-set search, coarse-to-fine CP-SAT, proven bounds.
- `cpsat_plain`: the CP-SAT model of the spec alone (`build_cpsat`), optionally time-scaled.
- `milp_fixed_order`: exact for the fixed-order restricted problem, an upper bound for the problem.
- `brute_force`: every offload set (L <= 12), each timed exactly by CP-SAT (`exact_timing`).
"""

from .cpsat_model import CpVars, Timing, build_cpsat, exact_timing, extract, makespan
from .enumeration import BruteForceParams, brute_force
from .milp import MilpFixedOrderParams, milp_fixed_order
from .milp_model import FixedOrderMilp, build_milp_fixed_order, follows_fixed_orders
from .plain import CpSatPlainParams, cpsat_plain
from .portfolio import SEARCH_BY_DEFAULT_SETS, CpSatParams, cpsat
from .search import BRANCH_DETERMINISTIC_TIME, Branch, OffloadSetSearch, RelaxationRows, offload_set_search

__all__ = [
    "BRANCH_DETERMINISTIC_TIME",
    "SEARCH_BY_DEFAULT_SETS",
    "Branch",
    "BruteForceParams",
    "CpSatParams",
    "CpSatPlainParams",
    "CpVars",
    "FixedOrderMilp",
    "MilpFixedOrderParams",
    "OffloadSetSearch",
    "RelaxationRows",
    "Timing",
    "brute_force",
    "build_cpsat",
    "build_milp_fixed_order",
    "cpsat",
    "cpsat_plain",
    "exact_timing",
    "extract",
    "follows_fixed_orders",
    "makespan",
    "milp_fixed_order",
    "offload_set_search",
]
