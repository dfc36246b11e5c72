"""Result, registry checks and file I/O, on a toy problem defined here.

The toy problem: pick one of several integer costs; the objective is the cost
picked. Small enough that every expected value below is evident by hand.
"""

from __future__ import annotations

import inspect
import json
import math
import os
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hpcsched.core import fields
from hpcsched.core.errors import FormatError, InfeasibleError, InvalidInstanceError, InvalidSolutionError, OptionError
from hpcsched.core.io import (
    data_sha256,
    read_instance,
    read_solution,
    write_instance,
    write_solution,
)
from hpcsched.core.params import at_least
from hpcsched.core.registry import Problem, register_problem, run_method
from hpcsched.core.result import Result, Status, gap_of
from hpcsched.core.violation import Violation


@dataclass(frozen=True)
class PickInstance:
    name: str
    costs: tuple[int, ...]
    source: dict
    time_unit: str | None = None

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None, source: dict) -> PickInstance:
        costs = fields.int_list(fields.require_key(data, "costs", "data"), "data.costs", minimum=0)
        if not costs:
            raise InvalidInstanceError("data.costs", "must not be empty")
        return cls(name, costs, source, time_unit)

    def to_data(self) -> dict:
        return {"costs": list(self.costs)}


@dataclass(frozen=True)
class PickSolution:
    index: int

    @classmethod
    def from_data(cls, data: dict, *, instance: PickInstance) -> PickSolution:
        return cls(fields.require_int(fields.require_key(data, "index", ""), "index"))

    def to_data(self) -> dict:
        return {"index": self.index}


def validate(instance: PickInstance, solution: PickSolution) -> list[Violation]:
    if not 0 <= solution.index < len(instance.costs):
        return [Violation("range", f"index {solution.index} is not a choice")]
    return []


def evaluate(instance: PickInstance, solution: PickSolution) -> dict[str, float]:
    return {"objective": float(instance.costs[solution.index])}


def cheapest(instance, /, *, time_limit, seed, params) -> Result:
    best = min(range(len(instance.costs)), key=instance.costs.__getitem__)
    return Result("pick", "cheapest", Status.OPTIMAL, objective=-1.0, solution=PickSolution(best))


@dataclass(frozen=True)
class FirstParams:
    """What `first` claims: a bound, a status and the index it picks."""

    bound: float | None = None
    claim: Status = Status.FEASIBLE
    index: int = 0


def first(instance, /, *, time_limit, seed, params: FirstParams | None) -> Result:
    params = params or FirstParams()
    return Result("pick", "first", params.claim, objective=0.0, bound=params.bound, solution=PickSolution(params.index))


@dataclass(frozen=True)
class TunedParams:
    """One option of each type the option check knows."""

    share: float = 0.5
    rounds: int = 3
    verbose: bool = False
    note: str | None = None

    def __post_init__(self):
        at_least("share", self.share, 0)
        at_least("rounds", self.rounds, 0)


def tuned(instance, /, *, time_limit, seed, params: TunedParams | None) -> Result:
    return Result("pick", "tuned", Status.FEASIBLE, objective=0.0, solution=PickSolution(0))


def refuse(instance, /, *, time_limit, seed, params) -> Result:
    raise InfeasibleError("nothing fits: choice 0 costs too much")


PICK = register_problem(
    Problem(
        name="pick",
        instance_type=PickInstance,
        solution_type=PickSolution,
        evaluate=evaluate,
        validate=validate,
        default_method="cheapest",
        data_schema={"type": "object"},
    )
)
PICK.add_method("cheapest", cheapest, kind="exact")
PICK.add_method("first", first, kind="heuristic", params=FirstParams)
PICK.add_method("refuse", refuse, kind="exact")
PICK.add_method("tuned", tuned, kind="heuristic", params=TunedParams)

INSTANCE = PickInstance("toy", (5, 3, 8), {"generator": "hand"})


def test_gap_is_relative_to_the_objective():
    assert gap_of(10.0, 8.0) == pytest.approx(0.2)
    assert gap_of(10.0, None) is None and gap_of(None, 3.0) is None
    assert gap_of(0.0, 0.0) == 0.0
    assert gap_of(math.inf, 1.0) is None
    assert Result("p", "m", Status.FEASIBLE, objective=4.0, bound=3.0).gap == pytest.approx(0.25)


def test_registry_recomputes_objective_and_fills_bound_of_proven_optimum():
    result = run_method(INSTANCE, problem="pick")
    assert (result.method, result.status, result.objective, result.bound) == ("cheapest", Status.OPTIMAL, 3.0, 3.0)
    assert result.gap == 0.0 and result.kpis == {"objective": 3.0} and result.runtime_s > 0


def test_registry_turns_invalid_solution_into_error():
    result = run_method(INSTANCE, "first", problem="pick", index=7)
    assert result.status is Status.ERROR
    assert "index 7 is not a choice" in result.notes[-1]


def test_registry_rejects_bound_above_objective():
    result = run_method(INSTANCE, "first", problem="pick", bound=6.0)
    assert result.status is Status.ERROR and "exceeds" in result.notes[-1]


def test_registry_downgrades_unproven_optimality():
    result = run_method(INSTANCE, "first", problem="pick", bound=3.0, claim=Status.OPTIMAL)
    assert result.status is Status.FEASIBLE and result.objective == 5.0 and result.gap == pytest.approx(0.4)


def test_registry_reports_infeasibility_with_reason():
    result = run_method(INSTANCE, "refuse", problem="pick")
    assert result.status is Status.INFEASIBLE and "choice 0" in result.notes[0] and result.solution is None


def test_unknown_method_names_the_known_ones():
    with pytest.raises(
        KeyError, match="unknown method 'nope' for problem 'pick' \\(known: cheapest, first, refuse, tuned\\)"
    ):
        run_method(INSTANCE, "nope", problem="pick")


def _write(tmp_path, document: Any, name: str = "x.json") -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def test_instance_and_solution_round_trip(tmp_path):
    path = tmp_path / "toy.json.gz"
    write_instance(INSTANCE, path)
    loaded = read_instance(path)
    assert loaded == INSTANCE
    result = run_method(loaded, problem="pick")
    write_solution(loaded, result, tmp_path / "sol.json")
    document = json.loads((tmp_path / "sol.json").read_text())
    assert document["instance"]["sha256"] == data_sha256({"costs": [5, 3, 8]})
    assert document["status"] == "OPTIMAL" and document["objective"] == 3.0
    assert read_solution(tmp_path / "sol.json", loaded) == PickSolution(1)
    other = PickInstance("toy", (5, 3, 9), {})
    with pytest.raises(InvalidSolutionError, match="instance.sha256"):
        read_solution(tmp_path / "sol.json", other)


def test_sha256_ignores_formatting():
    assert data_sha256({"a": 1, "b": [1, 2]}) == data_sha256(json.loads('{ "b": [1,2], "a": 1 }'))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"problem": "pick", "data": ', "malformed JSON at line 1"),
        ('{"problem": "pick", "data": {"costs": [NaN]}}', r"data.costs\[0\]: NaN is not a number JSON allows"),
        ('{"problem": "pick", "data": {"costs": [1, -Infinity]}}', r"data.costs\[1\]: -Infinity is not a number"),
        ({"problem": "pick", "data": {"costs": [1, None]}}, r"data.costs\[1\]: must be an integer, got null$"),
        ({"problem": "pick"}, "data: is missing"),
        ({"problem": "nope", "data": {}}, "unknown problem 'nope'"),
        ({"problem": "pick", "format": 2, "data": {"costs": [1]}}, "format: must be 1"),
        ({"problem": "pick", "time_unit": "days", "data": {"costs": [1]}}, "time_unit: must be one of"),
        ({"problem": "pick", "data": {"costs": [1, -2]}}, r"data.costs\[1\]: must be >= 0"),
        ({"problem": "pick", "data": {"costs": [1, True]}}, r"data.costs\[1\]: must be an integer"),
        ({"problem": "pick", "data": {"costs": "3"}}, "data.costs: must be a list"),
        ({"problem": "pick", "data": {}}, "data.costs: is missing"),
    ],
)
def test_bad_instance_files_name_file_and_field(tmp_path, document, message):
    path = _write(tmp_path, document)
    with pytest.raises((InvalidInstanceError, FormatError), match=message) as caught:
        read_instance(path)
    assert str(caught.value).startswith(path)


def test_missing_file_is_a_format_error(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        read_instance(tmp_path / "absent.json")


def test_failed_write_leaves_no_partial_file(tmp_path):
    class Unserializable(PickInstance):
        def to_data(self) -> dict:
            return {"costs": [math.nan]}  # NaN is refused by the writer

    register_problem(PICK)  # same problem; the subclass is still a PickInstance
    target = tmp_path / "out.json"
    with pytest.raises(ValueError):
        write_instance(Unserializable("bad", (1,), {}), target)
    assert list(tmp_path.iterdir()) == []


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=3), st.none()))
def test_require_int_rejects_everything_but_integers(value):
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and 0 <= value <= 2**53:
        assert fields.require_int(value, "f", minimum=0) == int(value)
    else:
        with pytest.raises(InvalidInstanceError, match="^f: "):
            fields.require_int(value, "f", minimum=0)


@given(st.integers(-5, 5), st.integers(1, 5))
def test_require_index_rejects_dangling_references(index, size):
    if 0 <= index < size:
        assert fields.require_index(index, "ref", size) == index
    else:
        with pytest.raises(InvalidInstanceError, match="does not exist"):
            fields.require_index(index, "ref", size)


def test_written_files_follow_the_umask(tmp_path):
    previous = os.umask(0o022)
    try:
        write_instance(INSTANCE, tmp_path / "toy.json")
    finally:
        os.umask(previous)
    assert (tmp_path / "toy.json").stat().st_mode & 0o777 == 0o644


def test_unknown_options_are_refused_not_ignored():
    with pytest.raises(
        OptionError, match="^options.colour: unknown option 'colour' \\(the options are: bound, claim, index\\)"
    ):
        run_method(INSTANCE, "first", problem="pick", colour=3)
    assert run_method(INSTANCE, "first", problem="pick", index=2).objective == 8.0


def _option_is_acceptable(name, value):
    """What `TunedParams` allows, written out case by case (the oracle of the test below)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return {
        "share": number,
        "rounds": number and float(value).is_integer(),
        "verbose": isinstance(value, bool),
        "note": value is None or isinstance(value, str),
    }[name]


@given(
    st.sampled_from(["share", "rounds", "verbose", "note"]),
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-3, 3),
        st.booleans(),
        st.text(max_size=3),
        st.none(),
        st.lists(st.integers(0, 2), max_size=2),
    ),
)
def test_option_values_are_checked_against_their_annotation(name, value):
    if _option_is_acceptable(name, value):
        assert run_method(INSTANCE, "tuned", problem="pick", **{name: value}).status is Status.FEASIBLE
    else:
        with pytest.raises(OptionError, match=f"^options.{name}: must be "):
            run_method(INSTANCE, "tuned", problem="pick", **{name: value})


def test_integers_beyond_float_precision_are_refused():
    with pytest.raises(InvalidInstanceError, match="at most 2\\^53"):
        fields.require_int(1e308, "data.big")
    assert fields.require_int(2**53, "data.big") == 2**53


def test_integers_too_large_for_a_double_are_refused_by_name():
    # JSON allows any number of digits; float(10**400) overflows, which must not escape
    with pytest.raises(
        InvalidInstanceError, match="^data.big: magnitude must be at most 2\\^53 = \\d+, got an integer of 401 digits"
    ):
        fields.require_int(10**400, "data.big")
    with pytest.raises(InvalidInstanceError, match="^data.rate: must be finite, got an integer of 401 digits"):
        fields.require_number(10**400, "data.rate")


def test_unknown_keys_are_refused_by_name():
    fields.require_known_keys({"a": 1}, ("a", "b"), "data", "the data")
    with pytest.raises(InvalidInstanceError, match="^data.latancy: is not a field of offload data"):
        fields.require_known_keys({"a": 1, "latancy": 2}, ("a",), "data", "offload data")


def test_a_method_in_the_keyword_option_style_is_refused_at_registration():
    """Issue 21 item 1: one method contract; ``(instance, *, time_limit, seed, **options)`` is no longer registered."""

    def legacy(instance, *, time_limit=None, seed=0, rounds: int = 3) -> Result:
        return Result(status=Status.FEASIBLE, solution=PickSolution(0))

    problem = Problem("pick-legacy", PickInstance, PickSolution, evaluate, validate, "legacy", {"type": "object"})
    with pytest.raises(TypeError, match="method 'legacy' of problem 'pick-legacy' must take .*params"):
        problem.add_method("legacy", legacy, kind="heuristic")
    assert "legacy" not in problem.methods


def test_options_of_every_shipped_method_are_one_params_dataclass():
    """Every registered method runs itself with a Params (or none) or is a dispatcher; no other option path."""
    from hpcsched.core.registry import get_problem, problem_names

    for name in problem_names():
        for method in get_problem(name).methods.values():
            assert method.choose is not None or "params" in inspect.signature(method.func).parameters, (name, method)
            assert not hasattr(method, "check_options") and not hasattr(method, "options")
