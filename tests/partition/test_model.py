"""Model: reading errors name their field; the validator refuses every mutation the definition forbids."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.partition import Instance, Solution, evaluate, validate
from hpcsched.partition.model import memory_items

from .partition_strategies import small_instances


def _data(**changes):
    data = {
        "gpus": 2,
        "memory": 100,
        "memory_model": "static",
        "nodes": [
            {"name": "a", "time": 3, "persistent": 10, "output": 5, "group": None},
            {"name": "b", "time": 2, "persistent": 10, "output": 5, "group": None},
        ],
        "edges": [{"from": "a", "to": "b", "transfer": 4}],
    }
    data.update(changes)
    return data


def test_round_trip():
    instance = Instance.from_data(_data(), name="t")
    again = Instance.from_data(instance.to_data(), name="t")
    assert again == instance


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"gpus": 0}, "data.gpus"),
        ({"memory": -1}, "data.memory"),
        ({"memory_model": "lazy"}, "data.memory_model"),
        ({"nodes": []}, "data.nodes"),
        ({"nodes": [{"name": "a", "time": -1}]}, "data.nodes[0].time"),
        ({"nodes": [{"name": "a", "time": 1, "pin": 2}]}, "data.nodes[0].pin"),
        ({"nodes": [{"name": "a", "time": 1, "colour": 2}]}, "data.nodes[0].colour"),
        ({"nodes": [{"name": "a", "time": 1}, {"name": "a", "time": 1}]}, "data.nodes[1].name"),
        ({"edges": [{"from": "a", "to": "z"}]}, "data.edges[0].to"),
        ({"edges": [{"from": "a", "to": "b", "transfer": 1.5}]}, "data.edges[0].transfer"),
        ({"edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]}, "data.edges"),
        ({"extra": 1}, "data.extra"),
    ],
)
def test_bad_data_names_the_field(changes, field):
    with pytest.raises(InvalidInstanceError) as caught:
        Instance.from_data(_data(**changes), name="t")
    assert field in str(caught.value)


def test_evaluate_counts_cut_edges_bytes_and_peaks():
    instance = Instance.from_data(_data(), name="t")
    solution = Solution((0, 1), (0, 7))
    assert validate(instance, solution) == []
    kpis = evaluate(instance, solution)
    assert kpis["makespan"] == 9 and kpis["cut_edges"] == 1 and kpis["bytes_moved"] == 5
    assert kpis["peak_memory_gpu0"] == 15 and kpis["peak_memory_gpu1"] == 15
    # too early: the transfer of 4 is not over
    assert [v.rule for v in validate(instance, Solution((0, 1), (0, 6)))] == ["precedence"]


def test_dynamic_memory_items_follow_the_definition():
    # a (0..3) on GPU 0 feeds b on GPU 1 (copy arrives at 3 + 4 = 7, lives until b ends at 9)
    # and c on GPU 0 (a's output lives until c ends).
    instance = Instance.create(
        [3, 2, 5],
        [(0, 1, 4), (0, 2, 1)],
        gpus=2,
        memory=100,
        persistent=[1, 0, 0],
        output=[10, 0, 0],
        memory_model="dynamic",
    )
    solution = Solution((0, 1, 0), (0, 7, 3))
    assert validate(instance, solution) == []
    assert sorted(memory_items(instance, solution)) == sorted([(0, 0, 9, 1), (1, 7, 9, 10), (0, 0, 8, 10)])
    tight = dataclasses.replace(instance, memory=10)
    assert [v.rule for v in validate(tight, solution)] == ["memory"]  # 1 + 10 on GPU 0
    assert validate(dataclasses.replace(instance, memory=11), solution) == []


def test_half_open_lifetimes_release_before_allocating():
    # on one GPU: a's output (6 bytes) is alive [0, 2) for b; c's output (6) is alive [2, 3): never together
    instance = Instance.create([1, 1, 1], [(0, 1), (1, 2)], gpus=1, memory=12, output=[6, 6, 6], memory_model="dynamic")
    assert validate(instance, Solution((0, 0, 0), (0, 1, 2))) == []


def _mutations(instance: Instance, solution: Solution):
    n = instance.n
    for v in range(n):
        yield "gpu out of range", Solution((*solution.gpu[:v], instance.gpus, *solution.gpu[v + 1 :]), solution.start)
        yield "negative start", Solution(solution.gpu, (*solution.start[:v], -1, *solution.start[v + 1 :]))
        if instance.nodes[v].time > 0 or any(e.u == v or e.v == v for e in instance.edges):
            yield (
                "earlier",
                Solution(solution.gpu, (*solution.start[:v], solution.start[v] - 1, *solution.start[v + 1 :])),
            )
        for g in range(instance.gpus):
            if g != solution.gpu[v]:
                yield "other gpu", Solution((*solution.gpu[:v], g, *solution.gpu[v + 1 :]), solution.start)


@settings(max_examples=60)
@given(small_instances(memory_model=None), st.data())
def test_validator_refuses_what_the_definition_forbids(instance, data):
    result = hpcsched.solve(instance, "cpsat", time_limit=60, workers=1, deterministic_time=10.0)
    if not result.status.has_solution:
        return
    solution = result.solution
    assert validate(instance, solution) == []
    for label, mutated in _mutations(instance, solution):
        broken = _independent_check(instance, mutated)
        found = validate(instance, mutated)
        assert bool(found) == broken, (label, mutated, found)


def _independent_check(instance: Instance, solution: Solution) -> bool:
    """True when the solution breaks a rule: a brute-force reading of the definition, instant by instant."""
    nodes, K, n = instance.nodes, instance.gpus, instance.n
    if any(not 0 <= g < K for g in solution.gpu) or any(s < 0 for s in solution.start):
        return True
    end = [s + node.time for s, node in zip(solution.start, nodes, strict=True)]
    for v, node in enumerate(nodes):
        if node.pin is not None and solution.gpu[v] != node.pin:
            return True
        for w in range(n):
            if node.group is not None and nodes[w].group == node.group and solution.gpu[w] != solution.gpu[v]:
                return True
            overlapping = solution.start[v] < end[w] and solution.start[w] < end[v]
            if w != v and solution.gpu[w] == solution.gpu[v] and node.time and nodes[w].time and overlapping:
                return True
    for e in instance.edges:
        if solution.start[e.v] < end[e.u] + (e.delay if solution.gpu[e.u] != solution.gpu[e.v] else 0):
            return True
    horizon = max(end)
    for g in range(K):
        if instance.memory_model == "static":
            if (
                sum(node.persistent + node.output for v, node in enumerate(nodes) if solution.gpu[v] == g)
                > instance.memory
            ):
                return True
            continue
        for t in range(horizon + 1):
            held = sum(node.persistent for v, node in enumerate(nodes) if solution.gpu[v] == g and t < horizon)
            for u, node in enumerate(nodes):
                local = [end[e.v] for e in instance.edges if e.u == u and solution.gpu[e.v] == solution.gpu[u]]
                if solution.gpu[u] == g and solution.start[u] <= t < max([end[u], *local]):
                    held += node.output
            for e in instance.edges:
                if solution.gpu[e.v] == g and solution.gpu[e.u] != g and end[e.u] + e.delay <= t < end[e.v]:
                    held += nodes[e.u].output
            if held > instance.memory:
                return True
    return False
