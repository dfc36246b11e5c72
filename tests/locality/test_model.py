"""Instance and Solution checks, file forms, evaluate and the validator's rules."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import hpcsched
from hpcsched.core.errors import FormatError, InvalidInstanceError, InvalidSolutionError
from hpcsched.core.io import instance_from_document, read_instance, read_solution, write_instance, write_solution
from hpcsched.locality import Instance, Solution, load_npz, save_npz
from hpcsched.locality.generate import generate_uniform

DATA = {
    "servers": 3,
    "objective": "makespan",
    "remote_cost": 0,
    "tasks": [
        {"name": "a", "duration": 2, "replicas": [0, 1]},
        {"name": "b", "duration": 3, "replicas": [1]},
        {"name": "c", "duration": 1, "replicas": [2, 0]},
    ],
}


def make(data=None, **changes):
    data = json.loads(json.dumps(data or DATA))
    data.update(changes)
    return Instance.from_data(data, name="t", time_unit="s", source={})


def test_round_trip_json(tmp_path):
    instance = make()
    assert instance.to_data() == DATA
    path = tmp_path / "i.json"
    write_instance(instance, path)
    assert read_instance(path) == instance


def test_round_trip_npz(tmp_path):
    instance = generate_uniform(seed=1, n=500, m=20, r=3, durations="lognormal")
    path = tmp_path / "big.npz"
    save_npz(instance, path)
    again = load_npz(path)
    assert again == instance
    assert again.to_data() == instance.to_data()
    ragged = make()
    save_npz(ragged, tmp_path / "ragged.npz")
    assert load_npz(tmp_path / "ragged.npz") == ragged


def test_arrays_are_read_only():
    instance = make()
    with pytest.raises(ValueError):
        instance.durations[0] = 5
    with pytest.raises(ValueError):
        instance.replica_servers[0] = 2


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["tasks"][1].update(duration=0), "data.tasks[1].duration"),
        (lambda d: d["tasks"][1].update(duration=-2), "data.tasks[1].duration"),
        (lambda d: d["tasks"][1].update(duration=1.5), "data.tasks[1].duration"),
        (lambda d: d["tasks"][1].update(duration="3"), "data.tasks[1].duration"),
        (lambda d: d["tasks"][1].update(duration=True), "data.tasks[1].duration"),
        (lambda d: d["tasks"][2].update(replicas=[2, 7]), "data.tasks[2].replicas[1]"),
        (lambda d: d["tasks"][2].update(replicas=[-1]), "data.tasks[2].replicas[0]"),
        (lambda d: d["tasks"][2].update(replicas=[]), "data.tasks[2].replicas"),
        (lambda d: d["tasks"][0].update(replicas=[1, 1]), "data.tasks[0].replicas"),
        (lambda d: d["tasks"][0].pop("replicas"), "data.tasks[0].replicas"),
        (lambda d: d["tasks"][0].pop("duration"), "data.tasks[0].duration"),
        (lambda d: d["tasks"][1].update(name="a"), "data.tasks[1].name"),
        (lambda d: d.update(servers=0), "data.servers"),
        (lambda d: d.update(servers="3"), "data.servers"),
        (lambda d: d.pop("servers"), "data.servers"),
        (lambda d: d.update(objective="speed"), "data.objective"),
        (lambda d: d.update(remote_cost=-1), "data.remote_cost"),
        (lambda d: d.update(remote_cost=float("nan")), "data.remote_cost"),
        (lambda d: d.update(tasks=[]), "data.tasks"),
        (lambda d: d.update(tasks={"a": 1}), "data.tasks"),
    ],
)
def test_bad_data_names_the_field(mutate, field):
    data = json.loads(json.dumps(DATA))
    mutate(data)
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data, name="t", time_unit=None, source={})
    assert error.value.field == field


def test_create_checks_too():
    with pytest.raises(InvalidInstanceError, match="listed twice"):
        Instance.create(3, [1, 1], np.array([[0, 1], [2, 2]]))
    with pytest.raises(InvalidInstanceError, match="does not exist"):
        Instance.create(3, [1, 1], np.array([[0, 1], [2, 3]]))
    with pytest.raises(InvalidInstanceError):
        Instance.create(3, [1.5, 1], np.array([[0, 1], [2, 1]]))


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"problem": "locality", "data": {')
    with pytest.raises(FormatError, match="malformed JSON"):
        read_instance(bad)
    dangling = tmp_path / "dangling.json"
    document = {"problem": "locality", "format": 1, "name": "x", "source": {}, "data": dict(DATA, servers=2)}
    dangling.write_text(json.dumps(document))
    with pytest.raises(InvalidInstanceError) as error:
        read_instance(dangling)
    assert error.value.field == "data.tasks[2].replicas[0]" and str(dangling) in str(error.value)
    with pytest.raises(FormatError):
        load_npz(bad)


def test_evaluate_by_hand():
    instance = make()
    solution = Solution.from_queues([[0, 2], [1], []])
    kpis = hpcsched.evaluate(instance, solution)
    assert kpis["objective"] == 3.0 and kpis["makespan"] == 3.0 and kpis["nonlocal_tasks"] == 0
    # Objective 2 with remote cost 4: c on server 1 is remote (1 + 4 = 5).
    communication = make(objective="communication", remote_cost=4)
    solution = Solution.from_queues([[0], [1, 2], []])
    kpis = hpcsched.evaluate(communication, solution)
    assert kpis["objective"] == 1.0 and kpis["makespan"] == 8.0


# ---------------------------------------------------------- validator rules
def rules(instance, queues):
    return [violation.rule for violation in hpcsched.validate(instance, Solution.from_queues(queues))]


def test_validator_accepts_a_feasible_schedule():
    assert rules(make(), [[0, 2], [1], []]) == []


def test_validator_rejects_a_non_local_task_under_objective_1():
    assert rules(make(), [[0], [1, 2], []]) == ["local"]  # c has replicas {2, 0}


def test_validator_rejects_duplicated_and_missing_tasks():
    assert rules(make(), [[0, 2], [1, 0], []]) == ["once"]
    assert rules(make(), [[0], [1], []]) == ["once"]


def test_validator_rejects_an_unknown_server_and_task():
    assert "server" in rules(make(), [[0], [1], [], [2]])
    assert rules(make(), [[0, 2], [1, 9], []]) == ["task"]


def test_validator_rejects_an_idle_gap_under_objective_2():
    instance = make(objective="communication")
    # Server 2 is empty (completes at 0) while task b starts at 2 on server 0.
    assert rules(instance, [[0, 1], [2], []]) == ["idle"]
    # Server 2 completes at 1, task b starts at 2 on server 1: idle from 1.
    assert rules(instance, [[], [0, 1], [2]]) == ["idle"]
    # Back to back with no idle server: feasible, and a remote task is allowed.
    assert rules(instance, [[0], [1], [2]]) == []
    assert rules(instance, [[1], [0], [2]]) == []


def test_validator_counts_remote_cost_in_starts():
    instance = make(objective="communication", remote_cost=5)
    # Server 0: c (local, 1) then a (local, 2) -> a starts at 1; server 1: b;
    # server 2 runs nothing -> idle from 0 while a starts at 1.
    assert rules(instance, [[2, 0], [1], []]) == ["idle"]
    # a remote on server 2 takes 2 + 5 = 7, servers 0 and 1 finish at 1 and 3;
    # starts are all 0: feasible.
    assert rules(instance, [[2], [1], [0]]) == []


def test_solution_file_round_trip(tmp_path):
    instance = make()
    result = hpcsched.solve(instance, "brute-force")
    path = tmp_path / "s.json"
    write_solution(instance, result, path)
    assert read_solution(path, instance) == result.solution
    broken = json.loads(path.read_text())
    broken["solution"]["queues"][0].append(17)
    path.write_text(json.dumps(broken))
    with pytest.raises(InvalidSolutionError, match="does not exist"):
        read_solution(path, instance)


def test_instance_document_without_core_changes():
    document = {"problem": "locality", "format": 1, "name": "doc", "source": {}, "data": DATA}
    instance = instance_from_document(document)
    assert instance.num_tasks == 3 and instance.task_name(2) == "c"
    assert math.isclose(hpcsched.evaluate(instance, Solution.from_queues([[0, 2], [1], []]))["mean_load"], 2.0)


def test_plot_both_styles(tmp_path):
    import matplotlib
    import matplotlib.pyplot as plt

    from hpcsched.locality import plot_solution
    from hpcsched.plotting import save_axes

    backend = matplotlib.get_backend()
    small = make(objective="communication", remote_cost=2)
    gantt = plot_solution(small, Solution.from_queues([[0], [1], [2]]))
    assert len(gantt.patches) + len(gantt.collections) >= 3  # one bar per task
    save_axes(gantt, tmp_path / "gantt.png")
    large = generate_uniform(seed=0, n=5000, m=100, r=2)
    result = hpcsched.solve(large, "least-loaded")
    _, ax = plt.subplots()
    assert plot_solution(large, result.solution, ax=ax) is ax
    assert ax.get_xlabel() == "server load"
    save_axes(ax, tmp_path / "hist.png")
    assert (tmp_path / "gantt.png").stat().st_size > 1000 and (tmp_path / "hist.png").stat().st_size > 1000
    assert matplotlib.get_backend() == backend  # drawing leaves the backend alone


def test_npz_goes_through_read_instance_and_write_instance(tmp_path):
    from hpcsched.core.io import read_instance, write_instance
    from hpcsched.locality import generate_uniform

    instance = generate_uniform(seed=4, n=300, m=10, r=2)
    write_instance(instance, tmp_path / "big.npz")
    assert read_instance(tmp_path / "big.npz") == instance
