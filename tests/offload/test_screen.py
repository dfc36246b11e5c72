"""The validator's numpy screen (`model/screen.py`) against its worded Python rules.

`validate` returns [] as soon as `Screen.clean` says so and asks the Python rules otherwise, so the
screen must say "clean" exactly when the Python rules find nothing: on random chains and mutated
schedules (shifted steps and transfers, swapped starts, transfers made to overlap, allocations
moved onto release instants, budgets cut to the peak) the validator with the screen forced off
(`_screen` patched to give None, as for values beyond int64) and on must give the same violations,
and the screen's peaks must be the Python profile's. `validate` and `evaluate` keep the last
(instance, solution) pair's screen: the last tests make a stale screen give a wrong answer if it
were reused.
"""

from __future__ import annotations

import dataclasses
import importlib
from contextlib import contextmanager
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.offload import Instance, Solution, simulate
from hpcsched.offload.model import evaluate, memory_profile, validate
from hpcsched.offload.model.screen import Screen

from .offload_helpers import chains, rough_chains, small_instance

#: The module, not the function `validate` that the package exports under the same name.
rules_module = importlib.import_module("hpcsched.offload.model.validate")
screen_module = importlib.import_module("hpcsched.offload.model.screen")

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def screen_off():
    """`validate`/`evaluate` without the arrays: every rule checked and worded in Python."""
    with mock.patch.object(rules_module, "_screen", lambda instance, solution: None):
        yield


def python_rules(instance: Instance, solution: Solution) -> list:
    with screen_off():
        return validate(instance, solution)


def sweep_peak_after_allocation(instance: Instance, solution: Solution) -> int:
    """Highest usage right after an allocation, releases first at equal times (the Python sweep's order)."""
    events = []
    for start, end, size, _ in rules_module._residency(instance, solution):
        events += [(start, 1, size), (end, 0, -size)]
    usage, peak = 0, 0
    for _, kind, delta in sorted(events, key=lambda event: event[:2]):
        usage += delta
        peak = max(peak, usage) if kind == 1 else peak
    return peak


MUTATIONS = ("step", "step-swap", "transfer", "channel", "release-tie", "produced-tie", "add", "drop")


@st.composite
def schedules(draw, instance: Instance) -> Solution:
    """An as-early-as-possible schedule of a random offload set (raw random starts when none fits), mutated."""
    n = instance.n_layers
    chosen = draw(st.sets(st.sampled_from(instance.offloadable))) if instance.offloadable else set()
    base = simulate(instance, chosen) or simulate(instance, instance.offloadable)
    if base is None:
        horizon = instance.compute_time + 2 * n * (instance.latency + max(instance.activation) + 1)
        times = st.integers(0, horizon)
        base = Solution(
            tuple(sorted(chosen)),
            tuple(draw(st.lists(times, min_size=n, max_size=n))),
            tuple(draw(st.lists(times, min_size=n, max_size=n))),
            {i: draw(times) for i in chosen},
            {i: draw(times) for i in chosen},
        )
    forward, backward = list(base.forward_start), list(base.backward_start)
    out, into = dict(base.offload_start), dict(base.prefetch_start)
    ends = [b + d for b, d in zip(backward, instance.backward, strict=True)]
    ends += [f + d for f, d in zip(forward, instance.forward, strict=True)]
    step = st.integers(0, n - 1)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(MUTATIONS))
        starts = forward if draw(st.booleans()) else backward
        table = out if draw(st.booleans()) else into
        if kind == "step":
            starts[draw(step)] += draw(st.sampled_from([-1, 1]))
        elif kind == "step-swap":
            i, j = draw(step), draw(step)
            starts[i], starts[j] = starts[j], starts[i]
        elif kind == "add":  # a new transfer pair at times taken from the schedule (often ties)
            i = draw(st.sampled_from(instance.offloadable))
            out[i], into[i] = draw(st.sampled_from(ends)), draw(st.sampled_from(ends))
        elif not out:
            continue
        elif kind == "drop":  # keep the activation: more memory in use
            i = draw(st.sampled_from(sorted(out)))
            del out[i], into[i]
        elif kind == "transfer":
            i = draw(st.sampled_from(sorted(table)))
            table[i] += draw(st.sampled_from([-1, 1]))
        elif kind == "channel":  # i's transfer starts with j's offload or prefetch (one channel on half duplex)
            i, j = draw(st.sampled_from(sorted(out))), draw(st.sampled_from(sorted(out)))
            table[i] = draw(st.sampled_from([out[j], into[j]]))
        elif kind == "release-tie":  # allocate a prefetched activation at the instant a step releases
            i = draw(st.sampled_from(sorted(into)))
            into[i] = draw(st.sampled_from(ends))
        else:  # offload a_i the instant it is produced, or one before
            i = draw(st.sampled_from(sorted(out)))
            produced = 0 if i == 0 else forward[i - 1] + instance.forward[i - 1]
            out[i] = produced - draw(st.sampled_from([0, 0, 1]))
    return Solution(tuple(sorted(out)), tuple(forward), tuple(backward), out, into)


@st.composite
def instant_transfer_chains(draw) -> Instance:
    """Empty activations or infinite bandwidth: transfers of zero length, which occupy no channel."""
    n = draw(st.integers(1, 4))
    times = st.lists(st.integers(0, 4), min_size=n, max_size=n)
    return small_instance(
        draw(times),
        draw(times),
        draw(st.lists(st.integers(0, 6), min_size=n + 1, max_size=n + 1)),
        fraction=draw(st.sampled_from([0.0, 0.5])),
        bandwidth=draw(st.sampled_from([None, 1.0, 2.0])),
        latency=draw(st.sampled_from([0, 0, 1])),
        duplex=draw(st.sampled_from(["full", "half"])),
    )


@st.composite
def cases(draw) -> tuple[Instance, Solution]:
    """A chain and a schedule; the budget sometimes cut to the schedule's peak, or just below."""
    instance = draw(st.one_of(chains(max_layers=5), rough_chains(), instant_transfer_chains()))
    solution = draw(schedules(instance))
    cut = draw(st.sampled_from([None, 0, -1]))
    if cut is not None:
        peak = max((usage for _, usage in memory_profile(instance, solution)), default=0)
        instance = instance.with_memory(max(peak + cut, 0))
    return instance, solution


@SETTINGS
@given(cases())
def test_screen_is_clean_exactly_when_the_python_rules_find_nothing(case):
    instance, solution = case
    python = python_rules(instance, solution)
    assert validate(instance, solution) == python
    assert evaluate(instance, solution) == _evaluate_without_screen(instance, solution)
    if rules_module._structure_violations(instance, solution):
        return
    screen = Screen.of(instance, solution)
    assert screen is not None
    assert screen.clean() == (python == [])
    assert screen.peak() == max((usage for _, usage in memory_profile(instance, solution)), default=0)
    assert screen.peak_after_allocation() == sweep_peak_after_allocation(instance, solution)


def _evaluate_without_screen(instance: Instance, solution: Solution) -> dict[str, float]:
    with screen_off():
        return evaluate(instance, solution)


@SETTINGS
@given(cases())
def test_each_screen_matches_its_rule(case):
    # Finer than the verdict: a screen that raised a false alarm would go unseen above while another
    # rule is broken; here each screen answers for its own rule.
    instance, solution = case
    if rules_module._structure_violations(instance, solution):
        return
    screen = Screen.of(instance, solution)
    assert screen is not None
    pairs = (
        (screen._order_broken, rules_module._order_violations),
        (screen._transfers_broken, rules_module._transfer_violations),
        (screen._channels_broken, rules_module._channel_violations),
        (screen._zero_duration_broken, rules_module._zero_duration_violations),
    )
    for broken, rule in pairs:
        assert broken() == bool(rule(instance, solution)), rule.__name__
    swept = bool(rules_module._sweep_violations(instance, solution))
    assert (screen.peak_after_allocation() > instance.memory) == swept


@SETTINGS
@given(st.lists(st.tuples(st.integers(-2, 8), st.integers(0, 3)), max_size=6))
def test_channel_screen_is_exact_on_touching_and_empty_transfers(transfers):
    starts, ends = (np.array([x + d * k for x, d in transfers], dtype=np.int64) for k in (0, 1))
    overlapping = any(
        a < b + e and b < a + d and d and e for i, (a, d) in enumerate(transfers) for b, e in transfers[i + 1 :]
    )
    assert screen_module._overlap(starts, ends) == overlapping


def test_values_beyond_int64_are_left_to_python():
    instance = small_instance([1, 1], [1, 1], [1, 1, 1], fraction=1.0)
    far = 2**62
    solution = Solution((), (far, far + 1), (far + 3, far + 2), {}, {})
    assert Screen.of(instance, solution) is None
    assert validate(instance, solution) == []
    early = dataclasses.replace(solution, backward_start=(far + 3, far + 1))  # B2 before F2 ends
    assert [v.rule for v in validate(instance, early)] == ["order"]


# -- the last screen is kept: never for another schedule -------------------------------------
def _offloading_case() -> tuple[Instance, Solution]:
    instance = small_instance([2, 2, 2], [3, 3, 3], [4, 4, 4, 4], fraction=0.0)
    solution = simulate(instance, instance.offloadable)
    assert solution is not None and validate(instance, solution) == []
    return instance, solution


def test_an_equal_copy_gets_the_same_answer_and_a_mutated_one_its_own():
    instance, solution = _offloading_case()
    copy = Solution(
        solution.offloaded,
        solution.forward_start,
        solution.backward_start,
        dict(solution.offload_start),
        dict(solution.prefetch_start),
    )
    assert copy == solution and copy is not solution
    assert validate(instance, solution) == [] and validate(instance, copy) == []
    late = dict(solution.prefetch_start)
    i = solution.offloaded[0]
    late[i] = solution.backward_start[i]  # the prefetch now ends after B_{i+1} starts
    mutated = dataclasses.replace(solution, prefetch_start=late)
    assert "prefetch-deadline" in {v.rule for v in validate(instance, mutated)}
    assert validate(instance, solution) == []  # and back: the mutated schedule's screen is not reused
    assert validate(instance, mutated) == python_rules(instance, mutated)


def test_the_same_solution_on_another_instance_is_screened_again():
    instance, solution = _offloading_case()
    peak = evaluate(instance, solution)["peak_memory"]
    assert validate(instance, solution) == []
    tight = instance.with_memory(int(peak) - 1)
    assert "memory" in {v.rule for v in validate(tight, solution)}
    assert evaluate(tight, solution)["peak_memory"] == peak
    assert validate(instance, solution) == []


def test_evaluate_after_validating_another_schedule_reports_its_own_peak():
    instance, solution = _offloading_case()
    kept = simulate(instance.with_memory(10**9), ())  # no offload: a higher peak
    assert kept is not None
    kept_peak = max(usage for _, usage in memory_profile(instance, kept))
    assert kept_peak > evaluate(instance, solution)["peak_memory"]
    assert validate(instance, solution) == []
    assert evaluate(instance, kept)["peak_memory"] == kept_peak
    assert "memory" in {v.rule for v in validate(instance, kept)}  # a stale clean screen would say []
    assert hpcsched.validate(instance, solution) == []  # the registry goes through the same cache
    assert hpcsched.evaluate(instance, kept)["peak_memory"] == kept_peak
