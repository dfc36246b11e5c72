"""Exact methods for partition: CP-SAT (both memory models), a big-M MILP and brute force (static memory).

Cross-checked by the tests on random small DAGs.

Why brute force and the MILP are for static memory only: with static memory
the memory rule depends on the assignment alone, so among the schedules of
an assignment the *semi-active* ones (each node as early as its data and
its GPU's previous node allow) contain an optimum, which is what both
enumerate or re-time. With dynamic memory an early start can hold a copy
longer (it arrives at C_u + c_uv and stays until C_v), so an optimum may
need deliberate idle time; CP-SAT's Cumulative over lifetimes models that
exactly.
"""

from .brute_force import BRUTE_FORCE_MAX_GPUS, BRUTE_FORCE_MAX_NODES, brute_force
from .cpsat import CpSatParams, canonical, cpsat, incumbent
from .lns import LnsParams, cpsat_lns
from .milp import MilpParams, milp

__all__ = [
    "BRUTE_FORCE_MAX_GPUS",
    "BRUTE_FORCE_MAX_NODES",
    "CpSatParams",
    "LnsParams",
    "MilpParams",
    "brute_force",
    "canonical",
    "cpsat",
    "cpsat_lns",
    "incumbent",
    "milp",
]
