"""Offload heuristics stop at their deadline on long chains (no wall clock: tests/workclock.py).

The shortest feasible prefix (`heuristics.sets.shortest_feasible_prefix`, a bisection of ~log2(L)
simulations) ran to the end whatever the deadline, and so did the re-timings of the starting set
in the local search and the horizon candidates of ``milp-fixed-order``: ~10 simulations after the
deadline on these chains; ``milp-fixed-order`` also made the fixed-order MILP's variables and
transfer chains (O(L) PuLP work, ~0.9 simulations here) before its first deadline check.

What a method may still do once its deadline has passed, each counted on the operation itself:
one simulation of offload-all (the heuristics' fallback, always feasible) and `bounds.best`,
the proven bound every offload result reports; ``factor`` x the check of the answer covers
``milp-fixed-order``'s own check of its horizon schedule (validator and fixed orders).
"""

from __future__ import annotations

import functools

import pytest
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.offload import Instance, bounds, validate
from hpcsched.offload.generate.synthetic import generate_random
from hpcsched.offload.simulate import simulate

#: Deadline-clock readings before the deadline passes: at the method's first check, a few checks
#: in, and well into its run. vdnn-conv reads the clock 11 times on this chain (its last reads are
#: the registry's); the others read it hundreds of times or, as searches, until the deadline.
READS = {
    "greedy-hideability": (0, 5, 50),
    "vdnn-conv": (0, 3, 8),
    "local-search": (0, 5, 50),
    "milp-fixed-order": (0, 5, 50),
}


@functools.cache
def _random_chain(n: int) -> Instance:
    return generate_random(seed=0, n=n)


@functools.cache
def _fallback_lines(n: int) -> int:
    """Lines of one simulation of the offload-all fallback and of the bound every result reports."""
    instance = _random_chain(n)
    return count_lines(simulate, instance, instance.offloadable) + count_lines(bounds.best, instance)


@pytest.mark.parametrize(("method", "reads"), [(method, reads) for method, values in READS.items() for reads in values])
def test_offload_heuristics_stop_at_the_limit(method, reads):
    instance = _random_chain(512)
    result, clock = solve_past_deadline(instance, method, reads=reads, problem="offload")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock, plus=_fallback_lines(512))
