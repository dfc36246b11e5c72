"""The shared task-graph engine against the schedule validator (both from hpcsched.taskgraph)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.taskgraph import (
    CycleError,
    Edge,
    ListScheduler,
    NoPlacementError,
    Placement,
    list_schedule,
    makespan,
    topological_order,
    upward_ranks,
    validate_machine_schedule,
)


@st.composite
def graphs(draw, max_tasks=9):
    """A random DAG on two classes, with durations (None = cannot run) and a priority."""
    n = draw(st.integers(1, max_tasks))
    machines = {"cpu": draw(st.integers(0, 3)), "gpu": draw(st.integers(0, 3))}
    if machines["cpu"] + machines["gpu"] == 0:
        machines["cpu"] = 1
    available = [c for c, count in machines.items() if count > 0]
    durations = []
    for _ in range(n):
        row = {c: draw(st.one_of(st.none(), st.integers(0, 9))) for c in machines}
        if all(row[c] is None for c in available):
            row[draw(st.sampled_from(available))] = draw(st.integers(0, 9))
        durations.append(row)
    edges = []
    for v in range(n):
        for u in range(v):
            if draw(st.booleans()) and draw(st.booleans()):
                edges.append(Edge(u, v, draw(st.integers(0, 5))))
    priority = draw(st.permutations(range(n)))
    rule = draw(st.sampled_from(["class", "machine"]))
    insertion = draw(st.booleans())
    return n, edges, machines, durations, list(priority), rule, insertion


def _schedule(case, fits=None):
    n, edges, machines, durations, priority, rule, insertion = case
    return list_schedule(
        n, edges, machines, lambda j, c: durations[j][c], priority, rule=rule, insertion=insertion, fits=fits
    )


@settings(max_examples=300)
@given(graphs())
def test_every_engine_schedule_passes_the_validator(case):
    n, edges, machines, durations, _priority, rule, _insertion = case
    placements = _schedule(case)
    assert len(placements) == n
    assert validate_machine_schedule(placements, machines, edges, rule=rule) == []
    for j, placed in enumerate(placements):
        assert placed.duration == durations[j][placed.machine_class]


@settings(max_examples=200)
@given(graphs(), st.data())
def test_mutated_schedules_are_refused(case, data):
    n, edges, machines, _durations, _priority, rule, _insertion = case
    placements = list(_schedule(case))
    j = data.draw(st.integers(0, n - 1))
    kind = data.draw(st.sampled_from(["index", "negative", "nonfinite", "class", "precedence", "overlap"]))
    mutated = list(placements)
    placed = placements[j]
    if kind == "index":
        mutated[j] = dataclasses.replace(placed, machine=machines[placed.machine_class])
    elif kind == "negative":
        mutated[j] = dataclasses.replace(placed, start=-1)
    elif kind == "nonfinite":
        mutated[j] = dataclasses.replace(placed, start=data.draw(st.sampled_from([math.inf, math.nan])))
    elif kind == "class":
        mutated[j] = dataclasses.replace(placed, machine_class="fpga")
    elif kind == "precedence":
        positive = [e for e in edges if placements[e.u].duration > 0 or e.delay > 0]
        if not positive:
            return
        edge = data.draw(st.sampled_from(positive))
        first, second = placements[edge.u], placements[edge.v]
        apart = (
            first.machine_class != second.machine_class
            if rule == "class"
            else ((first.machine_class, first.machine) != (second.machine_class, second.machine))
        )
        ready = first.end + (edge.delay if apart else 0)
        if ready == 0:
            return
        mutated[edge.v] = dataclasses.replace(second, start=ready - 0.5)
    else:
        busy = [k for k in range(n) if k != j and placements[k].duration > 0]
        if placed.duration == 0 or not busy:
            return
        other = placements[data.draw(st.sampled_from(busy))]
        mutated[j] = dataclasses.replace(
            placed,
            machine_class=other.machine_class,
            machine=other.machine,
            start=other.start + min(other.duration, placed.duration) / 2,
        )
    assert validate_machine_schedule(mutated, machines, edges, rule=rule) != []


def test_insertion_fills_an_idle_gap():
    # 0 (5 units) -> 1 (1 unit) on the one machine; 2 (3 units) arrives later in the order but
    # fits in [0, 5)? No: 0 occupies [0, 5). Make a gap: 0 -> 1 with delay... use two classes.
    edges = [Edge(0, 1, 10)]
    machines = {"cpu": 1, "gpu": 1}
    durations = [{"cpu": None, "gpu": 2}, {"cpu": 1, "gpu": None}, {"cpu": 4, "gpu": None}]
    # Task 1 must wait until 12 on the CPU (delay 10 across classes); task 2 comes after it in the order.
    without = list_schedule(3, edges, machines, lambda j, c: durations[j][c], [0, 1, 2], rule="class")
    with_gaps = list_schedule(3, edges, machines, lambda j, c: durations[j][c], [0, 1, 2], rule="class", insertion=True)
    assert without[2].start == 13
    assert with_gaps[2].start == 0
    assert makespan(with_gaps) == 13 < makespan(without)


def test_machine_rule_charges_the_delay_between_machines_only():
    edges = [Edge(0, 1, 7)]
    machines = {"gpu": 2}
    durations = [3, 3]
    placements = list_schedule(2, edges, machines, lambda j, c: durations[j], [0, 1], rule="machine")
    assert placements[1].machine == placements[0].machine and placements[1].start == 3
    moved = [placements[0], Placement("gpu", 1 - placements[0].machine, 3, 3)]
    assert [v.rule for v in validate_machine_schedule(moved, machines, edges, rule="machine")] == ["precedence"]
    assert validate_machine_schedule(moved, machines, edges, rule="class") == []


def test_fits_hook_skips_refused_machines():
    machines = {"gpu": 3}
    placements = list_schedule(
        6, [], machines, lambda j, c: 2, list(range(6)), rule="machine", fits=lambda j, m, s: m[1] != 0
    )
    assert all(p.machine != 0 for p in placements)
    with pytest.raises(NoPlacementError):
        list_schedule(1, [], machines, lambda j, c: 2, [0], rule="machine", fits=lambda j, m, s: False)


def test_a_task_that_can_run_nowhere_is_named():
    with pytest.raises(NoPlacementError, match="task 1"):
        list_schedule(
            2, [], {"cpu": 1, "gpu": 0}, lambda j, c: None if j == 1 and c == "cpu" else 1, [0, 1], rule="class"
        )


def test_cycles_are_refused():
    with pytest.raises(CycleError):
        topological_order(2, [Edge(0, 1), Edge(1, 0)])
    with pytest.raises(CycleError):
        list_schedule(2, [Edge(0, 1), Edge(1, 0)], {"cpu": 1}, lambda j, c: 1, [0, 1], rule="class")


def test_a_topological_order_as_priority_is_followed_exactly():
    edges = [Edge(0, 2), Edge(1, 2)]
    state_order = []

    def duration(j, c):
        return 1

    placements = list_schedule(3, edges, {"cpu": 1}, duration, [1, 0, 2], rule="class")
    state_order = sorted(range(3), key=lambda j: placements[j].start)
    assert state_order == [1, 0, 2]


def test_upward_ranks_are_longest_paths_to_an_exit():
    edges = [Edge(0, 1, 2), Edge(0, 2, 0), Edge(1, 3, 1), Edge(2, 3, 5)]
    assert upward_ranks(4, edges, [1, 2, 3, 4]) == [1 + max(2 + 2 + 1 + 4, 0 + 3 + 5 + 4), 2 + 1 + 4, 3 + 5 + 4, 4]
    assert upward_ranks(4, edges, [1, 2, 3, 4], with_delays=False) == [1 + 3 + 4, 6, 7, 4]


def test_best_placement_without_committing():
    state = ListScheduler(2, [], {"cpu": 1, "gpu": 1}, lambda j, c: {"cpu": 4, "gpu": 1}[c], rule="class")
    first = state.best_placement(0)
    assert first.machine_class == "gpu" and first.end == 1
    state.place(0, first)
    assert state.best_placement(1).end == 2  # the GPU again: 1 + 1 < 4


@settings(max_examples=200)
@given(graphs())
def test_the_heap_shortcut_chooses_as_well_as_scanning_every_machine(case):
    # fits that accepts everything forces the scan over all machines; the finish times must agree.
    fast = _schedule(case)
    scanned = _schedule(case, fits=lambda j, m, s: True)
    assert [p.end for p in fast] == [p.end for p in scanned]


def test_on_place_reports_every_commit_so_a_stateful_fits_can_reserve_memory():
    # partition's memory check: a machine holds at most 2 tasks' worth of memory. Without
    # on_place the fits hook cannot know where the previous task went.
    reserved = {0: 0, 1: 0}
    committed = []

    def fits(task, machine, start):
        return reserved[machine[1]] + 1 <= 2

    def on_place(task, placement):
        committed.append(task)
        reserved[placement.machine] += 1

    placements = list_schedule(
        4, [], {"gpu": 2}, lambda j, c: 1, [0, 1, 2, 3], rule="machine", fits=fits, on_place=on_place
    )
    assert committed == [0, 1, 2, 3]
    assert sorted(p.machine for p in placements) == [0, 0, 1, 1]


def _naive_list_schedule(n, edges, machines, durations, priority, rule):
    """Reference: ready task of smallest priority, earliest finish by brute force over every machine."""
    placed = [None] * n
    free = {(c, i): 0 for c, count in machines.items() for i in range(count)}
    order = list(machines)
    while any(p is None for p in placed):
        ready = [j for j in range(n) if placed[j] is None and all(placed[e.u] is not None for e in edges if e.v == j)]
        task = min(ready, key=lambda j: (priority[j], j))
        best = None
        for (c, i), free_at in free.items():
            length = durations[task][c]
            if length is None:
                continue
            arrival = 0
            for e in edges:
                if e.v == task:
                    u = placed[e.u]
                    apart = u.machine_class != c if rule == "class" else (u.machine_class, u.machine) != (c, i)
                    arrival = max(arrival, u.end + (e.delay if apart else 0))
            start = max(arrival, free_at)
            key = (start + length, start, order.index(c), free_at, i)
            if best is None or key < best[0]:
                best = (key, Placement(c, i, start, length))
        placed[task] = best[1]
        free[(best[1].machine_class, best[1].machine)] = max(
            free[(best[1].machine_class, best[1].machine)], best[1].end
        )
    return placed


@settings(max_examples=200)
@given(graphs())
def test_the_engine_matches_a_naive_earliest_finish_list_scheduler(case):
    n, edges, machines, durations, priority, rule, _insertion = case
    engine = list_schedule(n, edges, machines, lambda j, c: durations[j][c], priority, rule=rule)
    naive = _naive_list_schedule(n, edges, machines, durations, priority, rule)
    assert [p.end for p in engine] == [p.end for p in naive]
