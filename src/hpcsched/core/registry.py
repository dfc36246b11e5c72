"""The registry: problem name -> Problem, method name -> callable, and the one door.

`run_method` is the one door through which every method is called: it times
the call, turns a proven infeasibility into an INFEASIBLE result, passes
every returned solution through the problem's independent validator (an
invalid one becomes ERROR with the violations), and recomputes the objective
with the problem's ``evaluate``.

This module is also the registry's public face: it re-exports the records
(`core.problem`: `Problem`, `Method`), registration and look-up
(`core.registration`: `register_problem`, `get_problem`, ...) and the method
table (`core.method_table`), so ``from hpcsched.core.registry import ...``
reaches all of them.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from typing import Any

from .deadline import DEFAULT_TIME_LIMIT, TimeLimitReached, now
from .errors import InfeasibleError, OptionError
from .method_table import MethodSummary, ProblemSummary, problem_summaries
from .problem import METHOD_KINDS, Method, MethodFunction, Problem
from .registration import (
    _PROBLEMS,
    ENTRY_POINT_GROUP,
    PROBLEM_PACKAGES,
    get_problem,
    is_registered,
    methods,
    problem_names,
    problem_of,
    register_problem,
)
from .result import Result, Status

__all__ = [
    "ENTRY_POINT_GROUP",
    "METHOD_KINDS",
    "PROBLEM_PACKAGES",
    "_PROBLEMS",
    "Method",
    "MethodFunction",
    "MethodSummary",
    "Problem",
    "ProblemSummary",
    "answers_of",
    "check_result",
    "dispatch_note",
    "get_problem",
    "is_registered",
    "methods",
    "problem_names",
    "problem_of",
    "problem_summaries",
    "register_problem",
    "run_method",
]

# Relative tolerance when comparing a claimed bound with the evaluated objective.
# It absorbs the rounding of summing the same numbers in another order, nothing
# more: a backend's feasibility tolerance (1e-6 in HiGHS) is far above it, so a
# model that is off by its tolerance cannot slip a bound above the objective
# (and with it an OPTIMAL that nothing proved) through this check.
_TOLERANCE = 1e-9

# Relative gap under which a backend's OPTIMAL stands (HiGHS and CP-SAT stop at
# their own relative gap; the methods set it to this or tighter).
_OPTIMALITY_GAP = 1e-6


def run_method(
    instance: Any,
    method: str | None = None,
    *,
    problem: str | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    **options: Any,
) -> Result:
    """Run one method on one instance and return its checked Result.

    Parameters
    ----------
    instance
        An Instance of a registered problem.
    method
        Method name; the problem's default method when None.
    problem
        Problem name; inferred from the instance type when None.
    time_limit
        Seconds for the whole method, model building included (None:
        `DEFAULT_TIME_LIMIT`, the same for every method; ``math.inf``: no
        limit). Zero, a negative number or NaN raises `OptionError`.
    seed
        Passed to the method.
    **options
        Method-specific options.

    Returns
    -------
    Result
        With problem and method names set, the objective recomputed by the
        problem's ``evaluate``, and ERROR if the solution fails validation or
        the claimed bound exceeds the objective.
    """
    prob = get_problem(problem) if problem else problem_of(instance)
    requested = prob.method(method or prob.default_method)
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
    number = isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool)
    if not (number and time_limit > 0):  # refuses NaN too; math.inf is allowed (no limit), the CLI wants it finite
        raise OptionError("time_limit", f"must be a number of seconds > 0, got {time_limit!r}")
    started, clock_started = time.perf_counter(), now()
    entry = prob.resolve(requested.name, instance, time_limit)
    params = entry.build_params(options)
    # A dispatcher's choice (treemem's class test) counts in the limit: the method gets what is left.
    remaining = max(0.0, time_limit - (now() - clock_started))
    try:
        result = entry.func(instance, time_limit=remaining, seed=seed, params=params)
    except InfeasibleError as infeasible:
        result = Result(prob.name, entry.name, Status.INFEASIBLE, notes=(str(infeasible),))
    except TimeLimitReached as reached:
        result = Result(prob.name, entry.name, Status.TIME_LIMIT_NO_SOLUTION, notes=(str(reached),))
    elapsed = time.perf_counter() - started
    result = result.replace(
        problem=prob.name,
        method=requested.name,
        runtime_s=result.runtime_s if result.runtime_s > 0 else elapsed,
    )
    if requested is not entry:
        result = result.with_note(dispatch_note(requested.name, entry.name))
    return check_result(prob, instance, result)


def dispatch_note(dispatcher: str, chosen: str) -> str:
    """The note a dispatcher's result carries: which method ran (`answers_of` reads it back)."""
    return f"{dispatcher} ran {chosen}"


def answers_of(problem: Problem | str, method: str, notes: str | Sequence[str] = ()) -> str | None:
    """The other question ``method`` of ``problem`` answers (`Method.answers`), or None for the problem's own.

    A dispatcher answers what its chosen method answers: the choice is read
    from the run's ``notes`` (a list, or a results row's ``"; "``-joined
    text). An unknown problem or method (a plugin not loaded, a renamed
    method in an old results file) answers the problem's own question.
    """
    from .errors import UnknownProblemError

    if isinstance(problem, str):
        try:
            problem = get_problem(problem)
        except UnknownProblemError:
            return None
    entry = problem.methods.get(method)
    if entry is not None and entry.choose is not None:
        text = notes if isinstance(notes, str) else "; ".join(notes)
        found = re.search(rf"(?:^|; ){re.escape(dispatch_note(method, ''))}(\S+?)(?:;|$)", text)
        entry = problem.methods.get(found.group(1)) if found else None
    return entry.answers if entry is not None else None


def check_result(problem: Problem, instance: Any, result: Result) -> Result:
    """Validate ``result``'s solution and make its numbers consistent.

    The validator is the problem's, written from the definition; nothing a
    method says about its own solution is trusted.
    """
    if result.solution is None:
        if result.status.has_solution:
            return result.replace(
                status=Status.ERROR,
                notes=(*result.notes, f"method claimed {result.status} but returned no solution"),
            )
        return result
    violations = problem.validate(instance, result.solution)
    if violations:
        shown = [str(v) for v in violations[:10]]
        more = f" (+{len(violations) - 10} more)" if len(violations) > 10 else ""
        return result.replace(
            status=Status.ERROR,
            notes=(*result.notes, f"invalid solution: {'; '.join(shown)}{more}"),
        )
    kpis = problem.evaluate(instance, result.solution)
    objective = float(kpis["objective"])
    status, bound, notes = result.status, result.bound, list(result.notes)
    if status not in (Status.OPTIMAL, Status.FEASIBLE):
        notes.append(f"status {status} came with a solution; reported as FEASIBLE")
        status = Status.FEASIBLE
    slack = _TOLERANCE * max(1.0, abs(objective))
    if bound is not None and (math.isnan(bound) or bound > objective + slack):
        return result.replace(
            status=Status.ERROR,
            objective=objective,
            kpis=kpis,
            notes=(*notes, f"claimed lower bound {bound} exceeds the evaluated objective {objective}"),
        )
    if bound is not None and bound > objective:
        bound = objective  # summation rounding only (see _TOLERANCE)
    if status is Status.OPTIMAL:
        if bound is None:
            bound = objective
        elif bound < objective - _OPTIMALITY_GAP * max(1.0, abs(objective)):
            notes.append(f"optimality claimed but bound {bound} < objective {objective}: FEASIBLE")
            status = Status.FEASIBLE
    elif status is Status.FEASIBLE and bound is not None and bound >= objective - slack:
        # A proven lower bound equal to the value of a validated solution is a
        # proof of optimality, whoever found the two.
        notes.append("the proven bound meets the objective: OPTIMAL")
        status = Status.OPTIMAL
    return result.replace(status=status, objective=objective, bound=bound, kpis=kpis, notes=tuple(notes))
