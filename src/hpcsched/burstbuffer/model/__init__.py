"""Data model of the burstbuffer problem: Instance, Solution, DATA_SCHEMA, evaluate, validate.

Applications alternate compute phases and I/O bursts; bursts go through a
burst buffer that drains to the parallel file system of bandwidth B. The
model (fluid, continuous time) and its modelling choices (three objectives
on one instance, dilation, efficiency, drain policies, static drain
schedules, starvation) are written down in ``docs/burstbuffer.md``.

Layers inside this folder: ``data`` -> ``solution`` -> ``trace`` ->
``static_events`` / ``dynamic_contents``, ``nominal`` -> ``dynamic_events`` ->
``fluid`` (the event simulator, written from the definition) -> ``validate``
(`validate`, `evaluate`, and the replay they share).
"""

from .data import (
    APPLICATION_KEYS as APPLICATION_KEYS,
)
from .data import (
    DATA_KEYS as DATA_KEYS,
)
from .data import (
    OBJECTIVES as OBJECTIVES,
)
from .data import (
    PLATFORM_KEYS as PLATFORM_KEYS,
)
from .data import (
    TIME_RESOLUTION as TIME_RESOLUTION,
)
from .data import (
    TOLERANCE as TOLERANCE,
)
from .data import (
    Application as Application,
)
from .data import (
    Instance as Instance,
)
from .data import (
    Platform as Platform,
)
from .schema import DATA_SCHEMA as DATA_SCHEMA
from .solution import (
    ALLOCATIONS as ALLOCATIONS,
)
from .solution import (
    DRAIN_POLICIES as DRAIN_POLICIES,
)
from .solution import (
    DrainSchedule as DrainSchedule,
)
from .solution import (
    Solution as Solution,
)
from .validate import evaluate as evaluate
from .validate import validate as validate

__all__ = [
    "ALLOCATIONS",
    "APPLICATION_KEYS",
    "DATA_KEYS",
    "DATA_SCHEMA",
    "DRAIN_POLICIES",
    "OBJECTIVES",
    "PLATFORM_KEYS",
    "TIME_RESOLUTION",
    "TOLERANCE",
    "Application",
    "DrainSchedule",
    "Instance",
    "Platform",
    "Solution",
    "evaluate",
    "validate",
]
