"""Exact methods: CP-SAT, a disjunctive MILP, a dynamic program and brute force over order pairs.

All four optimize over *all* schedules: the compute order may differ from
the transfer order (unlike the heuristics, which are permutation schedules).
`common` holds what they share (the warm start, re-timing a backend's
schedule, reading a backend's outcome); `labels` the partial schedules of
`dp`. Models, options and proofs: docs/transfers.md.
"""

from .brute_force import BRUTE_FORCE_MAX_N, BruteForceParams, brute_force
from .common import WarmStart, conflict_cliques, identical_groups, incumbent, retimed
from .cpsat import CpsatParams, cpsat
from .dp import DP_MAX_N, DpParams, dp
from .milp import MILP_LARGEST_COEFFICIENT, MILP_TOLERANCE, MilpParams, milp

__all__ = [
    "BRUTE_FORCE_MAX_N",
    "DP_MAX_N",
    "MILP_LARGEST_COEFFICIENT",
    "MILP_TOLERANCE",
    "BruteForceParams",
    "CpsatParams",
    "DpParams",
    "MilpParams",
    "WarmStart",
    "brute_force",
    "conflict_cliques",
    "cpsat",
    "dp",
    "identical_groups",
    "incumbent",
    "milp",
    "retimed",
]
