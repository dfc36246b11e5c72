"""Instance and Solution construction, file round trips, the schema, and evaluate by hand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hpcsched import evaluate, solve
from hpcsched.cli import app
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.io import read_instance, read_solution, write_instance, write_solution
from hpcsched.core.result import Status
from hpcsched.pipeline import DATA_SCHEMA, Instance, Solution, generate_uniform

#: Two stages on two devices: F0 (dev 0) -> F1 (dev 1) -> B1 (dev 1) -> B0 (dev 0), delay 1 between devices.
GOOD = {
    "devices": 2,
    "memory_limit": [2, None],
    "objective": "makespan",
    "micro_batches": 2,
    "blocks": [
        {"name": "F0", "device": 0, "duration": 1, "memory": 1, "stage": 0, "kind": "F"},
        {"name": "F1", "device": 1, "duration": 1, "memory": 1, "stage": 1, "kind": "F"},
        {"name": "B1", "device": 1, "duration": 2, "memory": -1, "stage": 1, "kind": "B"},
        {"name": "B0", "device": 0, "duration": 2, "memory": -1, "stage": 0, "kind": "B"},
    ],
    "edges": [
        {"from": "F0", "to": "F1", "delay": 1},
        {"from": "F1", "to": "B1", "delay": 0},
        {"from": "B1", "to": "B0", "delay": 1},
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
        (("devices",), KeyError, "data.devices"),
        (("devices",), 0, "data.devices"),
        (("devices",), "2", "data.devices"),
        (("memory_limit",), [2], "data.memory_limit"),
        (("memory_limit", 0), -1, "data.memory_limit[0]"),
        (("memory_limit", 0), 1.5, "data.memory_limit[0]"),
        (("micro_batches",), KeyError, "data.micro_batches"),
        (("micro_batches",), 0, "data.micro_batches"),
        (("period_micro_batches",), 2, "data.period_micro_batches"),
        (("objective",), "latency", "data.objective"),
        (("blocks",), [], "data.blocks"),
        (("blocks", 1, "name"), "F0", "data.blocks[1].name"),
        (("blocks", 1, "name"), "", "data.blocks[1].name"),
        (("blocks", 1, "device"), 2, "data.blocks[1].device"),
        (("blocks", 1, "device"), [0, 0], "data.blocks[1].device"),
        (("blocks", 1, "device"), [], "data.blocks[1].device"),
        (("blocks", 1, "device"), [0, 5], "data.blocks[1].device[1]"),
        (("blocks", 1, "duration"), 0, "data.blocks[1].duration"),
        (("blocks", 1, "duration"), None, "data.blocks[1].duration"),
        (("blocks", 1, "memory"), 1.5, "data.blocks[1].memory"),
        (("blocks", 1, "kind"), "X", "data.blocks[1].kind"),
        (("blocks", 1, "stage"), -1, "data.blocks[1].stage"),
        (("blocks", 1, "colour"), "red", "data.blocks[1].colour"),
        (("edges", 0, "to"), "F9", "data.edges[0].to"),
        (("edges", 0, "delay"), -1, "data.edges[0].delay"),
        (("edges", 0, "from"), "F1", "data.edges[0]"),  # F1 -> F1: a self-loop
        (("edges", 2), {"from": "F1", "to": "B1"}, "data.edges[2]"),  # duplicate of edges[1]
        (("blocks", 3, "memory"), -2, "data.blocks"),  # device 0 unbalanced
        (("extra",), 1, "data.extra"),
    ],
)
def test_bad_data_names_the_field(path, value, field):
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data_with(path, value), name="bad")
    assert error.value.field == field


def test_a_cycle_is_bad_input():
    data = data_with(("edges",), [*GOOD["edges"], {"from": "B0", "to": "F0"}])
    with pytest.raises(InvalidInstanceError, match="cycle") as error:
        Instance.from_data(data, name="bad")
    assert error.value.field == "data.edges"


def test_a_free_before_its_allocation_is_bad_input():
    # B0 frees on device 0 but depends on nothing that allocates there: the level could go to -1
    data = data_with(("edges",), [{"from": "F0", "to": "F1"}, {"from": "F1", "to": "B1"}])
    with pytest.raises(InvalidInstanceError, match="leave the level at -1") as error:
        Instance.from_data(data, name="bad")
    assert error.value.field == "data.edges"


def test_objective_period_takes_period_micro_batches_only():
    data = data_with(("objective",), "period")
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data, name="bad")
    assert error.value.field == "data.micro_batches"
    del data["micro_batches"]
    assert Instance.from_data(data, name="ok").micro_batches == 1
    data["period_micro_batches"] = 3
    assert Instance.from_data(data, name="ok").micro_batches == 3


def test_round_trip_and_multi_device_blocks(tmp_path):
    data = data_with(("blocks", 0, "device"), [0, 1])
    data["blocks"][0]["memory"] = 0
    data["blocks"][3]["memory"] = 0
    data["memory_limit"] = None
    instance = Instance.from_data(data, name="good", time_unit="ms", source={"generator": "hand"})
    assert instance.blocks[0].devices == (0, 1) and instance.work() == (3, 4)
    write_instance(instance, tmp_path / "good.json")
    again = read_instance(tmp_path / "good.json")
    assert again == instance and again.to_data()["blocks"][0]["device"] == [0, 1]
    result = solve(instance, "brute-force")
    write_solution(instance, result, tmp_path / "sol.json")
    assert read_solution(tmp_path / "sol.json", instance) == result.solution


def test_bad_solution_data():
    instance = Instance.from_data(GOOD, name="good")
    with pytest.raises(InvalidInstanceError, match="start"):
        Solution.from_data({"start": [[0, 2, 3, 6]]}, instance=instance)
    with pytest.raises(InvalidInstanceError, match=r"start\[1\]\[2\]"):
        Solution.from_data({"start": [[0, 2, 3, 6], [1, 3, -5, 9]]}, instance=instance)
    with pytest.raises(InvalidInstanceError, match="period"):
        Solution.from_data({"start": [[0, 2, 3, 6], [1, 4, 6, 9]], "period": 4}, instance=instance)
    data = data_with(("objective",), "period")
    del data["micro_batches"]
    periodic = Instance.from_data(data, name="periodic")
    with pytest.raises(InvalidInstanceError, match="period"):
        Solution.from_data({"offset": [[0, 2, 3, 6]]}, instance=periodic)
    with pytest.raises(InvalidInstanceError, match="period"):
        Solution.from_data({"period": 0, "offset": [[0, 2, 3, 6]]}, instance=periodic)
    with pytest.raises(InvalidInstanceError, match="start"):
        Solution.from_data({"period": 6, "offset": [[0, 2, 3, 6]], "start": []}, instance=periodic)
    assert Solution.from_data({"period": 6, "offset": [[0, 2, 3, 6]]}, instance=periodic).period == 6


def test_evaluate_by_hand():
    instance = Instance.from_data(GOOD, name="good")
    # m0: F0 [0,1), F1 [2,3) (delay 1), B1 [3,5), B0 [6,8) (delay 1);
    # m1: F0 [1,2), F1 waits for device 1 until 5: [5,6), B1 [6,8), B0 [9,11).
    solution = Solution.makespan([[0, 2, 3, 6], [1, 5, 6, 9]])
    kpis = evaluate(instance, solution)
    assert kpis["objective"] == kpis["makespan"] == 11
    assert kpis["peak_memory_0"] == 2  # F0 of m0 and m1 both held from 1 to 8
    assert kpis["peak_memory_1"] == 1  # F1 of m1 starts at 5, when B1 of m0 has freed
    assert kpis["bubble"] == pytest.approx(1 - 2 * 6 / (2 * 11))


def test_evaluate_period_by_hand():
    # Tessel's vshape on 4 devices: F span 1 (+1), B span 3 (-1); offsets of the 0-bubble repetend, P = 4
    instance = generate_uniform(devices=4, forward=1, backward=3, memory_limit=4, objective="period")
    names = [block.name for block in instance.blocks]
    offsets = {"F0": 0, "F1": 1, "F2": 2, "F3": 3, "B3": 4, "B2": 7, "B1": 10, "B0": 13}
    solution = Solution.periodic(4, [[offsets[name] for name in names]])
    kpis = evaluate(instance, solution)
    assert kpis["objective"] == 4 and kpis["bubble"] == 0 and kpis["latency"] == 16
    assert [kpis[f"peak_memory_{d}"] for d in range(4)] == [4, 3, 2, 1]


def test_schema_accepts_generated_and_refuses_bad_data():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(GOOD, DATA_SCHEMA)
    jsonschema.validate(generate_uniform(weight=1, memory_factor=2).to_data(), DATA_SCHEMA)
    for bad in (data_with(("blocks", 0, "device"), "0"), data_with(("blocks", 0, "duration"), 0), {"devices": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, DATA_SCHEMA)


def test_an_allocation_above_the_limit_is_infeasible_for_every_method():
    instance = Instance.from_data(data_with(("memory_limit",), [0, None]), name="tight")
    for method in ("brute-force", "sequential"):
        result = solve(instance, method, time_limit=5)
        assert result.status is Status.INFEASIBLE and "'F0'" in result.notes[0], method


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("blocks", 0, "device"), 7, "data.blocks[0].device"),
        (("edges", 0, "from"), "nowhere", "data.edges[0].from"),
        (("blocks", 3, "memory"), 0, "data.blocks"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, path, value, field):
    path_ = tmp_path / "bad.json"
    path_.write_text(json.dumps({"problem": "pipeline", "format": 1, "name": "bad", "data": data_with(path, value)}))
    result = CliRunner().invoke(app, ["solve", str(path_)])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "bad.json" in lines[0] and field in lines[0], result.stderr
