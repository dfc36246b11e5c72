"""Exact methods of the pipeline problem, one function per formulation.

`order_search` (per-device orders, makespan) and `period_search` (offsets
of a fixed period) are the searches `brute_force` runs. Models and proofs:
docs/pipeline.md.
"""

from .brute_force import BRUTE_FORCE_MAX_JOBS, BRUTE_FORCE_MAX_PERIOD_JOBS, BruteForceParams, brute_force, lone_makespan
from .cpsat import CpSatParams, cpsat
from .milp import MilpParams, milp
from .period_search import horizon_span

__all__ = [
    "BRUTE_FORCE_MAX_JOBS",
    "BRUTE_FORCE_MAX_PERIOD_JOBS",
    "BruteForceParams",
    "CpSatParams",
    "MilpParams",
    "brute_force",
    "cpsat",
    "horizon_span",
    "lone_makespan",
    "milp",
]
