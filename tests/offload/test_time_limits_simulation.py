"""Offload methods stop inside a simulation when their deadline passes there (no wall clock: tests/workclock.py).

One simulation of a long chain is seconds of Python (10^5 layers: ~2 s) and read no clock, so a
method whose deadline passed in its first simulation ran it to the end, and often one or two
more (the bisection's first steps, cpsat-plain's horizon and then its fallback), before its first
check: at 10^5 layers and a 1 s limit, 5-8 s. Now the simulator reads the method's own deadline
every `simulate.CHECK_EVERY` steps: a method without a schedule yet answers
TIME_LIMIT_NO_SOLUTION, one with an incumbent returns it.

Here the deadline passes a quarter of a simulation's lines (one simulation of offload-all on this
3,000-layer chain: ~840,000 Python lines; checking an answer: ~21,000) after the method's first
simulation starts (`_lines_before_first_run`): inside it, or, when it ends early (a set that does
not fit stops at the first step that cannot start), inside the next.
"""

from __future__ import annotations

import functools
import importlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workclock import assert_stops_promptly, count_lines, deadline_after, solve_past_deadline

from hpcsched import solve
from hpcsched.core import deadline as deadline_module
from hpcsched.core.deadline import Deadline, TimeLimitReached
from hpcsched.core.result import Status
from hpcsched.offload import Instance, bounds, validate
from hpcsched.offload.generate.synthetic import generate_random
from hpcsched.offload.simulate import simulate

N = 3000

simulate_package = importlib.import_module("hpcsched.offload.simulate")  # the package (offload exports the function)

#: The methods and their options: cpsat without its LP phase, whose build before the first
#: simulation is millions of traced lines (its deadline checks: test_lp_variables_stop_at_the_deadline).
#: lp-rounding is left out: its LP solve runs on the wall clock (whatever the deadline clock reads),
#: so the line at which its first simulation starts differs from run to run.
METHODS = {
    "offload-all": {},
    "greedy-size": {},
    "greedy-hideability": {},
    "vdnn-conv": {},
    "dp": {},
    "local-search": {},
    "cpsat": {"use_lp": False},
    "cpsat-plain": {},
    "milp-fixed-order": {},
}

REPORT_THE_BOUND_LAST = {
    "offload-all",
    "greedy-size",
    "greedy-hideability",
    "vdnn-conv",
    "dp",
    "local-search",
    "lp-rounding",
}


class _FirstRun(BaseException):
    """Stops the method when its first long simulation starts (a BaseException: no method catches it)."""


@functools.cache
def _chain() -> Instance:
    return generate_random(seed=0, n=N)


@functools.cache
def _simulation_lines() -> int:
    instance = _chain()
    return count_lines(simulate, instance, instance.offloadable)


def _lines_before_first_run(monkeypatch: pytest.MonkeyPatch, method: str) -> int:
    """Python lines the method runs (the count `deadline_after` makes) before its first simulation starts its steps."""
    real = simulate_package._AsapSimulator.forward_phase
    with monkeypatch.context() as patch:

        def stop(self):
            raise _FirstRun

        patch.setattr(simulate_package._AsapSimulator, "forward_phase", stop)
        with deadline_after(lines=10**12) as state:  # never passes: only counts
            try:
                solve(_chain(), method, time_limit=1.0, **METHODS[method])
            except _FirstRun:
                pass
            else:
                pytest.fail(f"{method} ran no simulation")
    assert simulate_package._AsapSimulator.forward_phase is real
    return state.lines_before


@pytest.mark.parametrize("method", list(METHODS))
def test_the_deadline_passing_inside_a_simulation_stops_the_method(monkeypatch, method):
    instance = _chain()
    lines = _lines_before_first_run(monkeypatch, method) + _simulation_lines() // 4
    result, clock = solve_past_deadline(instance, method, lines=lines, problem="offload", **METHODS[method])
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate(instance, result.solution) == []
    # The heuristics compute the bound they report (`bounds.best`, O(L)) once their search is over;
    # the exact methods before it.
    reported = result.solution is not None and method in REPORT_THE_BOUND_LAST
    assert_stops_promptly(instance, result, clock, plus=count_lines(bounds.best, instance) if reported else 0)


def test_a_passed_deadline_stops_a_simulation_and_a_distant_one_changes_nothing():
    instance = _chain()
    with pytest.raises(TimeLimitReached, match="simulating the forward phase"):
        simulate(instance, instance.offloadable, deadline=Deadline(at=0.0))
    with simulate_package.simulation_deadline(Deadline(at=0.0)):
        with pytest.raises(TimeLimitReached):
            simulate(instance, instance.offloadable)
        # an explicit deadline overrides the method's
        assert simulate(instance, instance.offloadable, deadline=Deadline(None)) == simulate(
            instance, instance.offloadable, deadline=Deadline.after(1e9)
        )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 2500), share=st.floats(0.0, 1.0))
def test_a_deadline_that_does_not_pass_gives_the_same_schedule(seed, n, share):
    instance = generate_random(seed=seed, n=n)
    chosen = [i for i in instance.offloadable if (i * 7919 % 1000) / 1000 < share]
    assert simulate(instance, chosen, deadline=Deadline.after(1e9)) == simulate(instance, chosen)


def test_lp_variables_stop_at_the_deadline():
    instance = _chain()
    with deadline_after(reads=1) as clock:  # passes at the first reading inside the LP's build
        with pytest.raises(TimeLimitReached, match="creating the SF variables"):
            bounds.lp_relaxation(instance, time_limit=60.0)
    assert clock.lines_after < 100_000


@pytest.mark.parametrize("method", ["cpsat", "lp-rounding"])
def test_an_lp_that_cannot_be_built_in_its_share_is_not_started(monkeypatch, method):
    """At 3,000 layers the LP's build takes ~28 s: in a 1 s limit it was started, stopped, and gave nothing.

    A 0.5 s limit: the LP's share (cpsat 0.175 s, lp-rounding 0.35 s) is still far below its least build
    time (3 s), and cpsat's full-resolution phase (more than 0.5 s left) is not reached: at 1 s it built
    a 72,000-item CP-SAT model after the heuristics (~35 s of Python), which has nothing to do with the LP.
    """
    instance = _chain()

    def refuse(*args, **kwargs):
        raise AssertionError("the LP relaxation was started")

    monkeypatch.setattr(bounds, "lp_relaxation", refuse)
    readings = itertools.count()
    # a deterministic clock: 10 ms per reading (50 readings in the limit), so the method's phases end after
    # the same work on any machine; the LP's share is decided from the limit before any reading
    monkeypatch.setattr(deadline_module, "clock", lambda: next(readings) * 1e-2)
    result = solve(instance, method, time_limit=0.5, **({"use_lp": True} if method == "cpsat" else {}))
    assert result.status is Status.FEASIBLE, result.notes
    assert any("not built: at 3000 layers its build takes more than 3 s" in note for note in result.notes), result.notes
