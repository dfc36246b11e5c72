"""A plugin given as a .py file (not an importable module): problem "square".

Pick an integer x in 0..limit; the objective is (x - target)^2. Used to check
that plugin files reach the runner processes.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hpcsched.core.registry import Problem, register_problem
from hpcsched.core.result import Result, Status
from hpcsched.core.violation import Violation


@dataclass(frozen=True)
class Instance:
    name: str
    target: int
    limit: int
    source: Mapping[str, Any] = field(default_factory=dict)
    time_unit: str | None = None

    @classmethod
    def from_data(cls, data, *, name, time_unit=None, source=None):
        return cls(name, int(data["target"]), int(data["limit"]), dict(source or {}))

    def to_data(self):
        return {"target": self.target, "limit": self.limit}


@dataclass(frozen=True)
class Solution:
    x: int

    @classmethod
    def from_data(cls, data, *, instance):
        return cls(int(data["x"]))

    def to_data(self):
        return {"x": self.x}


def evaluate(instance, solution):
    return {"objective": float((solution.x - instance.target) ** 2)}


def validate(instance, solution):
    return [] if 0 <= solution.x <= instance.limit else [Violation("range", f"x={solution.x}")]


def generate(*, seed=0, target=3, limit=10):
    return Instance(f"square-{target}-{limit}-s{seed}", target, limit, {"seed": seed})


def solve_clamp(instance, /, *, time_limit, seed, params):
    """The clamped target (exact)."""
    x = min(max(instance.target, 0), instance.limit)
    return Result("square", "clamp", Status.OPTIMAL, solution=Solution(x))


PROBLEM = register_problem(
    Problem("square", Instance, Solution, evaluate, validate, "clamp", {}, generators={"fixed": generate})
)
PROBLEM.add_method("clamp", solve_clamp, kind="exact")
