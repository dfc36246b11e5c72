"""hetero model: reading, errors, validator against mutated schedules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.hetero import Instance, Solution, evaluate, validate

from .hetero_strategies import small_instances

DATA = {
    "cpus": 1,
    "gpus": 1,
    "tasks": [
        {"name": "a", "cpu": 4, "gpu": 1},
        {"name": "b", "cpu": 2, "gpu": None},
        {"name": "c", "cpu": 3, "gpu": 3},
    ],
    "edges": [["a", "b", 2], ["a", "c"]],
}


def test_round_trip():
    instance = Instance.from_data(DATA, name="x")
    assert Instance.from_data(instance.to_data(), name="x") == instance
    assert instance.edges[0].delay == 2 and instance.edges[1].delay == 0


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["tasks"].append({"name": "a", "cpu": 1, "gpu": 1}), "data.tasks[3].name"),
        (lambda d: d["tasks"][0].update(cpu=None, gpu=None), "data.tasks[0]"),
        (lambda d: d["tasks"][0].update(cpu=-1), "data.tasks[0].cpu"),
        (lambda d: d["tasks"][0].update(speed=2), "data.tasks[0].speed"),
        (lambda d: d["edges"].append(["a", "zz"]), "data.edges[2][1]"),
        (lambda d: d["edges"].append(["c", "a"]), "data.edges"),
        (lambda d: d["edges"].append(["a", "b"]), "data.edges[2]"),
        (lambda d: d["edges"].append(["a", "a"]), "data.edges[2]"),
        (lambda d: d["edges"].append(["a", "c", -1]), "data.edges[2][2]"),
        (lambda d: d.update(cpus=0, gpus=0), "data.cpus"),
        (lambda d: d.update(gpus=True), "data.gpus"),
        (lambda d: d.update(links=3), "data.links"),
    ],
)
def test_bad_data_names_the_field(change, field):
    data = {**DATA, "tasks": [dict(t) for t in DATA["tasks"]], "edges": [list(e) for e in DATA["edges"]]}
    change(data)
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data, name="x")
    assert error.value.field == field


def test_a_task_runnable_nowhere_is_infeasible_for_every_method():
    instance = Instance.from_data({**DATA, "cpus": 0}, name="x")  # b runs only on CPUs
    for method in ("heft", "heteroprio", "cpsat", "brute-force", "hlp-rounding", "milp"):
        result = run_method(instance, method, time_limit=10)
        assert result.status is Status.INFEASIBLE, method
        assert "'b'" in result.notes[0]


def test_validator_rules_by_hand():
    instance = Instance.from_data(DATA, name="x")
    good = Solution(("gpu", "cpu", "cpu"), (0, 0, 0), (0, 3, 5))
    assert validate(instance, good) == []
    assert evaluate(instance, good)["makespan"] == 8
    assert evaluate(instance, good)["cross_type_edges"] == 2 and evaluate(instance, good)["communication"] == 2
    cases = {
        "forbidden-type": Solution(("gpu", "gpu", "cpu"), (0, 0, 0), (0, 3, 5)),
        "precedence": Solution(("gpu", "cpu", "cpu"), (0, 0, 0), (0, 2, 5)),  # comm 2 not waited for
        "overlap": Solution(("gpu", "cpu", "cpu"), (0, 0, 0), (0, 3, 4)),
        "machine-index": Solution(("gpu", "cpu", "cpu"), (1, 0, 0), (0, 3, 5)),
        "type": Solution(("fpga", "cpu", "cpu"), (0, 0, 0), (0, 3, 5)),
        "start": Solution(("gpu", "cpu", "cpu"), (0, 0, 0), (-1, 3, 5)),
    }
    for rule, solution in cases.items():
        assert rule in {v.rule for v in validate(instance, solution)}, rule


@settings(max_examples=150)
@given(small_instances(max_n=6), st.data())
def test_mutated_schedules_are_refused(instance, data):
    solution = run_method(instance, "heft-insertion", time_limit=10).solution
    assert validate(instance, solution) == []
    n = instance.n
    j = data.draw(st.integers(0, n - 1))
    kind = solution.type[j]
    length = instance.tasks[j].time(kind)
    mutation = data.draw(st.sampled_from(["type", "machine", "start", "precedence", "overlap"]))
    types, machines, starts = list(solution.type), list(solution.machine), list(solution.start)
    if mutation == "type":
        other = "cpu" if kind == "gpu" else "gpu"
        if instance.tasks[j].time(other) is not None and (instance.cpus if other == "cpu" else instance.gpus) > 0:
            return  # a legal move, not a mutation that must be refused
        types[j] = other
    elif mutation == "machine":
        machines[j] = instance.cpus if kind == "cpu" else instance.gpus
    elif mutation == "start":
        starts[j] = -1 - data.draw(st.integers(0, 5))
    elif mutation == "precedence":
        edges = [
            e
            for e in instance.edges
            if instance.tasks[e.u].time(solution.type[e.u])
            + (e.delay if solution.type[e.u] != solution.type[e.v] else 0)
            > 0
        ]
        if not edges:
            return
        e = data.draw(st.sampled_from(edges))
        ready = (
            solution.start[e.u]
            + instance.tasks[e.u].time(solution.type[e.u])
            + (e.delay if solution.type[e.u] != solution.type[e.v] else 0)
        )
        starts[e.v] = ready - 1
        if starts[e.v] < 0:
            return
    else:
        others = [i for i in range(n) if i != j and instance.tasks[i].time(solution.type[i]) > 0]
        if not length or not others:
            return
        i = data.draw(st.sampled_from(others))
        if instance.tasks[j].time(solution.type[i]) in (None, 0):
            return
        types[j], machines[j], starts[j] = solution.type[i], solution.machine[i], solution.start[i]
    mutated = Solution(tuple(types), tuple(machines), tuple(starts))
    assert validate(instance, mutated) != []


def test_solution_file_errors_name_the_field():
    instance = Instance.from_data(DATA, name="x")
    with pytest.raises(InvalidInstanceError) as error:
        Solution.from_data({"type": ["gpu", "cpu", "tpu"], "machine": [0, 0, 0], "start": [0, 3, 5]}, instance=instance)
    assert error.value.field == "type[2]"
    with pytest.raises(InvalidInstanceError):
        Solution.from_data({"type": ["gpu", "cpu"], "machine": [0, 0, 0], "start": [0, 3, 5]}, instance=instance)
    solution = Solution.from_data(
        {"type": ["gpu", "cpu", "cpu"], "machine": [0, 0, 0], "start": [0, 3, 5]}, instance=instance
    )
    assert solution.to_data()["start"] == [0, 3, 5]


def test_solve_through_the_public_door():
    instance = Instance.from_data(DATA, name="x")
    result = hpcsched.solve(instance, "cpsat", time_limit=10)
    assert (
        result.status is Status.OPTIMAL and result.objective == 5
    )  # a GPU [0,1), c GPU [1,4), b CPU [3,5): 1 + comm 2
