"""Exact references for the tests: a result read as the optimum must be a proven one.

A test that compares a method with brute force (or another exact method)
compares against nothing if the reference stopped at its time limit and
returned its incumbent as FEASIBLE. `proven` solves with a generous
wall-clock *safety* limit (the references take seconds alone; the limit is
only there so that a broken reference cannot hang the suite) and asserts
that the reference proved its optimum, so that no verdict depends on how
loaded the machine is. Import it as ``from reference import proven, proven_optimum``
(``tests/`` is on ``sys.path``: it has no ``__init__.py``).
"""

from __future__ import annotations

from typing import Any

from hpcsched import Result, Status, solve

SAFETY_LIMIT = 600.0
"""Wall-clock stop of a reference, in seconds: far above what any reference of the suite needs."""


def proven(instance: Any, method: str, /, *, time_limit: float = SAFETY_LIMIT, **options: Any) -> Result:
    """Solve ``instance`` with the exact ``method`` and assert that it proved its optimum.

    Parameters
    ----------
    instance
        The instance.
    method
        An exact method of the instance's problem (brute force, a DP, a MILP, CP-SAT...).
    time_limit
        Wall-clock safety stop; a reference that reaches it fails the assertion.
    **options
        Passed to `hpcsched.solve`.

    Returns
    -------
    Result
        The reference's result, status OPTIMAL.
    """
    result = solve(instance, method, time_limit=time_limit, **options)
    assert result.status is Status.OPTIMAL, (
        f"reference {method} did not prove its optimum ({result.status}): {result.notes}"
    )
    assert result.objective is not None
    return result


def proven_optimum(instance: Any, method: str, /, *, time_limit: float = SAFETY_LIMIT, **options: Any) -> float:
    """The proven optimal objective of ``instance`` by the exact ``method`` (see `proven`)."""
    objective = proven(instance, method, time_limit=time_limit, **options).objective
    assert objective is not None
    return objective


def proven_or_infeasible(instance: Any, method: str, /, *, time_limit: float = SAFETY_LIMIT, **options: Any) -> Result:
    """Like `proven`, but an instance proven to have no solution (INFEASIBLE) is also accepted.

    For strategies that may draw infeasible instances: the test then discards
    those with ``assume(result.status is Status.OPTIMAL)``, which no longer
    discards (silently) an instance whose reference merely ran out of time.
    """
    result = solve(instance, method, time_limit=time_limit, **options)
    assert result.status in (Status.OPTIMAL, Status.INFEASIBLE), (
        f"reference {method} neither proved its optimum nor infeasibility ({result.status}): {result.notes}"
    )
    return result
