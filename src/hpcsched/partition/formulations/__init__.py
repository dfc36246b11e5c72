"""Exact methods for partition: CP-SAT, a big-M MILP and brute force, each for both memory models.

Cross-checked by the tests on random small DAGs.

Static memory depends on the assignment alone, so among the schedules of
an assignment the *semi-active* ones (each node as early as its data and
its GPU's previous node allow) contain an optimum: brute force enumerates
them, the MILP's order is re-timed that way. With dynamic memory an early
start can hold a copy longer (it arrives at C_u + c_uv and stays until
C_v), so an optimum may need deliberate idle time: brute force then
searches the disjunctions of the definition (`disjunctive`), the MILP
checks memory at the begin of every item with integer starts
(`milp_dynamic`), CP-SAT a Cumulative over lifetimes.
"""

from .brute_force import BRUTE_FORCE_MAX_GPUS, BRUTE_FORCE_MAX_NODES, brute_force
from .common import canonical, incumbent, static_memory_ok
from .cpsat import CpSatParams, cpsat
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
    "static_memory_ok",
]
