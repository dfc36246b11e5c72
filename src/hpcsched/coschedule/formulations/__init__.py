"""Exact formulations of coschedule, one module per formulation.

- `preemptive`: ``lp-preemptive`` (`lp`: the LP's schedule, phases in
  caterpillar order) and ``milp-min-preemptions`` (fewest preemptions, small n).
- `milp`: the non-preemptive MILP (HiGHS).
- `cpsat`: the non-preemptive CP-SAT model on an integer time grid.
- `brute_force`: every event sequence (n <= 6), each timed by the slab LP.
- `common`: what the non-preemptive ones share (start schedule, bounds, decoding).
"""

from .brute_force import BRUTE_FORCE_LIMIT, brute_force
from .common import MIP_TOLERANCE, safe_mip_bound
from .cpsat import CpsatParams, cpsat
from .milp import milp
from .preemptive import STREAMS_NOTE, LpParams, MinPreemptionsParams, lp, milp_min_preemptions

__all__ = [
    "BRUTE_FORCE_LIMIT",
    "MIP_TOLERANCE",
    "STREAMS_NOTE",
    "CpsatParams",
    "LpParams",
    "MinPreemptionsParams",
    "brute_force",
    "cpsat",
    "lp",
    "milp",
    "milp_min_preemptions",
    "safe_mip_bound",
]
