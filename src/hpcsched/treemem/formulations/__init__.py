"""Exact methods: sequential traversals (`sequential`, `series_parallel`), parallel schedules, out-of-core (MinIO)."""

from .out_of_core import (
    BRUTE_FORCE_IO_MAX_N as BRUTE_FORCE_IO_MAX_N,
)
from .out_of_core import (
    MilpIoParams as MilpIoParams,
)
from .out_of_core import (
    brute_force_io as brute_force_io,
)
from .out_of_core import (
    cheapest_gaps as cheapest_gaps,
)
from .out_of_core import (
    milp_io as milp_io,
)
from .parallel import assign_processors as assign_processors
from .parallel import cpsat_parallel as cpsat_parallel
from .sequential import (
    BRUTE_FORCE_MAX_N as BRUTE_FORCE_MAX_N,
)
from .sequential import (
    DpParams as DpParams,
)
from .sequential import (
    brute_force as brute_force,
)
from .sequential import (
    dp as dp,
)
from .series_parallel import (
    sp_exact as sp_exact,
)
from .slot_models import (
    CpSatParams as CpSatParams,
)
from .slot_models import (
    MilpParams as MilpParams,
)
from .slot_models import (
    cpsat as cpsat,
)
from .slot_models import (
    milp as milp,
)
