"""Problem-independent machinery: results, registry, file I/O, errors."""

from .errors import (
    FormatError as FormatError,
)
from .errors import (
    HpcschedError as HpcschedError,
)
from .errors import (
    InfeasibleError as InfeasibleError,
)
from .errors import (
    InvalidInstanceError as InvalidInstanceError,
)
from .errors import (
    InvalidSolutionError as InvalidSolutionError,
)
from .errors import (
    SolverUnavailableError as SolverUnavailableError,
)
from .errors import (
    UnknownMethodError as UnknownMethodError,
)
from .errors import (
    UnknownProblemError as UnknownProblemError,
)
from .registry import (
    Method as Method,
)
from .registry import (
    Problem as Problem,
)
from .registry import (
    get_problem as get_problem,
)
from .registry import (
    methods as methods,
)
from .registry import (
    problem_names as problem_names,
)
from .registry import (
    register_problem as register_problem,
)
from .registry import (
    run_method as run_method,
)
from .result import Result as Result
from .result import Status as Status
from .result import gap_of as gap_of
from .violation import Violation as Violation
