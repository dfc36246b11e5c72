"""The validator's numpy screen (`pipeline.model.screen`) against the Python rules it stands in front of.

On random instances (block graphs with sharded blocks, stage chains; makespan
and period) and on valid, random and mutated schedules: `validate` and
`evaluate` with the screen forced off and on give identical violations and
KPIs, `Screen.clean` is exactly the Python verdict, and the peaks equal
`device_peaks`. The same for memory limits cut to a device's peak and one below.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.pipeline import Solution, generate_uniform
from hpcsched.pipeline.model import device_peaks, rules
from hpcsched.pipeline.model.screen import Screen
from hpcsched.pipeline.simulate import orders_from_sequence, sequential_sequence, timing

from .pipeline_strategies import instances


def _python(instance, solution):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "_screen", lambda instance, solution: None)
        violations = rules.validate(instance, solution)
        kpis = rules.evaluate(instance, solution) if not violations or _evaluable(instance, solution) else None
    return violations, kpis


def _evaluable(instance, solution):
    return not rules._shape_violations(instance, solution)


def _agree(instance, solution, screened=True):
    expected, expected_kpis = _python(instance, solution)
    assert rules.validate(instance, solution) == expected
    if expected_kpis is not None:
        assert rules.evaluate(instance, solution) == expected_kpis
    if screened and _evaluable(instance, solution):
        screen = Screen.of(instance, solution)
        assert screen is not None
        assert screen.clean() == (expected == [])
        assert list(screen.peaks) == device_peaks(instance, solution)


@st.composite
def schedules(draw, objective):
    """An instance and a schedule: a valid one (sequential), mutated, or random starts."""
    instance = draw(instances(objective=objective, max_jobs=10))
    rows, blocks = instance.micro_batches, instance.n_blocks
    valid = timing(instance, orders_from_sequence(instance, sequential_sequence(instance)))
    if valid is not None and draw(st.booleans()):
        start = [list(row) for row in valid.start]
        for _ in range(draw(st.integers(0, 3))):
            m, b = draw(st.integers(0, rows - 1)), draw(st.integers(0, blocks - 1))
            kind = draw(st.sampled_from(["shift", "swap", "copy", "negative", "tight"]))
            if kind == "shift":
                start[m][b] += draw(st.integers(-4, 4))
            elif kind == "negative":
                start[m][b] = -draw(st.integers(1, 2))
            elif kind == "tight" and instance.edges:  # one unit inside an edge's delay (or its source)
                edge = draw(st.sampled_from(instance.edges))
                ready = start[m][edge.source] + instance.blocks[edge.source].duration + edge.delay
                start[m][edge.target] = ready - 1
            else:
                n, c = draw(st.integers(0, rows - 1)), draw(st.integers(0, blocks - 1))
                if kind == "swap":
                    start[m][b], start[n][c] = start[n][c], start[m][b]
                else:
                    start[m][b] = start[n][c]
    else:
        start = [[draw(st.integers(-1, 12)) for _ in range(blocks)] for _ in range(rows)]
    if objective == "period":
        lowest = min(min(row) for row in start)
        if lowest < 0 and draw(st.booleans()):
            start = [[s - lowest for s in row] for row in start]
        solution = Solution.periodic(draw(st.integers(1, 16)), start)
    else:
        solution = Solution.makespan(start)
    return instance, solution


@settings(max_examples=300, deadline=None)
@given(case=st.one_of(schedules("makespan"), schedules("period")), cut=st.sampled_from([None, 0, -1]))
def test_screen_agrees_with_the_python_rules(case, cut):
    instance, solution = case
    _agree(instance, solution)
    if cut is not None:  # limits cut to each device's peak (still fits) and one below (breaks)
        peaks = device_peaks(instance, solution)
        limits = tuple(max(peak + cut, 0) for peak in peaks)
        _agree(replace(instance, memory_limit=limits), solution)


def _uniform():
    instance = generate_uniform(n=3, devices=2, memory_limit=3)
    return instance, timing(instance, orders_from_sequence(instance, sequential_sequence(instance)))


def test_ill_shaped_and_huge_values_go_to_the_python_rules():
    instance, solution = _uniform()
    wrong = Solution.makespan([*solution.start, solution.start[0]])
    assert rules._screen(instance, wrong) is None
    _agree(instance, wrong)
    huge = Solution.makespan([[2**70 + s for s in row] for row in solution.start])
    assert Screen.of(instance, huge) is None
    _agree(instance, huge, screened=False)


def test_the_cached_screen_is_per_object():
    instance, solution = _uniform()
    first = rules._screen(instance, solution)
    assert rules._screen(instance, solution) is first
    copy = Solution.makespan(solution.start)
    assert rules._screen(instance, copy) is not first
    shifted = Solution.makespan([[s + 100 for s in row] for row in solution.start])
    _agree(instance, shifted)
