"""One solve and its wall time, for the tests that a method stops at its time limit.

Import it as ``from timed import SLACK, timed_solve`` (``tests/`` is on
``sys.path``, as for `reference`). The wall time includes the registry's
validation of the answer; ``SLACK`` is what a loaded 2-core machine may add
to the limit, far below the overruns these tests were written against.
"""

from __future__ import annotations

import time
from typing import Any

from hpcsched import Result, solve

SLACK = 1.5
"""Seconds a method may end past its time limit in these tests (a loaded 2-core machine)."""


def timed_solve(instance: Any, method: str, /, *, time_limit: float, **options: Any) -> tuple[Result, float]:
    """``hpcsched.solve(instance, method, time_limit=..., **options)`` and its wall time in seconds."""
    started = time.perf_counter()
    result = solve(instance, method, time_limit=time_limit, **options)
    return result, time.perf_counter() - started
