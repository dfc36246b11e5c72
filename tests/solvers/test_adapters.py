"""The backend adapters map statuses honestly and pass options through."""

from __future__ import annotations

import pulp
import pyomo.environ as pyo
import pytest

from hpcsched.core.errors import SolverUnavailableError
from hpcsched.core.result import Status
from hpcsched.solvers.cpsat import new_model, solve_cpsat
from hpcsched.solvers.milp import solve_pulp
from hpcsched.solvers.pyomo import solve_pyomo

from .hard_models import golomb_cpsat, golomb_pulp, golomb_pyomo

# Known optima of the Golomb rulers in hard_models (Golomb ruler tables).
OPTIMUM_9_MARKS, OPTIMUM_11_MARKS = 44, 72


def _check_time_limited(outcome, limit, optimum):
    assert outcome.status is Status.FEASIBLE, outcome.message
    assert outcome.objective is not None and outcome.objective >= optimum
    # how long the stop took is measured in benchmarks/limits.py, not asserted here (wall clock)
    if outcome.bound is not None:
        assert outcome.bound <= optimum


@pytest.mark.parametrize("backend", ["highs", "cbc"])
def test_pulp_time_limit_is_feasible_not_optimal(backend):
    problem, length = golomb_pulp()
    outcome = solve_pulp(problem, backend=backend, time_limit=1.0, seed=3)
    _check_time_limited(outcome, 1.0, OPTIMUM_9_MARKS)
    assert outcome.value(length) <= outcome.objective


def test_pyomo_time_limit_is_feasible_not_optimal():
    model, length = golomb_pyomo()
    outcome = solve_pyomo(model, time_limit=1.0, seed=3)
    _check_time_limited(outcome, 1.0, OPTIMUM_9_MARKS)
    assert outcome.value(length) <= outcome.objective


def test_cpsat_time_limit_is_feasible_not_optimal():
    model, length = golomb_cpsat()
    outcome = solve_cpsat(model, time_limit=1.0, seed=3)
    _check_time_limited(outcome, 1.0, OPTIMUM_11_MARKS)
    assert outcome.bound is not None
    assert outcome.value(length) == outcome.objective


def _tiny_pulp(infeasible: bool):
    problem = pulp.LpProblem("tiny", pulp.LpMinimize)
    x = pulp.LpVariable("x", 0, 10, cat="Integer")
    problem += x
    problem += x >= 2.5
    if infeasible:
        problem += x <= 2
    return problem, x


@pytest.mark.parametrize("backend", ["highs", "cbc"])
def test_pulp_optimal_and_infeasible(backend):
    problem, x = _tiny_pulp(False)
    outcome = solve_pulp(problem, backend=backend)
    assert (outcome.status, outcome.objective, outcome.bound, outcome.value(x)) == (Status.OPTIMAL, 3, 3, 3)
    outcome = solve_pulp(_tiny_pulp(True)[0], backend=backend)
    assert outcome.status is Status.INFEASIBLE and outcome.value is None


def test_pyomo_optimal_and_infeasible():
    model = pyo.ConcreteModel()
    model.x = pyo.Var(bounds=(0, 10), domain=pyo.Integers)
    model.objective = pyo.Objective(expr=model.x)
    model.low = pyo.Constraint(expr=model.x >= 2.5)
    outcome = solve_pyomo(model)
    assert (outcome.status, outcome.objective, outcome.value(model.x)) == (Status.OPTIMAL, 3, 3)
    model.high = pyo.Constraint(expr=model.x <= 2)
    assert solve_pyomo(model).status is Status.INFEASIBLE


def test_cpsat_optimal_and_infeasible():
    model = new_model()
    x = model.new_int_var(0, 10, "x")
    model.add(x >= 3)
    model.minimize(x)
    outcome = solve_cpsat(model, workers=1, seed=5)
    assert (outcome.status, outcome.objective, outcome.bound, outcome.value(x)) == (Status.OPTIMAL, 3, 3, 3)
    assert outcome.backend.startswith("ortools-cpsat")
    model.add(x <= 2)
    outcome = solve_cpsat(model)
    assert outcome.status is Status.INFEASIBLE and outcome.objective is None


def test_cpsat_passes_parameters_through():
    model, _ = golomb_cpsat()
    outcome = solve_cpsat(model, time_limit=5, workers=1, seed=11, parameters={"stop_after_first_solution": True})
    assert outcome.status is Status.FEASIBLE


def test_missing_backends_raise_with_install_hint():
    with pytest.raises(SolverUnavailableError, match="choose one of highs, cbc"):
        solve_pulp(_tiny_pulp(False)[0], backend="gurobi-not-installed")
    model = pyo.ConcreteModel()
    model.x = pyo.Var(bounds=(0, 1))
    model.objective = pyo.Objective(expr=model.x)
    with pytest.raises(SolverUnavailableError, match="not available"):
        solve_pyomo(model, solver="no_such_solver_anywhere")


def test_a_model_the_backend_refuses_is_an_error_not_a_crash():
    problem = pulp.LpProblem("huge", pulp.LpMinimize)
    x = pulp.LpVariable("x", 0, None, cat="Integer")
    problem += x
    problem += 1e300 * x >= 3  # beyond HiGHS' numerical range: it refuses the model
    outcome = solve_pulp(problem)
    assert outcome.status is Status.ERROR and outcome.value is None
    assert outcome.message.startswith("highs failed")


@pytest.mark.parametrize("sense", [pulp.LpMinimize, pulp.LpMaximize])
def test_pulp_mip_bound_includes_the_objective_constant(sense):
    # PuLP gives HiGHS the objective without its constant, negated when maximizing; the
    # reported bound must be on the model's own objective. Optimum: x + y = 4 (min) or 7 (max),
    # all of it on y (min: y = 0, x = 4, value 9; max: y = 7, value 19).
    problem = pulp.LpProblem("constant", sense)
    x = pulp.LpVariable("x", 0, 10, cat="Integer")
    y = pulp.LpVariable("y", 0, 10, cat="Integer")
    problem += x + 2 * y + 5
    problem += x + y >= 3.5
    problem += x + y <= 7.5
    outcome = solve_pulp(problem, backend="highs")
    expected = 9 if sense == pulp.LpMinimize else 19
    assert outcome.status is Status.OPTIMAL
    assert outcome.objective == pytest.approx(expected) and outcome.bound == pytest.approx(expected)


def _small_mip_pulp():
    problem = pulp.LpProblem("threads", pulp.LpMinimize)
    x = pulp.LpVariable("x", 0, 10, cat="Integer")
    y = pulp.LpVariable("y", 0, 10, cat="Integer")
    problem += x + 2 * y
    problem += x + y >= 3.5
    return problem


def _small_mip_pyomo():
    model = pyo.ConcreteModel()
    model.x = pyo.Var(domain=pyo.Integers, bounds=(0, 10))
    model.y = pyo.Var(domain=pyo.Integers, bounds=(0, 10))
    model.objective = pyo.Objective(expr=model.x + 2 * model.y)
    model.cover = pyo.Constraint(expr=model.x + model.y >= 3.5)
    return model


def test_highs_solves_after_a_solve_with_another_thread_count():
    # HiGHS sizes one thread pool per process on its first solve; without a reset, a later solve
    # with another thread count came back "no solution" (PuLP) or ERROR (Pyomo), optimum x = 4.
    for threads in (2, 1, 2):
        assert solve_pulp(_small_mip_pulp(), backend="highs", threads=threads).objective == pytest.approx(4)
        assert solve_pyomo(_small_mip_pyomo(), threads=threads).objective == pytest.approx(4)
