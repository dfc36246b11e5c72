"""hpcsched: exact models, special cases, lower bounds and heuristics for
NP-hard scheduling problems of GPU and HPC systems.

Problems (each a subpackage with the same files): transfers, offload,
coschedule, burstbuffer, locality. Load an instance with `read_instance`, run a
method with `solve`, list methods with `methods`.
"""

from .core.errors import (
    HpcschedError as HpcschedError,
    InfeasibleError as InfeasibleError,
    InvalidInstanceError as InvalidInstanceError,
    SolverUnavailableError as SolverUnavailableError,
)
from .core.io import (
    read_instance as read_instance,
    read_solution as read_solution,
    write_instance as write_instance,
    write_solution as write_solution,
)
from .core.registry import get_problem as get_problem, methods as methods, run_method as solve
from .core.result import Result as Result, Status as Status

__version__ = "0.1.0"
