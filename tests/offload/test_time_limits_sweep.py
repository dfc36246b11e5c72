"""Time limits found overrun by the 2026-12-04 sweep of every offload method at growing sizes.

The shortest feasible prefix (`heuristics.sets.shortest_feasible_prefix`, a bisection of ~log2(L)
simulations) ran to the end whatever the deadline, and so did the re-timings of the starting set
in the local search and the horizon candidates of ``milp-fixed-order``. One simulation of a
2,048-layer chain costs ~0.6 s, so at a 0.5 s limit the CLI took 3.5 s (``greedy-hideability``,
``vdnn-conv``), 4.0 s (``local-search``) and 5.3 s (``milp-fixed-order``); now 1.5-2.1 s, of
which ~1 s is start-up and reading. Below the first simulation nothing is cut: a single
simulation of offload-all (the fallback) is the floor.
"""

from __future__ import annotations

import functools

import pytest
from timed import SLACK, timed_solve

from hpcsched.core.result import Status
from hpcsched.offload import Instance, validate
from hpcsched.offload.generate.synthetic import generate_random

LIMIT = 0.5


@functools.cache
def _random_chain(n: int) -> Instance:
    return generate_random(seed=0, n=n)


@pytest.mark.parametrize("method", ["greedy-hideability", "vdnn-conv", "local-search", "milp-fixed-order"])
def test_offload_heuristics_stop_at_the_limit(method):
    instance = _random_chain(2048)
    result, elapsed = timed_solve(instance, method, problem="offload", time_limit=LIMIT)
    assert elapsed < LIMIT + SLACK, (elapsed, result.notes)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert validate(instance, result.solution) == []
