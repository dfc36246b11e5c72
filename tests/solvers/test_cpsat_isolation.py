"""The hard deadline of solve_cpsat: a child process, killed when CP-SAT outlives its limit."""

from __future__ import annotations

import time

import pytest

from hpcsched.core.result import Status
from hpcsched.solvers import cpsat
from hpcsched.solvers.cpsat import new_model, solve_cpsat

from .hard_models import golomb_cpsat


def _small_model():
    model = new_model()
    x = model.new_int_var(0, 10, "x")
    b = model.new_bool_var("b")
    model.add(x + 2 * b >= 5)
    model.minimize(x + 3 * b)
    return model, x, b


def test_a_child_solve_reads_the_same_values_as_an_in_process_one():
    model, x, b = _small_model()
    here = solve_cpsat(model, time_limit=10, isolate=False)
    there = solve_cpsat(model, time_limit=10, isolate=True)
    assert here.status is there.status is Status.OPTIMAL
    assert here.objective == there.objective == 5 and here.bound == there.bound
    assert here.value is not None and there.value is not None
    for expression in (x, b, ~b, x + 2 * b + 1, 3):
        assert there.value(expression) == here.value(expression)


def test_a_child_that_outlives_the_deadline_is_killed():
    model, _ = golomb_cpsat()  # proving its optimum takes far longer than the deadline
    solver = cpsat._cp_model().CpSolver()
    solver.parameters.max_time_in_seconds = 60.0  # CP-SAT's own limit far away: only the kill stops it
    solver.parameters.num_workers = 1
    started = time.perf_counter()
    assert cpsat._solve_in_child(solver, model, deadline_s=0.5) is None
    assert time.perf_counter() - started < 5.0


def test_large_models_under_a_wall_clock_limit_are_isolated(monkeypatch):
    calls = []
    real = cpsat._solve_in_child

    def spy(solver, model, deadline_s):
        calls.append(deadline_s)
        return real(solver, model, deadline_s)

    monkeypatch.setattr(cpsat, "_solve_in_child", spy)
    monkeypatch.setattr(cpsat, "ISOLATE_ABOVE", 1)
    model, _, _ = _small_model()
    assert solve_cpsat(model, time_limit=10).status is Status.OPTIMAL
    assert calls == [pytest.approx(10 + cpsat.GRACE_S)]
    assert solve_cpsat(model, deterministic_time=5.0).status is Status.OPTIMAL  # no wall-clock limit: in process
    assert len(calls) == 1
