"""The validator's numpy screen (`partition.model.screen`) against the Python rules it stands in front of.

On random small instances (static and dynamic memory, colocation pairs,
pins, zero times) and on list-scheduled, random and mutated schedules
(shifted or swapped starts, copied starts, moved nodes, a start inside another node's run, GPUs outside 0..K-1,
negative starts): `validate` and `evaluate` with the screen forced off and
on give identical violations and KPIs, `Screen.clean` is exactly the Python
verdict and the peaks equal `peak_memory`; the same with M cut to the peak
and to one below it.
"""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.partition import Solution
from hpcsched.partition.model.screen import Screen
from hpcsched.partition.simulate import schedule_assignment

from .partition_strategies import small_instances

# the module (the package exports its function `validate` under the same name)
rules = importlib.import_module("hpcsched.partition.model.validate")


def _python(instance, solution):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "_screen", lambda instance, solution: None)
        violations = rules.validate(instance, solution)
        in_range = all(0 <= g < instance.gpus for g in solution.gpu)
        kpis = rules.evaluate(instance, solution) if in_range and len(solution.gpu) == instance.n else None
    return violations, kpis


def _agree(instance, solution, screened=True):
    expected, expected_kpis = _python(instance, solution)
    assert rules.validate(instance, solution) == expected
    if expected_kpis is not None:
        assert rules.evaluate(instance, solution) == expected_kpis
    if screened:
        screen = Screen.of(instance, solution)
        assert screen is not None
        assert screen.clean() == (expected == [])
        assert list(screen.peaks) == rules.peak_memory(instance, solution)


@st.composite
def schedules(draw):
    """An instance and a schedule: list-scheduled on a random assignment and maybe mutated, or random."""
    instance = draw(small_instances(memory_model=None, max_n=7))
    n, gpus = instance.n, instance.gpus
    gpu_of = [draw(st.integers(0, gpus - 1)) for _ in range(n)]
    screened = True
    if draw(st.booleans()):
        solution = schedule_assignment(instance, gpu_of)
        gpu, start = list(solution.gpu), list(solution.start)
        for _ in range(draw(st.integers(0, 3))):
            v, w = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            kind = draw(st.sampled_from(["shift", "swap", "copy", "move", "inside"]))
            if kind == "inside":  # v starts strictly inside w's interval, on w's GPU
                gpu[v], start[v] = gpu[w], start[w] + min(1, instance.nodes[w].time // 2)
            elif kind == "shift":
                start[v] = max(0, start[v] + draw(st.integers(-3, 3)))
            elif kind == "swap":
                start[v], start[w] = start[w], start[v]
            elif kind == "copy":
                start[v] = start[w]
            else:
                gpu[v] = draw(st.integers(0, gpus - 1))
    else:
        gpu, start = gpu_of, [draw(st.integers(0, 15)) for _ in range(n)]
    if draw(st.integers(0, 9)) == 0:  # out of range: the Python rules alone decide
        v = draw(st.integers(0, n - 1))
        if draw(st.booleans()):
            gpu[v] = draw(st.sampled_from([-1, gpus]))
        else:
            start[v] = -1
        screened = False
    return instance, Solution(tuple(gpu), tuple(start)), screened


@settings(max_examples=400, deadline=None)
@given(case=schedules(), cut=st.sampled_from([None, 0, -1]))
def test_screen_agrees_with_the_python_rules(case, cut):
    instance, solution, screened = case
    _agree(instance, solution, screened)
    if screened and cut is not None:  # M cut to the peak (fits) and one below (breaks)
        memory = max(0, max(rules.peak_memory(instance, solution)) + cut)
        _agree(instance.with_platform(memory=memory), solution)


def _example():
    from hpcsched.partition import Instance

    instance = Instance.create([2, 3, 1], [(0, 1, 2), (0, 2, 1)], gpus=2, memory=20, output=[1, 2, 3])
    return instance, schedule_assignment(instance, [0, 1, 0])


def test_wrong_sizes_and_huge_values_go_to_the_python_rules():
    instance, solution = _example()
    short = Solution(solution.gpu[:-1], solution.start[:-1])
    assert rules._screen(instance, short) is None
    _agree(instance, short, screened=False)
    huge = Solution(solution.gpu, tuple(s + 2**70 for s in solution.start))
    assert Screen.of(instance, huge) is None
    _agree(instance, huge, screened=False)


def test_the_cached_screen_is_per_object():
    instance, solution = _example()
    first = rules._screen(instance, solution)
    assert rules._screen(instance, solution) is first
    assert rules._screen(instance, Solution(solution.gpu, solution.start)) is not first
    moved = Solution((1, 1, 1), solution.start)
    _agree(instance, moved)


def test_an_empty_run_inside_another_is_no_overlap():
    from hpcsched.partition import Instance

    instance = Instance.create([4, 0, 0], [], gpus=1, memory=10)
    for starts in ((0, 2, 4), (0, 0, 3)):  # inside, at the start, at the end
        solution = Solution((0, 0, 0), starts)
        assert Screen.of(instance, solution).clean()
        _agree(instance, solution)
