"""A toy problem added through exactly the steps of docs/architecture.md ("Adding a problem").

The toy is the tutorial's own file, ``tests/docs/toy_pick.py`` (pick k of n
weighted items, minimize the heaviest one picked), loaded here as a fresh
module: one copy of the example, so the tutorial a reader follows is the code
these tests drive through every door a real problem uses: the Instance and
Solution data, the validator, the registry, a method with a Params dataclass,
the deadline, and `hpcsched.solve`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.errors import OptionError
from hpcsched.core.registry import _PROBLEMS

TOY_FILE = Path(__file__).parents[1] / "docs" / "toy_pick.py"


@pytest.fixture(scope="module")
def toy() -> ModuleType:
    """The tutorial's module, executed once (which registers ``pick``), unregistered afterwards.

    tests/core registers a toy problem of the same name at import: it is put back afterwards, so the
    result does not depend on which tests share a worker process (with one worker it did).
    """
    previous = _PROBLEMS.get("pick")
    spec = importlib.util.spec_from_file_location("architecture_toy_pick", TOY_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    yield module
    if previous is None:
        _PROBLEMS.pop("pick")  # other tests enumerate the registered problems
    else:
        _PROBLEMS["pick"] = previous
    del sys.modules[spec.name]


def test_a_method_runs_through_the_one_door(toy):
    instance = toy.Instance("t", (5, 1, 4, 2), 2)
    result = hpcsched.solve(instance, "greedy")
    assert (result.problem, result.method, result.objective) == ("pick", "greedy", 2.0)
    assert hpcsched.validate(instance, result.solution) == []
    assert hpcsched.evaluate(instance, result.solution)["objective"] == 2.0


def test_options_are_checked_once_by_the_registry(toy):
    instance = toy.Instance("t", (5, 1, 4, 2), 2)
    assert hpcsched.solve(instance, "greedy", order="first").objective == 5.0
    for bad, field_name in (
        ({"order": "heaviest"}, "options.order"),  # outside the Literal
        ({"ordre": "first"}, "options.ordre"),  # a typo is refused, not swallowed
        ({"order": 3}, "options.order"),  # ill-typed
    ):
        with pytest.raises(OptionError) as error:
            hpcsched.solve(instance, "greedy", **bad)
        assert error.value.field == field_name
    with pytest.raises(OptionError):
        hpcsched.solve(instance, "brute-force", order="first")  # a method without options takes none


def test_an_invalid_solution_becomes_error(toy):
    def broken(instance, /, *, time_limit, seed, params):
        return hpcsched.Result(status=hpcsched.Status.OPTIMAL, solution=toy.Solution((0, 0)))

    toy.PROBLEM.add_method("broken", broken, kind="heuristic")
    result = hpcsched.solve(toy.Instance("t", (5, 1), 2), "broken")
    assert result.status is hpcsched.Status.ERROR and "picked twice" in result.notes[-1]


def test_an_expired_deadline_is_time_limit_no_solution(toy):
    result = hpcsched.solve(toy.Instance("t", tuple(range(30)), 15), "brute-force", time_limit=1e-9)
    assert result.status is hpcsched.Status.TIME_LIMIT_NO_SOLUTION


def test_the_generator_is_seeded(toy):
    assert toy.generate_uniform(seed=3, n=9) == toy.generate_uniform(seed=3, n=9)
    assert toy.generate_uniform(seed=3, n=9) != toy.generate_uniform(seed=4, n=9)


@given(st.lists(st.integers(0, 50), min_size=1, max_size=7), st.data())
def test_the_heuristic_meets_brute_force(toy, weights, data):
    k = data.draw(st.integers(1, len(weights)))
    instance = toy.Instance("t", tuple(weights), k)
    exact = hpcsched.solve(instance, "brute-force")
    heuristic = hpcsched.solve(instance, "greedy")
    assert exact.status is hpcsched.Status.OPTIMAL
    assert heuristic.objective == exact.objective  # the k lightest are optimal for a bottleneck
    assert dataclasses.asdict(heuristic.solution)  # a real Solution came back
