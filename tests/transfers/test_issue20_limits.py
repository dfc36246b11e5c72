"""Issue 20: huge numbers round trip, generator sizes, time limits (transfers)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpcsched import solve, validate
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.fields import LARGEST_INTEGER
from hpcsched.core.result import Status
from hpcsched.transfers import Instance, Solution
from hpcsched.transfers.generate import generate_uniform

EXACT = ("cpsat", "milp", "dp", "brute-force")


def test_reader_refuses_a_total_time_beyond_2_53_naming_the_task():
    with pytest.raises(InvalidInstanceError, match=r"data\.tasks\[1\].*2\^53"):
        Instance.create([2**52, 2**52], [0, 1], [1, 1], 2)
    Instance.create([2**52, 2**52 - 1], [0, 1], [1, 1], 2)  # exactly 2^53 in all: accepted


@st.composite
def extreme_instances(draw):
    n = draw(st.integers(1, 4))
    share = LARGEST_INTEGER // (2 * n)
    times = st.one_of(st.integers(0, 3), st.integers(share - 3, share))
    memory = draw(st.lists(st.one_of(st.integers(1, 3), st.integers(2**52, 2**53)), min_size=n, max_size=n))
    capacity = draw(st.integers(max(memory), LARGEST_INTEGER))
    return Instance.create(
        draw(st.lists(times, min_size=n, max_size=n)), draw(st.lists(times, min_size=n, max_size=n)), memory, capacity
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extreme_instances(), st.sampled_from([*EXACT, "johnson"]))
def test_solutions_of_extreme_instances_survive_the_file_round_trip(instance, method):
    # before: schedules ending beyond 2^53 were written as OPTIMAL and refused by the reader, and
    # the MILP ended in ERROR (HiGHS refused its big-M; PuLP raised an IndexError)
    result = (
        solve(instance, method, time_limit=5, lower_bound=False)
        if method in ("cpsat", "milp")
        else solve(instance, method, time_limit=5)
    )
    assert result.status is not Status.ERROR, result.notes
    assert not any("IndexError" in note for note in result.notes)
    if result.solution is not None:
        text = json.loads(json.dumps(result.solution.to_data()))
        assert validate(instance, Solution.from_data(text, instance=instance)) == []


def test_milp_beyond_the_backend_range_returns_the_warm_start():
    x = 2**50
    instance = Instance.create([x, x, 1, 7], [x, 3, x, x // 3], [3, 3, 3, 2], 5)
    result = solve(instance, "milp", time_limit=10, lower_bound=False)
    # the warm start happens to meet bounds.best here, which the registry takes as the proof (OPTIMAL)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL) and result.solution is not None
    assert any("numerical range" in note for note in result.notes)


def test_generator_refuses_a_size_above_its_documented_largest():
    # refused before any allocation, naming the option and the family's largest size
    with pytest.raises(InvalidInstanceError, match=r"^n: at most [0-9,]+ tasks .*Generator sizes.*got 1e\+11"):
        generate_uniform(seed=0, n=100_000_000_000)


@pytest.mark.parametrize("method", ["cpsat", "milp", "dp"])
def test_a_tiny_time_limit_ends_promptly_without_raising(method):
    # the optimum lies above every lower bound here, so no warm start can be proven optimal
    instance = generate_uniform(seed=1, n=10, memory_factor=1.5)
    result = solve(instance, method, time_limit=1e-6)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), (result.status, result.notes)


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_exact_methods_on_a_large_instance_stop_at_a_passed_limit_with_the_warm_start(method):
    # n = 150: the MILP alone has 33,000 binaries; a limit that has passed ends the method after the warm
    # start's rules, with their schedule, instead of building the model (no clock assert: the phase says it)
    instance = generate_uniform(seed=3, n=150, memory_factor=1.5)
    result = solve(instance, method, time_limit=1e-6)
    assert result.status is Status.FEASIBLE, result.notes
    assert "time limit reached while warm-starting" in result.notes[-1]
