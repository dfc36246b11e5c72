"""pick: choose k of n weighted items, minimize the heaviest item chosen.

The worked example of the tutorial "Add a problem", as one plugin file; the
tutorial's commands and tests/architecture/test_add_a_problem.py both run
this one copy. Importing this file registers the problem ``pick`` and its
methods.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

import hpcsched
from hpcsched.core.deadline import Deadline
from hpcsched.core.params import at_least
from hpcsched.core.registry import Problem, register_problem
from hpcsched.core.violation import Violation


# --8<-- [start:model]
@dataclass(frozen=True)
class Instance:
    """n items with integer weights; pick k of them."""

    name: str
    weights: tuple[int, ...]
    k: int
    source: Mapping[str, Any] = field(default_factory=dict)  # provenance: generator and seed, or trace
    time_unit: str | None = None

    @classmethod
    def from_data(cls, data, *, name, time_unit=None, source=None):
        return cls(name, tuple(data["weights"]), int(data["k"]), dict(source or {}), time_unit)

    def to_data(self):
        return {"weights": list(self.weights), "k": self.k}


@dataclass(frozen=True)
class Solution:
    """The indices of the items picked."""

    picked: tuple[int, ...]

    @classmethod
    def from_data(cls, data, *, instance):
        return cls(tuple(data["picked"]))

    def to_data(self):
        return {"picked": list(self.picked)}


# The structure of the "data" section; the reader checks every file against it first.
DATA_SCHEMA = {
    "type": "object",
    "required": ["weights", "k"],
    "additionalProperties": False,
    "properties": {
        "weights": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}},
        "k": {"type": "integer", "minimum": 1},
    },
}


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Written from the definition, not from any method: exactly k distinct items of the instance."""
    violations = []
    if len(set(solution.picked)) != len(solution.picked):
        violations.append(Violation("distinct", f"an item is picked twice: {solution.picked}"))
    if len(solution.picked) != instance.k:
        violations.append(Violation("count", f"{len(solution.picked)} items picked, {instance.k} asked"))
    if any(not 0 <= i < len(instance.weights) for i in solution.picked):
        violations.append(Violation("item", f"an item outside 0..{len(instance.weights) - 1}"))
    return violations


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """The objective (the heaviest item picked) and the other indicators."""
    return {"objective": float(max((instance.weights[i] for i in solution.picked), default=0))}
# --8<-- [end:model]


# --8<-- [start:methods]
def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> hpcsched.Result:
    """Every k-subset: the third opinion the tests compare everything with."""
    deadline = Deadline.after(time_limit)
    best = None
    for subset in itertools.combinations(range(len(instance.weights)), instance.k):
        deadline.check("enumerating subsets")  # TimeLimitReached -> TIME_LIMIT_NO_SOLUTION
        value = max((instance.weights[i] for i in subset), default=0)
        if best is None or value < best[0]:
            best = (value, subset)
    assert best is not None
    return hpcsched.Result(status=hpcsched.Status.OPTIMAL, solution=Solution(best[1]), bound=best[0])


@dataclass(frozen=True)
class GreedyParams:
    """Options of ``greedy``.

    Attributes
    ----------
    order
        ``"lightest"`` picks the k lightest items (optimal); ``"first"`` the first k (a baseline).
    """

    order: Literal["lightest", "first"] = "lightest"


def greedy(instance: Instance, /, *, time_limit: float, seed: int, params: GreedyParams) -> hpcsched.Result:
    """The k lightest (or the first k) items."""
    items = list(range(len(instance.weights)))
    if params.order == "lightest":
        items.sort(key=lambda i: instance.weights[i])
    return hpcsched.Result(status=hpcsched.Status.FEASIBLE, solution=Solution(tuple(items[: instance.k])))


def generate_uniform(*, seed: int = 0, n: int = 10, k: int = 3, max_weight: int = 100) -> Instance:
    """n uniform integer weights in [0, max_weight] (seeded)."""
    at_least("n", n, 1)
    rng = np.random.default_rng(seed)
    weights = tuple(int(w) for w in rng.integers(0, max_weight, size=n, endpoint=True))
    source = {"generator": "uniform", "seed": seed, "parameters": {"n": n, "k": k, "max_weight": max_weight}}
    return Instance(f"uniform-n{n}-k{k}-s{seed}", weights, min(k, n), source)
# --8<-- [end:methods]


# --8<-- [start:register]
PROBLEM = register_problem(
    Problem(
        name="pick",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="brute-force",
        data_schema=DATA_SCHEMA,
        generators={"uniform": generate_uniform},
    )
)
PROBLEM.add_method("brute-force", brute_force, kind="brute-force")
PROBLEM.add_method("greedy", greedy, kind="heuristic", params=GreedyParams)
# --8<-- [end:register]
