"""cpsat-lns stops once a window frees every node and CP-SAT closes that sub-solve.

Such a sub-solve is the whole `cpsat` model: once it is closed no later one
(the same model under another seed) can improve, so the search ends there
instead of repeating it until the time limit (the 12-node chain default ran
2,232 identical sub-solves in its 20 s), and CP-SAT's proof is the instance's:
the answer is OPTIMAL with the optimum as bound, the value the separate
`cpsat` proof gives.
"""

from __future__ import annotations

from reference import proven_optimum

import hpcsched
from hpcsched.core.result import Status
from hpcsched.partition import bounds, generate_chain

PROOF = {"deterministic_time": 20.0, "workers": 1, "stop_at_bound": False}
LNS = {"workers": 1, "max_iterations": 20, "iteration_deterministic_time": 20.0}


def test_a_closed_whole_instance_sub_solve_ends_the_search():
    instance = generate_chain(seed=0)  # 12 nodes: the default window of 40 frees all of them
    optimum = proven_optimum(instance, "cpsat", **PROOF)
    assert bounds.best(instance) < optimum  # the bound alone would not stop the search
    result = hpcsched.solve(instance, "cpsat-lns", time_limit=600, **LNS)
    assert result.status is Status.OPTIMAL, result.notes
    assert result.bound == optimum
    assert not hpcsched.validate(instance, result.solution)
    assert result.objective == optimum
    assert result.notes[0].startswith("1 sub-solves of 12 free nodes"), result.notes
    assert "CP-SAT closed it" in result.notes[-1], result.notes


def test_a_window_that_fixes_nodes_never_ends_the_search():
    instance = generate_chain(seed=0)
    optimum = proven_optimum(instance, "cpsat", **PROOF)
    result = hpcsched.solve(instance, "cpsat-lns", time_limit=600, **(LNS | {"neighbourhood": 4}))
    assert not hpcsched.validate(instance, result.solution)
    assert result.objective >= optimum
    assert result.bound == bounds.best(instance)  # a window that fixes nodes proves nothing about the instance
    assert len(result.notes) == 1 and result.notes[0].startswith("20 sub-solves of 4 free nodes"), result.notes
