"""burstbuffer: sizing and partitioning burst buffers against I/O contention.

See ``docs/burstbuffer.md`` for the model and the three objectives
(``sharing``, ``sizing-dynamic``, ``sizing-static``). Importing this package
registers the problem and its methods.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from . import formulations as formulations
from . import heuristics as heuristics
from . import special_cases as special_cases
from .formulations import EXACT_METHODS as EXACT_METHODS
from .formulations import choose_exact, sharing, sizing
from .formulations.sharing import SharingParams
from .generate import generate_mix as generate_mix
from .generate import generate_periodic as generate_periodic
from .heuristics import DynamicReferenceParams, SplitParams
from .model import (
    DATA_SCHEMA as DATA_SCHEMA,
)
from .model import (
    Application as Application,
)
from .model import (
    DrainSchedule as DrainSchedule,
)
from .model import (
    Instance as Instance,
)
from .model import (
    Platform as Platform,
)
from .model import (
    Solution as Solution,
)
from .model import (
    evaluate as evaluate,
)
from .model import (
    validate as validate,
)
from .plot import plot_solution as plot_solution
from .special_cases import SizingParams

PROBLEM = register_problem(
    Problem(
        name="burstbuffer",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="exact",
        data_schema=DATA_SCHEMA,
        generators={"mix": generate_mix, "periodic": generate_periodic},
        importers={},
        plot=plot_solution,
        lower_bound=bounds.best,
    )
)
PROBLEM.add_dispatcher(
    "exact",
    choose_exact,
    kind="exact",
    summary="Best exact method for the instance's objective (sharing-dp, sizing-dynamic-sweep or sizing-static-lp)",
)
PROBLEM.add_method("sharing-dp", sharing.dp, kind="exact", params=SharingParams)
PROBLEM.add_method("sharing-milp", sharing.milp, kind="exact", params=SharingParams)
PROBLEM.add_method("sizing-dynamic-sweep", special_cases.sizing_dynamic_sweep, kind="exact", params=SizingParams)
PROBLEM.add_method("sizing-static-lp", sizing.lp, kind="exact", params=SizingParams)
PROBLEM.add_method(
    "sizing-static-constant",
    special_cases.sizing_static_constant,
    kind="heuristic",
    params=SizingParams,
    summary="Least static buffer with constant drain rates (optimal among constant rates only)",
)
PROBLEM.add_method("greedy-marginal", heuristics.greedy_marginal, kind="heuristic", params=SplitParams)
PROBLEM.add_method("equal-split", heuristics.equal_split, kind="heuristic", params=SplitParams)
PROBLEM.add_method("proportional-volume", heuristics.proportional_volume, kind="heuristic", params=SplitParams)
PROBLEM.add_method("proportional-rate", heuristics.proportional_rate, kind="heuristic", params=SplitParams)
PROBLEM.add_method("no-burst-buffer", heuristics.no_burst_buffer, kind="baseline")
PROBLEM.add_method(
    "dynamic-reference",
    heuristics.dynamic_reference,
    kind="baseline",
    params=DynamicReferenceParams,
    summary="Dynamic sharing of the same buffer (reference outside the static solution space)",
    answers="dynamic sharing of the buffer (outside the static solution space)",
)
PROBLEM.add_method("sharing-brute-force", sharing.brute_force, kind="brute-force", params=SharingParams)

__all__ = [
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "PROBLEM",
    "Application",
    "DrainSchedule",
    "Instance",
    "Platform",
    "Solution",
    "bounds",
    "evaluate",
    "formulations",
    "generate_mix",
    "generate_periodic",
    "heuristics",
    "plot_solution",
    "special_cases",
    "validate",
]
