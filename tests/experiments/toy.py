"""A toy problem that exercises the experiments engine, not scheduling.

It is a test fixture, not one of hpcsched's problems: a plugin *file*,
loaded as a user's own problem would be (``plugins = ["tests/experiments/toy.py"]``
in a study file, ``--plugin tests/experiments/toy.py`` on the command line).
The experiments tests and the throughput benchmark of the engine use it
because its runs are trivial, deterministic and able to misbehave on purpose.

Problem "toy": pick one of ``n`` integer values; the objective is the picked
value (minimize). Methods:

``exact``      the minimum, OPTIMAL, bound = the minimum (kind exact).
``first``      the first value, FEASIBLE, no bound (kind heuristic).
``sleep``      sleeps ``seconds`` (option, default 0.05), then as ``exact``.
``hang``       ignores its time limit and sleeps for a day (a misbehaving backend).
``boom``       raises RuntimeError (a crashing method).
``die``        kills its own process (a crashing backend: segfault, out of memory).
``bad``        returns an out-of-range pick (the validator turns it into ERROR).
``seeded``     a random pick drawn with ``seed`` (FEASIBLE; results depend on the seed).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.fields import int_list, require_dict, require_int, require_key
from hpcsched.core.params import at_least
from hpcsched.core.registry import Problem, register_problem
from hpcsched.core.result import Result, Status
from hpcsched.core.violation import Violation

NAME = "toy"


@dataclass(frozen=True)
class Instance:
    """``values[i]`` is the cost of picking ``i``."""

    name: str
    values: tuple[int, ...]
    source: Mapping[str, Any] = field(default_factory=dict)
    time_unit: str | None = None

    def __post_init__(self) -> None:
        values = int_list(list(self.values), "data.values")
        if not values:
            raise InvalidInstanceError("data.values", "must have at least 1 entry")
        object.__setattr__(self, "values", values)

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        data = require_dict(data, "data")
        return cls(
            name=name, values=tuple(require_key(data, "values", "data")), source=dict(source or {}), time_unit=time_unit
        )

    def to_data(self) -> dict:
        return {"values": list(self.values)}


@dataclass(frozen=True)
class Solution:
    """The picked index."""

    pick: int

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        return cls(require_int(require_key(data, "pick", ""), "pick"))

    def to_data(self) -> dict:
        return {"pick": self.pick}


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    return {"objective": float(instance.values[solution.pick])}


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    if not 0 <= solution.pick < len(instance.values):
        return [Violation("range", f"pick {solution.pick} is not in 0..{len(instance.values) - 1}")]
    return []


def generate_uniform(*, seed: int = 0, n: int = 10, high: int = 100) -> Instance:
    """``n`` values drawn uniformly from 1..high."""
    rng = np.random.default_rng(seed)
    values = tuple(int(v) for v in rng.integers(1, high + 1, size=n))
    source = {"generator": "toy.uniform", "params": {"n": n, "high": high}, "seed": seed}
    return Instance(name=f"toy-uniform-n{n}-s{seed}", values=values, source=source)


def solve_exact(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """The minimum value (exhaustive, OPTIMAL)."""
    pick = int(np.argmin(instance.values))
    return Result(
        status=Status.OPTIMAL, objective=instance.values[pick], bound=instance.values[pick], solution=Solution(pick)
    )


def solve_first(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """The first value (a baseline without bound)."""
    return Result(status=Status.FEASIBLE, solution=Solution(0))


@dataclass(frozen=True)
class SleepParams:
    """Options of ``sleep``: how many seconds it sleeps."""

    seconds: float = 0.05

    def __post_init__(self) -> None:
        at_least("seconds", self.seconds, 0)


def solve_sleep(instance: Instance, /, *, time_limit: float, seed: int, params: SleepParams | None) -> Result:
    """Sleep ``seconds``, then the minimum (a slow exact method)."""
    time.sleep((params or SleepParams()).seconds)
    return solve_exact(instance, time_limit=time_limit, seed=seed, params=None)


def solve_hang(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Ignore the time limit and sleep for a day (a backend that hangs)."""
    time.sleep(86_400)
    return solve_exact(instance, time_limit=time_limit, seed=seed, params=None)


def solve_boom(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Raise RuntimeError (a method that crashes)."""
    raise RuntimeError(f"boom: deliberate failure on {instance.name}")


def solve_die(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """End the process abruptly, as a crashing native library would."""
    import os

    os._exit(7)


def solve_bad(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Return an out-of-range pick (the validator must catch it)."""
    return Result(status=Status.FEASIBLE, solution=Solution(len(instance.values)))


def solve_seeded(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """A random pick drawn with ``seed``."""
    pick = int(np.random.default_rng(seed).integers(len(instance.values)))
    return Result(status=Status.FEASIBLE, solution=Solution(pick))


PROBLEM = register_problem(
    Problem(
        name=NAME,
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="exact",
        data_schema={"type": "object", "properties": {"values": {"type": "array", "items": {"type": "integer"}}}},
        generators={"uniform": generate_uniform},
        lower_bound=lambda instance: float(min(instance.values)),
    )
)
PROBLEM.add_method("exact", solve_exact, kind="exact")
PROBLEM.add_method("first", solve_first, kind="baseline")
PROBLEM.add_method("seeded", solve_seeded, kind="heuristic")
PROBLEM.add_method("sleep", solve_sleep, kind="exact", params=SleepParams)
PROBLEM.add_method("hang", solve_hang, kind="exact")
PROBLEM.add_method("boom", solve_boom, kind="heuristic")
PROBLEM.add_method("bad", solve_bad, kind="heuristic")
PROBLEM.add_method("die", solve_die, kind="heuristic")
