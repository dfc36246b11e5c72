"""Instance/Solution construction and file round trips: every bad value names its field."""

from __future__ import annotations

import json
import math

import pytest

from hpcsched import evaluate, solve
from hpcsched.core.errors import FormatError, InvalidInstanceError, InvalidSolutionError
from hpcsched.core.io import read_instance, read_solution, write_instance, write_solution
from hpcsched.core.result import Status
from hpcsched.transfers import HEURISTIC_METHODS, Instance, Solution

GOOD = {
    "capacity": 10,
    "tasks": [
        {"name": "a", "transfer": 2, "compute": 3, "memory": 6},
        {"name": "b", "transfer": 1, "compute": 4, "memory": 5},
    ],
}


def data_with(path: tuple, value):
    data = json.loads(json.dumps(GOOD))
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("capacity",), KeyError, "data.capacity"),
        (("capacity",), "10", "data.capacity"),
        (("capacity",), 0, "data.capacity"),
        (("capacity",), 2.5, "data.capacity"),
        (("capacity",), True, "data.capacity"),
        (("tasks",), [], "data.tasks"),
        (("tasks",), {"a": 1}, "data.tasks"),
        (("tasks", 1), 7, "data.tasks[1]"),
        (("tasks", 1, "transfer"), -1, "data.tasks[1].transfer"),
        (("tasks", 1, "compute"), math.nan, "data.tasks[1].compute"),
        (("tasks", 1, "compute"), math.inf, "data.tasks[1].compute"),
        (("tasks", 0, "memory"), 0, "data.tasks[0].memory"),
        (("tasks", 0, "memory"), None, "data.tasks[0].memory"),
        (("tasks", 0, "memory"), KeyError, "data.tasks[0].memory"),
        (("tasks", 1, "name"), "a", "data.tasks[1].name"),
        (("tasks", 1, "name"), 3, "data.tasks[1].name"),
        (("tasks", 1, "colour"), "red", "data.tasks[1].colour"),
        (("extra",), 1, "data.extra"),
    ],
)
def test_bad_data_names_the_field(path, value, field):
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data_with(path, value), name="bad")
    assert error.value.field == field


def test_create_checks_like_from_data():
    with pytest.raises(InvalidInstanceError, match="transfer"):
        Instance.create([1, -2], [1, 1], [1, 1], 2)
    with pytest.raises(InvalidInstanceError, match="memory has"):
        Instance.create([1, 2], [1, 1], [1], 2)


def test_round_trip(tmp_path):
    instance = Instance.from_data(GOOD, name="good", time_unit="us", source={"generator": "hand"})
    write_instance(instance, tmp_path / "good.json")
    again = read_instance(tmp_path / "good.json")
    assert again == instance and again.to_data() == GOOD
    result = solve(instance, "brute-force")
    write_solution(instance, result, tmp_path / "sol.json")
    assert read_solution(tmp_path / "sol.json", instance) == result.solution


def test_malformed_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"problem": "transfers", "data": {')
    with pytest.raises(FormatError, match=r"broken\.json"):
        read_instance(broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps({"problem": "transfers", "format": 1, "data": data_with(("tasks", 0, "transfer"), "x")})
    )
    with pytest.raises(InvalidInstanceError, match=r"wrong.json: data.tasks\[0\].transfer"):
        read_instance(wrong)


def test_bad_solution_data():
    instance = Instance.from_data(GOOD, name="good")
    with pytest.raises(InvalidInstanceError, match="transfer_start"):
        Solution.from_data({"transfer_start": [0], "compute_start": [2, 5]}, instance=instance)
    with pytest.raises(InvalidInstanceError, match=r"compute_start\[1\]"):
        Solution.from_data({"transfer_start": [0, 2], "compute_start": [2, -5]}, instance=instance)
    with pytest.raises(InvalidInstanceError, match="compute_start"):
        Solution.from_data({"transfer_start": [0, 2]}, instance=instance)
    assert issubclass(InvalidSolutionError, InvalidInstanceError)


def test_oversized_task_is_legal_data_but_every_method_says_infeasible():
    data = data_with(("tasks", 1, "memory"), 11)
    instance = Instance.from_data(data, name="too-big")  # reading works
    for method in ("cpsat", "milp", "dp", "brute-force", "johnson", "sequential", *HEURISTIC_METHODS):
        result = solve(instance, method, time_limit=5)
        assert result.status is Status.INFEASIBLE, method
        assert "'b'" in result.notes[0] and "11 bytes" in result.notes[0], method


def test_evaluate_by_hand():
    instance = Instance.from_data(GOOD, name="good")
    # a: link [0,2), device [2,5), holds [0,5); b (6 + 5 > 10, must wait): link [5,6), device [6,10).
    solution = Solution((0, 5), (2, 6))
    kpis = evaluate(instance, solution)
    assert kpis["objective"] == 10
    assert kpis["peak_memory"] == 6
    assert kpis["link_idle"] == 10 - 3
    assert kpis["device_idle"] == 10 - 7
    assert kpis["total_wait"] == 0
    assert kpis["memory_utilisation"] == pytest.approx((6 * 5 + 5 * 5) / (10 * 10))


def test_solution_never_truncates_silently():
    assert Solution((3.0, 2), (5, 6)).transfer_start == (3, 2)
    with pytest.raises(InvalidInstanceError, match=r"transfer_start\[0\]"):
        Solution((1.5, 2), (5, 6))
