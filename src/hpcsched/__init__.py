"""hpcsched: exact models, special cases, lower bounds and heuristics for
NP-hard scheduling problems of GPU and HPC systems.

Problems (each a subpackage with the same files): transfers, offload,
coschedule, burstbuffer, locality, checkpoint, treemem, hetero, partition.
Load an instance with `read_instance`, run a method with `solve`, check a
solution with `validate`, score it with `evaluate`, list methods with
`methods`.
"""

from typing import Any

from .core.errors import (
    HpcschedError as HpcschedError,
)
from .core.errors import (
    InfeasibleError as InfeasibleError,
)
from .core.errors import (
    InvalidInstanceError as InvalidInstanceError,
)
from .core.errors import (
    OptionError as OptionError,
)
from .core.errors import (
    SolverUnavailableError as SolverUnavailableError,
)
from .core.io import (
    read_instance as read_instance,
)
from .core.io import (
    read_solution as read_solution,
)
from .core.io import (
    write_instance as write_instance,
)
from .core.io import (
    write_solution as write_solution,
)
from .core.registry import get_problem as get_problem
from .core.registry import methods as methods
from .core.registry import problem_of
from .core.registry import run_method as solve
from .core.result import Result as Result
from .core.result import Status as Status
from .core.violation import Violation as Violation

__version__ = "0.1.0"


def validate(instance: Any, solution: Any) -> list[Violation]:
    """Every rule of its problem that ``solution`` breaks on ``instance`` ([] means feasible).

    The problem's independent validator, written from the definition.
    """
    return problem_of(instance).validate(instance, solution)


def evaluate(instance: Any, solution: Any) -> dict[str, float]:
    """The objective (key ``"objective"``) and the problem's KPIs of a feasible ``solution``."""
    return problem_of(instance).evaluate(instance, solution)


__all__ = [
    "HpcschedError",
    "InfeasibleError",
    "InvalidInstanceError",
    "OptionError",
    "Result",
    "SolverUnavailableError",
    "Status",
    "Violation",
    "__version__",
    "evaluate",
    "get_problem",
    "methods",
    "read_instance",
    "read_solution",
    "solve",
    "validate",
    "write_instance",
    "write_solution",
]
