"""Exact methods for hetero: CP-SAT, a time-indexed MILP, brute force.

All three produce integer schedules and are cross-checked by the tests. One
module per formulation; `common` holds what they share.
"""

from .brute_force import BRUTE_FORCE_MAX_TASKS, brute_force
from .common import assign_machines
from .cpsat import CpSatParams, cpsat
from .milp import MilpParams, milp

__all__ = ["BRUTE_FORCE_MAX_TASKS", "CpSatParams", "MilpParams", "assign_machines", "brute_force", "cpsat", "milp"]
