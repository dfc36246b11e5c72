"""The batched hand-over to HiGHS (`hpcsched.solvers.pulp_highs`): the same model as PuLP's, and its deadline.

The model HiGHS receives is compared with the one PuLP's own ``pulp.HiGHS.buildSolverModel``
builds (column by column), on random small models: costs, bounds, integrality and matrix entry
by entry. The deadline is tested with the work clock (tests/workclock.py), not the wall clock.
"""

from __future__ import annotations

import highspy
import numpy as np
import pulp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workclock import deadline_after

from hpcsched.core.result import Status
from hpcsched.solvers import pulp_highs
from hpcsched.solvers.milp import solve_pulp
from hpcsched.solvers.pulp_highs import batched_highs_class

coefficients = st.integers(-5, 5)
bounds = st.one_of(st.none(), st.integers(-3, 3))


@st.composite
def models(draw):
    """A random model: 1-6 variables (integer or not, any bounds), 0-6 rows (<=, >= or ==), either sense."""
    sense = draw(st.sampled_from([pulp.LpMinimize, pulp.LpMaximize]))
    lp = pulp.LpProblem("random", sense)
    variables = []
    for index in range(draw(st.integers(1, 6))):
        low, up = draw(bounds), draw(bounds)
        if low is not None and up is not None and low > up:
            low, up = up, low
        category = draw(st.sampled_from([pulp.LpContinuous, pulp.LpInteger]))
        variables.append(pulp.LpVariable(f"v{index}", low, up, cat=category))
    lp += pulp.lpSum(draw(coefficients) * v for v in variables) + draw(coefficients)
    for row in range(draw(st.integers(0, 6))):
        expression = pulp.lpSum(draw(coefficients) * v for v in variables if draw(st.booleans()))
        kind = draw(st.sampled_from(["le", "ge", "eq"]))
        right = draw(coefficients)
        constraint = {"le": expression <= right, "ge": expression >= right, "eq": expression == right}[kind]
        lp += constraint, f"r{row}"
    return lp


def _handed_over(lp, solver) -> dict:
    """What HiGHS holds after ``solver`` built ``lp``: its arrays, the matrix dense and row-wise."""
    lp.solverModel = highspy.Highs()
    lp.solverModel.setOptionValue("output_flag", False)
    solver.buildSolverModel(lp)
    model = lp.solverModel.getLp()
    matrix = np.zeros((model.num_row_, model.num_col_))
    major = model.num_row_ if model.a_matrix_.format_ == highspy.MatrixFormat.kRowwise else model.num_col_
    start = list(model.a_matrix_.start_) + [len(model.a_matrix_.index_)] * (major + 1 - len(model.a_matrix_.start_))
    for outer in range(major):
        for entry in range(start[outer], start[outer + 1]):
            inner, value = model.a_matrix_.index_[entry], model.a_matrix_.value_[entry]
            if model.a_matrix_.format_ == highspy.MatrixFormat.kRowwise:
                matrix[outer, inner] += value
            else:
                matrix[inner, outer] += value
    return {
        "cost": list(model.col_cost_),
        "col_lower": list(model.col_lower_),
        "col_upper": list(model.col_upper_),
        "row_lower": list(model.row_lower_),
        "row_upper": list(model.row_upper_),
        "integrality": [int(kind) for kind in model.integrality_] or [0] * model.num_col_,
        "matrix": matrix.tolist(),
    }


@settings(max_examples=60, deadline=None)
@given(models())
def test_the_batched_model_is_the_one_pulp_hands_over(lp):
    assert _handed_over(lp, batched_highs_class()(msg=False)) == _handed_over(lp, pulp.HiGHS(msg=False))


@settings(max_examples=30, deadline=None)
@given(models())
def test_the_batched_solve_agrees_with_pulps(lp):
    ours = solve_pulp(lp, time_limit=None)
    status = lp.solve(pulp.HiGHS(msg=False))
    theirs = pulp.value(lp.objective) if status == pulp.LpStatusOptimal else None
    if ours.status is Status.OPTIMAL:
        assert theirs == pytest.approx(ours.objective, abs=1e-6)
    else:
        assert lp.sol_status != pulp.LpSolutionOptimal


def _assignment_model(tasks: int) -> pulp.LpProblem:
    """``tasks`` rows of one binary per (task, server) pair summing to 1: a model big enough to hand over in steps."""
    lp = pulp.LpProblem("assign", pulp.LpMinimize)
    choose = [[pulp.LpVariable(f"x_{j}_{i}", cat=pulp.LpBinary) for i in range(2)] for j in range(tasks)]
    lp += pulp.lpSum((j % 3 + i) * x for j, row in enumerate(choose) for i, x in enumerate(row))
    for j, row in enumerate(choose):
        lp += pulp.lpSum(row) == 1, f"once_{j}"
    return lp


@pytest.mark.parametrize("reads", [0, 1, 2])
def test_a_deadline_passing_during_the_hand_over_starts_no_solve(reads):
    lp = _assignment_model(3 * pulp_highs.ROWS_PER_CHECK)
    with deadline_after(reads=reads):  # the deadline is read once per ROWS_PER_CHECK rows, then before the run
        outcome = solve_pulp(lp, time_limit=5.0)
    assert outcome.status is Status.TIME_LIMIT_NO_SOLUTION
    assert outcome.bound is None  # an unrun HiGHS reports a dual bound of 0.0: it proves nothing
    assert "deadline passed" in outcome.message
    assert lp.solverModel.getModelStatus() == highspy.HighsModelStatus.kNotset


def test_with_time_left_the_model_is_solved():
    lp = _assignment_model(50)
    outcome = solve_pulp(lp, time_limit=60.0)
    assert outcome.status is Status.OPTIMAL
    assert outcome.objective == pytest.approx(sum(j % 3 for j in range(50)))
