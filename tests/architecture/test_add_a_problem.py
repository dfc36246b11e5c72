"""A toy problem added through exactly the steps of docs/architecture.md ("Adding a problem").

The toy: pick k of n items with weights; minimize the largest weight picked.
Small enough to read in one screen, it goes through every door a real
problem uses: the Instance/Solution data, the validator, the registry, a
method with a Params dataclass, the deadline, and `hpcsched.solve`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.deadline import Deadline
from hpcsched.core.errors import OptionError
from hpcsched.core.params import at_least
from hpcsched.core.registry import _PROBLEMS, Problem, register_problem
from hpcsched.core.violation import Violation

# --- step 2: model.py ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Instance:
    name: str
    weights: tuple[int, ...]
    k: int
    source: Mapping[str, Any] = field(default_factory=dict)
    time_unit: str | None = None

    @classmethod
    def from_data(cls, data, *, name, time_unit=None, source=None):
        return cls(name, tuple(data["weights"]), int(data["k"]), dict(source or {}), time_unit)

    def to_data(self):
        return {"weights": list(self.weights), "k": self.k}


@dataclass(frozen=True)
class Solution:
    picked: tuple[int, ...]

    @classmethod
    def from_data(cls, data, *, instance):
        return cls(tuple(data["picked"]))

    def to_data(self):
        return {"picked": list(self.picked)}


DATA_SCHEMA = {
    "type": "object",
    "required": ["weights", "k"],
    "additionalProperties": False,
    "properties": {"weights": {"type": "array", "items": {"type": "integer"}}, "k": {"type": "integer"}},
}


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Written from the definition: exactly k distinct items of the instance."""
    violations = []
    if len(set(solution.picked)) != len(solution.picked):
        violations.append(Violation("distinct", f"an item is picked twice: {solution.picked}"))
    if len(solution.picked) != instance.k:
        violations.append(Violation("count", f"{len(solution.picked)} items picked, {instance.k} asked"))
    if any(not 0 <= i < len(instance.weights) for i in solution.picked):
        violations.append(Violation("item", f"an item outside 0..{len(instance.weights) - 1}"))
    return violations


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    return {"objective": float(max((instance.weights[i] for i in solution.picked), default=0))}


# --- step 4: methods with their Params ------------------------------------------------------------


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> hpcsched.Result:
    """Every k-subset (the tests' third opinion)."""
    import itertools

    deadline = Deadline.after(time_limit)
    best = None
    for subset in itertools.combinations(range(len(instance.weights)), instance.k):
        deadline.check("enumerating subsets")
        value = max((instance.weights[i] for i in subset), default=0)
        if best is None or value < best[0]:
            best = (value, subset)
    assert best is not None
    return hpcsched.Result(status=hpcsched.Status.OPTIMAL, solution=Solution(best[1]))


@dataclass(frozen=True)
class GreedyParams:
    """Options of `greedy`.

    Attributes
    ----------
    order
        ``"lightest"`` picks the k lightest items (optimal); ``"first"`` the
        first k (a baseline).
    max_iterations
        Items looked at, at most.
    """

    order: Literal["lightest", "first"] = "lightest"
    max_iterations: int = 1000

    def __post_init__(self):
        at_least("max_iterations", self.max_iterations, 1)


def greedy(instance: Instance, /, *, time_limit: float, seed: int, params: GreedyParams) -> hpcsched.Result:
    """The k lightest (or first) items."""
    items = range(len(instance.weights))
    if params.order == "lightest":
        items = sorted(items, key=lambda i: instance.weights[i])
    picked = tuple(list(items)[: min(instance.k, params.max_iterations)])
    return hpcsched.Result(status=hpcsched.Status.FEASIBLE, solution=Solution(picked), bound=None)


# --- step 3: registration -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def toy():
    problem = register_problem(
        Problem(
            name="toy-pick",
            instance_type=Instance,
            solution_type=Solution,
            evaluate=evaluate,
            validate=validate,
            default_method="brute-force",
            data_schema=DATA_SCHEMA,
        )
    )
    problem.add_method("brute-force", brute_force, kind="brute-force")
    problem.add_method("greedy", greedy, kind="heuristic", params=GreedyParams)
    yield problem
    _PROBLEMS.pop("toy-pick")  # other tests enumerate the registered problems


def test_a_method_runs_through_the_one_door(toy):
    instance = Instance("t", (5, 1, 4, 2), 2)
    result = hpcsched.solve(instance, "greedy")
    assert (result.problem, result.method, result.objective) == ("toy-pick", "greedy", 2.0)
    assert hpcsched.validate(instance, result.solution) == []
    assert hpcsched.evaluate(instance, result.solution)["objective"] == 2.0


def test_options_are_checked_once_by_the_registry(toy):
    instance = Instance("t", (5, 1, 4, 2), 2)
    assert hpcsched.solve(instance, "greedy", order="first").objective == 5.0
    for bad, field_name in (
        ({"order": "heaviest"}, "options.order"),
        ({"max_iterations": 0}, "options.max_iterations"),
        ({"max_iteration": 3}, "options.max_iteration"),
        ({"max_iterations": "3"}, "options.max_iterations"),
    ):
        with pytest.raises(OptionError) as error:
            hpcsched.solve(instance, "greedy", **bad)
        assert error.value.field == field_name
    with pytest.raises(OptionError):
        hpcsched.solve(instance, "brute-force", order="first")  # a method without options takes none


def test_an_invalid_solution_becomes_error(toy):
    def broken(instance, /, *, time_limit, seed, params):
        return hpcsched.Result(status=hpcsched.Status.OPTIMAL, solution=Solution((0, 0)))

    toy.add_method("broken", broken, kind="heuristic")
    result = hpcsched.solve(Instance("t", (5, 1), 2), "broken")
    assert result.status is hpcsched.Status.ERROR and "picked twice" in result.notes[-1]


def test_an_expired_deadline_is_time_limit_no_solution(toy):
    result = hpcsched.solve(Instance("t", tuple(range(30)), 15), "brute-force", time_limit=1e-9)
    assert result.status is hpcsched.Status.TIME_LIMIT_NO_SOLUTION


@given(st.lists(st.integers(0, 50), min_size=1, max_size=7), st.data())
def test_the_heuristic_meets_brute_force(toy, weights, data):
    k = data.draw(st.integers(1, len(weights)))
    instance = Instance("t", tuple(weights), k)
    exact = hpcsched.solve(instance, "brute-force")
    heuristic = hpcsched.solve(instance, "greedy")
    assert exact.status is hpcsched.Status.OPTIMAL
    assert heuristic.objective == exact.objective  # the k lightest are optimal for a bottleneck
    assert dataclasses.asdict(heuristic.solution)  # a real Solution came back
