"""Small models that are easy to satisfy and hard to prove optimal.

The Golomb ruler: n marks at integer positions with pairwise distinct
distances, minimize the length. Proving the optimum takes far longer than the
one second the tests allow (CP-SAT: 11 marks, optimum 72; HiGHS and CBC:
9 marks, optimum 44), while an incumbent is found at once:
- CP-SAT finds rulers by search immediately;
- for the MILP backends every "distinct distances" row may be violated at a
  penalty far above any ruler's length, so the all-at-the-upper-bound point is
  feasible and found by the solvers' trivial heuristics.
"""

from __future__ import annotations

import itertools

CPSAT_MARKS = 11
MILP_MARKS = 9
PENALTY = 1_000  # above any length the search considers, so the optimum violates nothing


def _limit(marks: int) -> int:
    return 2 ** (marks - 1)  # marks at 2^i - 1 form a valid ruler of this length


def golomb_cpsat():
    from hpcsched.solvers.cpsat import new_model

    model = new_model()
    marks = [model.new_int_var(0, _limit(CPSAT_MARKS), f"x{i}") for i in range(CPSAT_MARKS)]
    model.add(marks[0] == 0)
    for a, b in itertools.pairwise(marks):
        model.add(b >= a + 1)
    # one variable per difference: OR-Tools before 9.15 takes only affine expressions in all_different
    differences = []
    for i, j in itertools.combinations(range(CPSAT_MARKS), 2):
        difference = model.new_int_var(1, _limit(CPSAT_MARKS), f"d{i}_{j}")
        model.add(difference == marks[j] - marks[i])
        differences.append(difference)
    model.add_all_different(differences)
    model.minimize(marks[-1])
    return model, marks[-1]


def _couples():
    pairs = list(itertools.combinations(range(MILP_MARKS), 2))
    return list(itertools.combinations(pairs, 2))


def golomb_pulp():
    import pulp

    limit = _limit(MILP_MARKS)
    problem = pulp.LpProblem("golomb", pulp.LpMinimize)
    marks = [pulp.LpVariable(f"x{i}", 0, limit, cat="Integer") for i in range(MILP_MARKS)]
    length = marks[-1]
    terms = []
    for k, ((i, j), (p, q)) in enumerate(_couples()):
        order = pulp.LpVariable(f"o{k}", cat="Binary")
        waived = pulp.LpVariable(f"w{k}", cat="Binary")
        difference = (marks[j] - marks[i]) - (marks[q] - marks[p])
        problem += difference >= 1 - 2 * limit * (order + waived)
        problem += difference <= -1 + 2 * limit * (1 - order + waived)
        terms.append(waived)
    problem += length + PENALTY * pulp.lpSum(terms)
    for a, b in itertools.pairwise(marks):
        problem += b >= a
    return problem, length


def golomb_pyomo():
    import pyomo.environ as pyo

    limit = _limit(MILP_MARKS)
    couples = _couples()
    model = pyo.ConcreteModel()
    model.marks = pyo.Var(range(MILP_MARKS), domain=pyo.NonNegativeIntegers, bounds=(0, limit))
    model.order = pyo.Var(range(len(couples)), domain=pyo.Binary)
    model.waived = pyo.Var(range(len(couples)), domain=pyo.Binary)
    model.objective = pyo.Objective(expr=model.marks[MILP_MARKS - 1] + PENALTY * sum(model.waived.values()))
    model.increasing = pyo.Constraint(range(MILP_MARKS - 1), rule=lambda m, i: m.marks[i + 1] >= m.marks[i])

    def difference(m, k):
        (i, j), (p, q) = couples[k]
        return (m.marks[j] - m.marks[i]) - (m.marks[q] - m.marks[p])

    model.above = pyo.Constraint(
        range(len(couples)), rule=lambda m, k: difference(m, k) >= 1 - 2 * limit * (m.order[k] + m.waived[k])
    )
    model.below = pyo.Constraint(
        range(len(couples)), rule=lambda m, k: difference(m, k) <= -1 + 2 * limit * (1 - m.order[k] + m.waived[k])
    )
    return model, model.marks[MILP_MARKS - 1]
