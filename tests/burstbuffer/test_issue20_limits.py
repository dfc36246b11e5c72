"""Issue 20: extreme values round trip, generator sizes, time limits (burstbuffer)."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hpcsched.burstbuffer import Application, Instance, Platform, Solution, generate_periodic, validate
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status

BIG = float(2**52)


@st.composite
def extreme_instances(draw):
    count = draw(st.integers(1, 2))
    value = st.sampled_from([1.0, 3.0, BIG])
    apps = tuple(Application(f"a{k}", draw(st.sampled_from([0.0, BIG])), draw(st.integers(1, 2)), draw(value),
                             draw(value), draw(value)) for k in range(count))
    granule = draw(value)
    platform = Platform(draw(value), granule * draw(st.integers(count, 3 * count)), granule)
    try:
        return Instance("x", platform, apps, draw(st.sampled_from(["sharing", "sizing-dynamic", "sizing-static"])))
    except InvalidInstanceError:
        assume(False)  # refused at read time (see the test below): no method ever sees it


def test_reader_refuses_a_timeline_doubles_cannot_resolve():
    # before: read fine, and a release of 2^52 s rounded a 1/3 s burst away: dilation 0.75 < 1, and
    # the bound 1 above it made the exact method end in ERROR
    app = Application("a0", BIG, 1, 1.0, 1.0, 3.0)
    with pytest.raises(InvalidInstanceError, match=r"data\.applications\[0\]\.release: the timeline ends"):
        Instance("x", Platform(1.0, 1.0, 1.0), (app,))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extreme_instances())
def test_solutions_of_extreme_instances_survive_the_file_round_trip(instance):
    result = run_method(instance, time_limit=20)
    assert result.status is not Status.ERROR, result.notes
    if result.solution is not None:
        text = json.loads(json.dumps(result.solution.to_data()))
        assert validate(instance, Solution.from_data(text, instance=instance)) == []


def test_generator_refuses_a_size_it_cannot_allocate_with_the_figure():
    with pytest.raises(InvalidInstanceError, match=r"^n: 100000000000 applications would take about .* GiB"):
        generate_periodic(seed=0, n=100_000_000_000)


@pytest.mark.parametrize(("method", "objective"), [("sharing-dp", "sharing"), ("sharing-milp", "sharing"),
                                                   ("sizing-static-lp", "sizing-static")])
def test_a_tiny_time_limit_ends_promptly_without_raising(method, objective):
    instance = generate_periodic(seed=1, n=6, granules=16, objective=objective)
    result = run_method(instance, method, time_limit=1e-6)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), (result.status, result.notes)


@pytest.mark.slow
@pytest.mark.xfail(reason="known gap (issue 20 item 3): one bisection step tabulates K (N + 1) single-application "
                          "bisections and the Pyomo sizing model is built by rules, neither checks the deadline "
                          "inside; measured 8-12 s for a 5 s limit on 2 loaded cores", strict=False)
@pytest.mark.parametrize(("method", "objective"), [("sharing-dp", "sharing"), ("sharing-milp", "sharing"),
                                                   ("sizing-static-lp", "sizing-static")])
def test_exact_methods_hold_their_time_limit_on_a_large_instance(method, objective):
    instance = generate_periodic(seed=2, n=40, granules=200, iterations=(5, 20), objective=objective)
    limit = 5.0
    started = time.monotonic()
    result = run_method(instance, method, time_limit=limit)
    assert time.monotonic() - started <= 1.2 * limit + 2, result.notes
    assert result.status is not Status.ERROR
