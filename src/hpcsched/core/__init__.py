"""Problem-independent machinery: results, registry, file I/O, errors."""

from .errors import (
    FormatError as FormatError,
    HpcschedError as HpcschedError,
    InfeasibleError as InfeasibleError,
    InvalidInstanceError as InvalidInstanceError,
    InvalidSolutionError as InvalidSolutionError,
    SolverUnavailableError as SolverUnavailableError,
    UnknownMethodError as UnknownMethodError,
    UnknownOptionError as UnknownOptionError,
    UnknownProblemError as UnknownProblemError,
)
from .registry import (
    Method as Method,
    Problem as Problem,
    get_problem as get_problem,
    methods as methods,
    problem_names as problem_names,
    register_problem as register_problem,
    run_method as run_method,
)
from .result import Result as Result, Status as Status, gap_of as gap_of
from .violation import Violation as Violation
