"""Instance/Solution construction, file round trips, the liveness rule on hand-checked sequences."""

from __future__ import annotations

import json

import pytest

import hpcsched
from hpcsched.checkpoint import (
    Instance,
    Solution,
    evaluate,
    memory_lower_bound,
    memory_profile,
    store_all_peak,
    validate,
)
from hpcsched.core.errors import InvalidInstanceError, InvalidSolutionError
from hpcsched.core.io import read_instance, read_solution, write_instance, write_solution

GOOD = {
    "kind": "chain",
    "memory": 20,
    "fw": [1, 2],
    "bw": [1, 1, 1],
    "x": [1, 2, 3],
    "xbar": [None, 3, 4],
    "ftmp": [0, 0],
    "btmp": [0, 0, 0],
}


def data_with(key, value):
    data = json.loads(json.dumps(GOOD))
    if value is KeyError:
        del data[key[0]]
    elif len(key) == 1:
        data[key[0]] = value
    else:
        data[key[0]][key[1]] = value
    return data


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        (("memory",), KeyError, "data.memory"),
        (("memory",), -1, "data.memory"),
        (("memory",), 2.5, "data.memory"),
        (("memory",), 3, "data.memory"),  # below the smallest feasible budget
        (("kind",), "tree", "data.kind"),
        (("kind",), "chain-offload", "data.bandwidth_out"),  # the two-level kind needs its link
        (("fw",), [], "data.fw"),
        (("fw", 1), -2, "data.fw[1]"),
        (("bw",), [1, 1], "data.bw"),
        (("bw", 2), True, "data.bw[2]"),
        (("x", 0), -1, "data.x[0]"),
        (("xbar", 2), 2, "data.xbar[2]"),  # below x[2] = 3
        (("xbar",), [None, 3], "data.xbar"),
        (("ftmp", 0), float("nan"), "data.ftmp[0]"),
        (("btmp",), [0], "data.btmp"),
        (("extra",), 1, "data.extra"),
    ],
)
def test_bad_data_names_the_field(key, value, field):
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data_with(key, value), name="bad")
    assert error.value.field == field


def test_budget_below_the_minimum_says_infeasible_and_why():
    with pytest.raises(InvalidInstanceError, match="INFEASIBLE") as error:
        Instance.from_data(data_with(("memory",), 9), name="bad")
    assert "smallest budget" in error.value.reason


def test_round_trip_through_files(tmp_path):
    instance = Instance.from_data(GOOD, name="good")
    write_instance(instance, tmp_path / "i.json")
    again = read_instance(tmp_path / "i.json")
    assert again == instance and again.to_data() == GOOD
    result = hpcsched.solve(instance, "dp", time_limit=10)
    write_solution(instance, result, tmp_path / "s.json")
    assert read_solution(tmp_path / "s.json", instance) == result.solution


def test_bad_solution_names_the_step():
    instance = Instance.from_data(GOOD, name="good")
    with pytest.raises(InvalidSolutionError) as error:
        Solution.from_data({"sequence": [["Fall", 0], ["X", 1]]}, instance=instance)
    assert error.value.field == "sequence[1][0]"
    with pytest.raises(InvalidSolutionError) as error:
        Solution.from_data({"sequence": [["Fall", 2]]}, instance=instance)
    assert error.value.field == "sequence[0][1]"


def unit(length, memory):
    return Instance.create([1] * length, [1] * (length + 1), [1] * (length + 1), [None] + [1] * length, memory)


def test_store_all_profile_by_hand():
    instance = Instance.from_data(GOOD, name="good")
    solution = Solution((("Fall", 0), ("Fall", 1), ("B", 2), ("B", 1), ("B", 0)))
    # Fall 0: x0 + xbar1 = 4; Fall 1: x0 + xbar1 + xbar2 = 8 (x_1 served by xbar_1);
    # B 2: x0 + xbar1 + xbar2 + delta2 = 11; B 1: + delta1 = 13; B 0: x0 + xbar1 + delta1 + delta0 = 7
    assert memory_profile(instance, solution) == [4, 8, 11, 13, 7]
    assert store_all_peak(instance) == 13
    assert validate(instance, solution) == []
    assert evaluate(instance, solution)["objective"] == 6


def test_a_read_of_x_is_served_by_xbar_only_inside_its_interval():
    instance = unit(2, 100)
    # Fall 0 then F 1 (x_1 served by xbar_1), B 2 reads x_2, then Fall 1 needs x_1: still xbar_1 (B 0 reads it later)
    ok = Solution((("Fall", 0), ("F", 1), ("B", 2), ("Fall", 1), ("B", 1), ("B", 0)))
    assert validate(instance, ok) == []
    # F 0 produces x_1; Fall 0 later is never read by B 0 when B 0 comes... here every xbar_1 read is explicit
    missing = Solution((("F", 0), ("F", 1), ("B", 2), ("Fall", 1), ("B", 1), ("B", 0)))
    assert any(v.rule == "not-held" and "xbar_1" in v.message for v in validate(instance, missing))


def test_a_value_read_again_stays_held():
    instance = unit(2, 100)
    # x_1 produced by F 0 is read by F 1 and again by Fall 1: held across B 2
    solution = Solution((("F", 0), ("F", 1), ("B", 2), ("Fall", 1), ("B", 1), ("Fall", 0), ("B", 0)))
    assert validate(instance, solution) == []
    # during B 2: x0, x1 (read later), x2 (read by B 2), delta2 = 4
    assert memory_profile(instance, solution)[2] == 4
    assert validate(instance.with_memory(memory_lower_bound(instance)), solution) == []


def test_backward_order_and_missing_reads_are_refused():
    instance = unit(2, 100)
    swapped = Solution((("Fall", 0), ("Fall", 1), ("B", 2), ("B", 0), ("B", 1)))
    assert any(v.rule == "backward-order" for v in validate(instance, swapped))
    too_early = Solution((("F", 1), ("Fall", 0), ("Fall", 1), ("B", 2), ("B", 1), ("B", 0)))
    assert any(v.rule == "not-held" for v in validate(instance, too_early))
    assert any(v.rule == "stage" for v in validate(instance, Solution((("F", 2),))))
