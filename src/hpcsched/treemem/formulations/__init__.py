"""Exact methods: sequential traversals (`sequential`), parallel schedules (`parallel`), out-of-core (`out_of_core`)."""

from .out_of_core import (
    BRUTE_FORCE_IO_MAX_N as BRUTE_FORCE_IO_MAX_N,
    MilpIoParams as MilpIoParams,
    brute_force_io as brute_force_io,
    cheapest_gaps as cheapest_gaps,
    milp_io as milp_io,
)

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
