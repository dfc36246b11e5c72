"""OPTIMAL only with a proof: an unproven LP point and an unclamped non-preemptive bound."""

import dataclasses

import pytest
from reference import proven_optimum

from hpcsched import solve
from hpcsched.core.result import Status
from hpcsched.coschedule import bounds, generate_uniform, validate
from hpcsched.coschedule.bounds import solve_preemptive_lp


def _stopped_early(monkeypatch, factor):
    """solve_pulp as PuLP reports a HiGHS time limit: FEASIBLE, and a point that is not optimal."""
    real = bounds.solve_pulp

    def fake(model, **kwargs):
        outcome = real(model, **kwargs)
        inflated = lambda variable: factor * (outcome.value(variable) or 0.0)  # noqa: E731
        return dataclasses.replace(
            outcome, status=Status.FEASIBLE, value=inflated, objective=factor * outcome.objective, bound=None
        )

    monkeypatch.setattr(bounds, "solve_pulp", fake)


@pytest.mark.parametrize("factor", [1.0, 1.6])
def test_unproven_pulp_lp_is_feasible_without_bound(monkeypatch, factor):
    instance = generate_uniform(seed=2, n=12, density=1.0, r_min=0.4)
    optimum = proven_optimum(instance, "lp-preemptive")
    _stopped_early(monkeypatch, factor)
    solved = solve_preemptive_lp(instance, backend="pulp")
    assert solved.status is Status.FEASIBLE and solved.value >= optimum * (1 - 1e-9)
    result = solve(instance, "lp-preemptive", backend="pulp")
    assert result.status is Status.FEASIBLE, result.notes
    assert result.bound is None
    assert validate(instance, result.solution) == []
    assert result.objective >= optimum * (1 - 1e-9)
    # No proven optimum to minimize preemptions at: milp-min-preemptions is not OPTIMAL either.
    real_lp = bounds.solve_preemptive_lp
    monkeypatch.setattr(bounds, "solve_preemptive_lp", lambda inst, **kw: real_lp(inst, **{**kw, "backend": "pulp"}))
    fewest = solve(instance, "milp-min-preemptions")
    assert fewest.status is Status.FEASIBLE and fewest.bound is None


def test_unproven_lp_is_not_a_lower_bound(monkeypatch):
    instance = generate_uniform(seed=2, n=6, density=1.0, r_min=0.4)

    def unproven(inst, **kwargs):
        return bounds.LpSolution(Status.FEASIBLE, 1e9, solver="fake")

    monkeypatch.setattr(bounds, "solve_preemptive_lp", unproven)
    result = solve(instance, "cpsat", time_limit=5, grid=200)
    # The unproven LP value is no bound: only the trivial bound remains, and the grid schedule is not claimed optimal.
    assert result.status is Status.FEASIBLE and result.bound == pytest.approx(bounds.trivial(instance), rel=1e-8), (
        result.status,
        result.bound,
    )


def test_time_limited_pulp_lp_never_optimal_without_proof():
    instance = generate_uniform(seed=0, n=250, density=1, r_min=0.3)
    result = solve(instance, "lp-preemptive", backend="pulp", time_limit=0.02)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.status is not Status.OPTIMAL:  # no LP value as bound: none, or the trivial one of the LPT fallback
        assert result.bound is None or result.bound == bounds.trivial(instance), (result.bound, result.notes)


def test_broken_bound_above_the_makespan_is_an_error(monkeypatch):
    instance = generate_uniform(seed=1, n=4, density=1.0)
    true_lp = solve_preemptive_lp(instance).value
    monkeypatch.setattr(bounds, "lp", lambda inst: 10 * true_lp)
    result = solve(instance, "cpsat", time_limit=5, grid=200)
    assert result.status is Status.ERROR
    assert any("exceeds" in note for note in result.notes)


def test_bound_below_the_makespan_is_kept_unclamped():
    instance = generate_uniform(seed=3, n=8, density=1.0, r_min=0.55)
    result = solve(instance, "cpsat", time_limit=2, grid=100)
    lp = solve_preemptive_lp(instance).value
    assert result.bound is not None and result.bound >= lp * (1 - 1e-9)  # the LP bound shaved by its 1e-9 (bounds.best)
    if result.objective > result.bound * (1 + 1e-9):
        assert result.status is Status.FEASIBLE
