"""The validator against mutated solutions: every rule broken by a mutation is refused, valid moves are kept."""

from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched import solve
from hpcsched.pipeline import Instance, Solution, generate_uniform, validate
from hpcsched.pipeline.simulate import orders_from_sequence, sequential_sequence, timing

from .pipeline_strategies import instances
from .test_model import GOOD


def rules(instance, solution):
    return {violation.rule for violation in validate(instance, solution)}


def _good():
    instance = Instance.from_data(GOOD, name="good")
    return instance, Solution.makespan([[0, 2, 3, 6], [1, 5, 6, 9]])


def test_hand_schedule_is_valid():
    assert validate(*_good()) == []


def test_shifted_start_breaks_precedence_and_delay():
    instance, solution = _good()
    start = [list(row) for row in solution.start]
    start[0][1] = 1  # F1 right after F0 ends, without the delay of 1
    assert "precedence" in rules(instance, Solution.makespan(start))
    start[0][1] = 2
    start[0][3] = 5  # B0 right after B1 ends, without the delay
    assert "precedence" in rules(instance, Solution.makespan(start))


def test_overlapping_blocks_on_a_device_are_refused():
    instance, solution = _good()
    start = [list(row) for row in solution.start]
    start[1][0] = 0  # F0 of m1 together with F0 of m0 on device 0
    assert rules(instance, Solution.makespan(start)) == {"overlap"}


def test_memory_overflow_is_refused():
    instance, solution = _good()
    tighter = replace(instance, memory_limit=(1, None))
    assert rules(tighter, solution) == {"memory"}
    # frees before allocations at equal times: on device 1, B1 of m0 ends at 5 when F1 of m1 starts
    assert validate(replace(instance, memory_limit=(2, 1)), solution) == []


def test_negative_start_and_shape():
    instance, solution = _good()
    start = [list(row) for row in solution.start]
    start[0][0] = -1
    assert "negative-start" in rules(instance, Solution.makespan(start))
    assert rules(instance, Solution.makespan(start[:1])) == {"size"}
    assert rules(instance, Solution.periodic(6, solution.start)) == {"size"}


def _vshape(limit=4):
    instance = generate_uniform(devices=4, forward=1, backward=3, memory_limit=limit, objective="period")
    offsets = {"F0": 0, "F1": 1, "F2": 2, "F3": 3, "B3": 4, "B2": 7, "B1": 10, "B0": 13}
    return instance, [offsets[block.name] for block in instance.blocks]


def test_period_overlap_modulo_p_is_refused():
    instance, row = _vshape()
    assert validate(instance, Solution.periodic(4, [row])) == []
    # one period less: 1 + 3 time units of work on each device do not fit in 3
    assert "overlap" in rules(instance, Solution.periodic(3, [row]))
    # B0 moved by one: it still follows B1, but overlaps F0 of the next period modulo 4
    moved = list(row)
    moved[instance.blocks.index(next(b for b in instance.blocks if b.name == "B0"))] += 1
    assert "overlap" in rules(instance, Solution.periodic(4, [moved]))


def test_steady_state_memory_is_refused():
    instance, row = _vshape(limit=3)
    assert rules(instance, Solution.periodic(4, [row])) == {"memory"}  # device 0 holds 4 micro-batches
    instance, row = _vshape(limit=4)
    b0 = next(i for i, b in enumerate(instance.blocks) if b.name == "B0")
    late = list(row)
    late[b0] += 4  # B0 one period later: same pattern modulo P, one more micro-batch held on device 0
    assert rules(instance, Solution.periodic(4, [late])) == {"memory"}
    whole = [s + 8 for s in row]  # a whole micro-batch two periods later: the same stream
    assert validate(instance, Solution.periodic(4, [whole])) == []


@settings(max_examples=40, deadline=None)
@given(instance=instances(), data=st.data())
def test_mutations_of_random_valid_schedules(instance, data):
    order = sequential_sequence(instance)
    solution = timing(instance, orders_from_sequence(instance, order))
    if solution is None:  # one micro-batch in this order does not fit
        return
    assert validate(instance, solution) == []
    m = data.draw(st.integers(0, instance.micro_batches - 1))
    start = [list(row) for row in solution.start]
    if instance.edges:
        edge = data.draw(st.sampled_from(instance.edges))
        start[m][edge.target] = start[m][edge.source]  # before its predecessor ends (durations >= 1)
        assert "precedence" in rules(instance, Solution.makespan(start))
    if instance.micro_batches > 1:
        b = data.draw(st.integers(0, instance.n_blocks - 1))
        start = [list(row) for row in solution.start]
        start[1][b] = start[0][b]  # two executions of block b at once on its devices
        assert "overlap" in rules(instance, Solution.makespan(start))


def test_brute_force_schedules_validate_and_break_when_memory_shrinks():
    instance, _ = _good()
    result = solve(instance, "brute-force")
    assert validate(instance, result.solution) == []
    assert rules(replace(instance, memory_limit=(1, 1)), result.solution) <= {"memory"}


def _mshape(limit=6):
    """Tessel's mshape on 4 devices: a sharded block on all devices, vshape F/B, a sharded block again."""
    names = ["SF", "F0", "F1", "F2", "F3", "B3", "B2", "B1", "B0", "SB"]
    blocks = [{"name": "SF", "device": [0, 1, 2, 3], "duration": 1, "memory": 0}]
    blocks += [{"name": f"F{d}", "device": d, "duration": 1, "memory": 1} for d in range(4)]
    blocks += [{"name": f"B{d}", "device": d, "duration": 3, "memory": -1} for d in (3, 2, 1, 0)]
    blocks += [{"name": "SB", "device": [0, 1, 2, 3], "duration": 1, "memory": 0}]
    edges = [{"from": a, "to": b} for a, b in itertools.pairwise(names)]
    data = {"devices": 4, "memory_limit": [limit] * 4, "objective": "period", "blocks": blocks, "edges": edges}
    return Instance.from_data(data, name="mshape")


def test_tessel_mshape_repetend_with_sharded_blocks():
    """The 6-step repetend Tessel's fast search finds (offsets from its micro-batch ids): peaks 6, 4, 3, 1."""
    from hpcsched.pipeline import evaluate

    offsets = [0, 1, 4, 7, 10, 13, 20, 25, 32, 35]
    instance = _mshape()
    kpis = evaluate(instance, Solution.periodic(6, [offsets]))
    assert validate(instance, Solution.periodic(6, [offsets])) == []
    assert kpis["bubble"] == 0 and [kpis[f"peak_memory_{d}"] for d in range(4)] == [6, 4, 3, 1]
    assert rules(_mshape(limit=5), Solution.periodic(6, [offsets])) == {"memory"}
    moved = list(offsets)
    moved[-1] += 1  # SB one step later meets F0 of a later micro-batch on device 0 (and others) modulo 6
    assert "overlap" in rules(instance, Solution.periodic(6, [moved]))
