"""Issue 20: huge numbers round trip, generator sizes, time limits (locality)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.fields import LARGEST_INTEGER
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.locality import Instance, Solution, validate
from hpcsched.locality.generate import generate_uniform


@st.composite
def extreme_instances(draw):
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    share = LARGEST_INTEGER // n
    durations = draw(st.lists(st.one_of(st.integers(1, 3), st.integers(share - 3, share)), min_size=n, max_size=n))
    replicas = [draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True)) for _ in range(n)]
    return Instance.create(m, np.array(durations, dtype=np.int64), replicas)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extreme_instances(), st.sampled_from(["cpsat", "milp", "brute-force", "lpt"]))
def test_solutions_of_extreme_instances_survive_the_file_round_trip(instance, method):
    result = run_method(instance, method, time_limit=5)
    assert result.status is not Status.ERROR, result.notes
    assert not any("IndexError" in note for note in result.notes)
    if result.solution is not None:
        text = json.loads(json.dumps(result.solution.to_data()))
        assert validate(instance, Solution.from_data(text, instance=instance)) == []


def test_milp_beyond_the_backend_range_says_so():
    instance = Instance.create(2, np.array([2**50, 2**50, 3], dtype=np.int64), [[0], [0, 1], [1]])
    result = run_method(instance, "milp", time_limit=5)
    assert result.status is Status.NOT_APPLICABLE and "2^40" in result.notes[0]
    assert run_method(instance, "cpsat", time_limit=5).status is Status.OPTIMAL  # integers: exact


def test_generator_refuses_a_size_it_cannot_allocate_with_the_figure():
    with pytest.raises(InvalidInstanceError, match=r"^n: 100000000000 tasks would take about .* GiB"):
        generate_uniform(seed=0, n=100_000_000_000)


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_a_tiny_time_limit_ends_promptly_without_raising(method):
    instance = generate_uniform(seed=1, n=400, m=20, durations="lognormal")
    result = run_method(instance, method, time_limit=1e-6)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), (result.status, result.notes)


def test_milp_communication_tiny_time_limit():
    instance = generate_uniform(seed=1, n=40, m=10, durations="lognormal", objective="communication", remote_cost=5)
    result = run_method(instance, "milp-communication", time_limit=1e-6)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), (result.status, result.notes)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_exact_methods_hold_their_time_limit_on_a_large_instance(method):
    instance = generate_uniform(seed=2, n=50_000, m=500, durations="lognormal")
    limit = 5.0
    started = time.monotonic()
    result = run_method(instance, method, time_limit=limit)
    assert time.monotonic() - started <= 1.2 * limit + 2, result.notes
    assert result.status is not Status.ERROR
