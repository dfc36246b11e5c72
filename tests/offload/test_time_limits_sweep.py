"""Offload heuristics stop at their deadline on long chains (no wall clock: tests/workclock.py).

The shortest feasible prefix (`heuristics.sets.shortest_feasible_prefix`, a bisection of ~log2(L)
simulations) ran to the end whatever the deadline, and so did the re-timings of the starting set
in the local search and the horizon candidates of ``milp-fixed-order``: ~10 simulations after the
deadline on these chains. Below the first simulation nothing is cut: a single simulation of
offload-all (the fallback) is what a method may still do once its deadline has passed.
"""

from __future__ import annotations

import functools

import pytest
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.offload import Instance, validate
from hpcsched.offload.generate.synthetic import generate_random
from hpcsched.offload.simulate import simulate


@functools.cache
def _random_chain(n: int) -> Instance:
    return generate_random(seed=0, n=n)


def _one_simulation(instance: Instance) -> int:
    """Lines of one simulation of the offload-all fallback."""
    return count_lines(simulate, instance, instance.offloadable)


@pytest.mark.parametrize("reads", [0, 5, 50])
@pytest.mark.parametrize("method", ["greedy-hideability", "vdnn-conv", "local-search", "milp-fixed-order"])
def test_offload_heuristics_stop_at_the_limit(method, reads):
    instance = _random_chain(512)
    result, clock = solve_past_deadline(instance, method, reads=reads, problem="offload")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock, plus=_one_simulation(instance))
