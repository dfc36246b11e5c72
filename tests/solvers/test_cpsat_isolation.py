"""The hard deadline of solve_cpsat: a child process, killed when CP-SAT outlives its limit."""

from __future__ import annotations

import os
import signal
from types import SimpleNamespace

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


class _Clock:
    """`_solve_in_child`'s clock and waits, faked: a wait that times out moves the clock by its timeout."""

    def __init__(self):
        self.now = 100.0
        self.waits = []  # the timeout of every wait for the child's reply
        self.kills = []  # (pid, signal, clock reading) of every kill

    def monotonic(self):
        return self.now

    def select(self, readable, writable, errors, timeout):
        self.waits.append(timeout)
        self.now += timeout  # the child sent nothing within the timeout
        return [], [], []


def test_a_child_that_outlives_the_deadline_is_killed_at_it(monkeypatch):
    # No wall clock: every wait times out at once on a fake clock, and the kill is spied on (and issued).
    model, _ = golomb_cpsat()  # proving its optimum takes far longer than the deadline
    solver = cpsat._cp_model().CpSolver()
    solver.parameters.max_time_in_seconds = 60.0  # CP-SAT's own limit far away: only the kill stops it
    solver.parameters.num_workers = 1
    clock = _Clock()
    real_kill, real_waitpid = os.kill, os.waitpid
    statuses = []

    def kill(pid, sig):
        clock.kills.append((pid, sig, clock.now))
        real_kill(pid, sig)

    def waitpid(pid, options):
        if not clock.kills:  # a parent that does not kill would wait for CP-SAT's 60 s: stop the child here
            real_kill(pid, signal.SIGKILL)
        reaped = real_waitpid(pid, options)
        statuses.append(reaped)
        return reaped

    monkeypatch.setattr(cpsat, "time", SimpleNamespace(monotonic=clock.monotonic))
    monkeypatch.setattr(cpsat, "select", SimpleNamespace(select=clock.select))
    monkeypatch.setattr(os, "kill", kill)
    monkeypatch.setattr(os, "waitpid", waitpid)
    assert cpsat._solve_in_child(solver, model, deadline_s=0.5) is None
    assert clock.waits == [0.5]  # the reply is awaited exactly until the deadline
    # Killed at the deadline, not before, not after.
    assert [(sig, at) for _, sig, at in clock.kills] == [(signal.SIGKILL, 100.5)]
    # The child is reaped (no zombie left), and it was the kill that ended it.
    assert [reaped for reaped, _ in statuses] == [clock.kills[0][0]]
    assert os.WIFSIGNALED(statuses[0][1]) and os.WTERMSIG(statuses[0][1]) == signal.SIGKILL


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
