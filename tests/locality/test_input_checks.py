"""Input checks added after review: unknown keys, duration totals, server count, auto's options."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import numpy as np
import pytest

import hpcsched
from hpcsched.core.errors import InvalidInstanceError, OptionError
from hpcsched.core.fields import LARGEST_INTEGER
from hpcsched.core.io import read_instance
from hpcsched.locality import DATA_SCHEMA, Instance, generate_rack_aware, generate_uniform, import_csv, load_npz
from hpcsched.locality.model import DATA_KEYS, MAX_SERVERS, TASK_KEYS

SHIPPED = Path(__file__).resolve().parents[2] / "instances" / "locality"
DATA = {
    "servers": 3,
    "objective": "communication",
    "remote_cost": 2,
    "tasks": [
        {"name": "a", "duration": 2, "replicas": [0, 1]},
        {"name": "b", "duration": 3, "replicas": [1]},
        {"name": "c", "duration": 1, "replicas": [2, 0]},
    ],
}


def build(data):
    return Instance.from_data(data, name="t", time_unit="s", source={})


def fresh():
    return json.loads(json.dumps(DATA))


# ------------------------------------------------------------ unknown keys
def test_misspelt_objective_is_refused_not_defaulted():
    data = fresh()
    data["objectiv"] = data.pop("objective")
    with pytest.raises(InvalidInstanceError) as error:
        build(data)
    assert error.value.field == "data.objectiv"


def test_unknown_task_key_is_refused():
    data = fresh()
    data["tasks"][1]["replica"] = [0]
    with pytest.raises(InvalidInstanceError) as error:
        build(data)
    assert error.value.field == "data.tasks[1].replica"


def test_schema_is_closed_like_the_loader():
    assert DATA_SCHEMA["additionalProperties"] is False
    assert set(DATA_SCHEMA["properties"]) == set(DATA_KEYS)
    items = DATA_SCHEMA["properties"]["tasks"]["items"]
    assert items["additionalProperties"] is False and set(items["properties"]) == set(TASK_KEYS)


def test_shipped_instances_still_load():
    files = [path for path in sorted(glob.glob(str(SHIPPED / "*.json"))) if not path.endswith("solved.json")]
    assert len(files) >= 9
    for path in files:
        read_instance(path)


def test_generators_and_importer_write_only_known_keys(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("task,duration,replicas\na,2,0 1\nb,3,1\n")
    for instance in (
        generate_uniform(seed=1, n=20, m=4, r=2, durations="lognormal"),
        generate_rack_aware(seed=1, n=20, m=8, r=3, rack_size=4),
        import_csv(csv, objective="communication", remote_cost=1),
    ):
        data = instance.to_data()
        assert set(data) <= set(DATA_KEYS)
        assert all(set(task) <= set(TASK_KEYS) for task in data["tasks"])
        assert build(data).to_data() == data


# --------------------------------------------------------- sums and sizes
def test_total_duration_beyond_2_to_53_names_the_task():
    data = fresh()
    data["objective"], data["remote_cost"] = "makespan", 0
    data["tasks"] = [{"duration": 2**53, "replicas": [0]} for _ in range(1100)]
    with pytest.raises(InvalidInstanceError) as error:
        build(data)
    assert error.value.field == "data.tasks[1].duration" and "exceeds 2^53" in error.value.reason


def test_total_duration_check_is_exact_at_the_limit_and_vectorised():
    durations = np.ones(5000, dtype=np.int64)
    durations[0] = LARGEST_INTEGER - 4999
    Instance.create(2, durations, np.zeros((5000, 1), dtype=np.int64))  # exactly 2^53: accepted
    durations = durations.copy()  # Instance froze the array it was given
    durations[4321] += 1
    with pytest.raises(InvalidInstanceError) as error:
        Instance.create(2, durations, np.zeros((5000, 1), dtype=np.int64))
    assert error.value.field == "data.tasks[4999].duration"
    with pytest.raises(InvalidInstanceError) as error:
        Instance.create(2, [1, 2**60], [[0], [1]])
    assert error.value.field == "data.tasks[1].duration"


def test_remote_cost_times_tasks_beyond_2_to_53_is_refused():
    data = fresh()
    data["remote_cost"] = 2**52
    with pytest.raises(InvalidInstanceError) as error:
        build(data)
    assert error.value.field == "data.remote_cost"


def test_huge_server_count_is_refused_before_any_allocation():
    data = fresh()
    data["servers"] = 10**11
    with pytest.raises(InvalidInstanceError) as error:
        build(data)
    assert error.value.field == "data.servers" and str(MAX_SERVERS) in error.value.reason
    with pytest.raises(InvalidInstanceError):
        Instance.create(MAX_SERVERS + 1, [1], [[0]])
    Instance.create(MAX_SERVERS, [1], [[MAX_SERVERS - 1]])


def test_npz_with_an_unknown_key_is_refused(tmp_path):
    path = tmp_path / "i.npz"
    np.savez(
        path,
        servers=np.int64(2),
        durations=np.ones(2, dtype=np.int64),
        replicas=np.zeros((2, 1), dtype=np.int64),
        objectiv=np.str_("communication"),
    )
    with pytest.raises(InvalidInstanceError) as error:
        load_npz(path)
    assert error.value.field == "objectiv"


# ------------------------------------------------------- auto's options
def test_auto_checks_options_like_the_method_it_chooses():
    instance = build(fresh())  # heterogeneous, objective 2: auto runs milp-communication
    for options in ({"max_pairs": "x"}, {"max_pairs": -5}, {"backend": "gurobi"}):
        with pytest.raises(OptionError) as via_auto:
            hpcsched.solve(instance, "auto", **options)
        with pytest.raises(OptionError) as direct:
            hpcsched.solve(instance, "milp-communication", **options)
        assert str(via_auto.value) == str(direct.value)
        assert via_auto.value.field == f"options.{next(iter(options))}"
    with pytest.raises(OptionError, match="bogus"):
        hpcsched.solve(instance, "auto", bogus=1)
    result = hpcsched.solve(instance, "auto", max_pairs=50)
    assert result.status.name == "OPTIMAL" and "auto ran milp-communication" in result.notes


def test_auto_refuses_options_the_flow_methods_do_not_have():
    unit = Instance.create(3, [1, 1, 1], [[0], [1], [2]])
    with pytest.raises(OptionError, match="max_pairs"):
        hpcsched.solve(unit, "auto", max_pairs=10)


@pytest.mark.parametrize(
    "method, options, field",
    [
        ("cpsat", {"workers": 0}, "options.workers"),
        ("cpsat", {"deterministic_time": -1}, "options.deterministic_time"),
        ("milp", {"backend": "gurobi"}, "options.backend"),
        ("delay-scheduling", {"delay": -1}, "options.delay"),
        ("delay-scheduling", {"wait": 1.5}, "options.wait"),
        ("brute-force", {"max_assignments": 0}, "options.max_assignments"),
        ("semi-matching", {"bogus": 1}, "options.bogus"),
    ],
)
def test_bad_options_are_option_errors_before_the_method_runs(method, options, field):
    instance = Instance.create(3, [1, 2, 3], [[0], [1, 2], [2]])
    with pytest.raises(OptionError) as error:
        hpcsched.solve(instance, method, **options)
    assert error.value.field == field
