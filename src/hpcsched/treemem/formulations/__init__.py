"""Exact methods: sequential traversals (`sequential`) and parallel schedules (`parallel`)."""

from .parallel import assign_processors as assign_processors, cpsat_parallel as cpsat_parallel
from .sequential import (
    BRUTE_FORCE_MAX_N as BRUTE_FORCE_MAX_N,
    CpSatParams as CpSatParams,
    DpParams as DpParams,
    MilpParams as MilpParams,
    brute_force as brute_force,
    cpsat as cpsat,
    dp as dp,
    milp as milp,
)
