"""The validator refuses every mutation of a valid solution that the definition forbids.

Issue 20 item 7: a static allocation with a negative drain rate (another
application then drains faster than the file system allows), NaN rates, sums
above B and fractional granules were accepted when the Solution was built
directly. Valid solutions of random instances are mutated here, and each
mutant must be refused.
"""

from __future__ import annotations

import dataclasses
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpcsched import solve
from hpcsched.burstbuffer import Application, Instance, Platform, Solution, validate
from hpcsched.core.result import Status


@st.composite
def instances(draw):
    count = draw(st.integers(1, 3))
    apps = tuple(
        Application(
            f"a{k}",
            draw(st.floats(0, 5)),
            draw(st.integers(1, 3)),
            draw(st.floats(0, 10)),
            draw(st.floats(1, 200)),
            draw(st.floats(1, 50)),
        )
        for k in range(count)
    )
    bandwidth = draw(st.floats(1, 50))
    granule = draw(st.floats(1, 20))
    granules = draw(st.integers(count, 3 * count))
    return Instance("random", Platform(bandwidth, granules * granule, granule), apps)


def _valid_static(instance: Instance) -> Solution:
    result = solve(instance, "equal-split", time_limit=10)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes  # OPTIMAL: bound met
    assert result.solution.allocation == "static"
    assert validate(instance, result.solution) == []
    return result.solution


def _static(solution: Solution, granules=None, rates=None) -> Solution:
    return dataclasses.replace(
        solution,
        granules=tuple(solution.granules if granules is None else granules),
        drain_rates=tuple(solution.drain_rates if rates is None else rates),
    )


def _refused(instance: Instance, mutant: Solution) -> bool:
    return validate(instance, mutant) != []


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(instances(), st.data())
def test_bad_drain_rates_are_refused(instance, data):
    valid = _valid_static(instance)
    rates = list(valid.drain_rates)
    count = len(rates)
    k = data.draw(st.integers(0, count - 1))
    bad = data.draw(st.sampled_from([-1e-6, -1.0, math.nan, math.inf, -math.inf]))
    mutated = rates.copy()
    mutated[k] = bad
    assert _refused(instance, _static(valid, rates=mutated))
    if count > 1:
        # negative on one, the excess on another: the sum stays at B, the cheat is the sign
        shifted = rates.copy()
        shifted[k] = -0.5 * instance.platform.pfs_bandwidth
        shifted[(k + 1) % count] += 0.5 * instance.platform.pfs_bandwidth - rates[k]
        assert _refused(instance, _static(valid, rates=shifted))
    # over the bandwidth by more than the spec's 1e-9 tolerance
    over = [instance.platform.pfs_bandwidth * (1 + 1e-7) / count] * count
    assert _refused(instance, _static(valid, rates=over))
    assert _refused(instance, _static(valid, rates=rates[:-1]))
    assert _refused(instance, _static(valid, rates=[*rates, 0.0]))


@SETTINGS
@given(instances(), st.data())
def test_bad_granules_are_refused(instance, data):
    valid = _valid_static(instance)
    granules = list(valid.granules)
    count = len(granules)
    k = data.draw(st.integers(0, count - 1))
    for bad in (granules[k] + 0.5, float(granules[k]) + 0.25, -1, True, math.nan, "2"):
        mutated = granules.copy()
        mutated[k] = bad
        assert _refused(instance, _static(valid, granules=mutated)), bad
    too_many = granules.copy()
    too_many[k] += instance.platform.granules - sum(granules) + 1
    assert _refused(instance, _static(valid, granules=too_many))
    assert _refused(instance, _static(valid, granules=granules[:-1]))
    assert _refused(instance, _static(valid, granules=[*granules, 0]))


@SETTINGS
@given(instances())
def test_bad_dynamic_allocations_are_refused(instance):
    capacity = instance.platform.capacity
    for bad in (-1.0, math.nan, math.inf, capacity * (1 + 1e-6) + 1e-3):
        assert _refused(instance, Solution("dynamic", capacity=bad))
    assert _refused(instance, Solution("dynamic", capacity=capacity, drain_policy="lifo"))
    assert _refused(instance, Solution("shared", capacity=capacity))


def test_negative_drain_rate_of_the_issue_is_refused():
    apps = (Application("a", 0.0, 2, 1.0, 100.0, 10.0), Application("b", 0.0, 2, 1.0, 100.0, 10.0))
    instance = Instance("pair", Platform(10.0, 50.0, 10.0), apps)
    violations = validate(instance, Solution("static", granules=(2, 3), drain_rates=(-5.0, 15.0)))
    assert any("drain_rates[0]" in str(v) for v in violations)


def test_dynamic_reference_on_one_application_is_not_an_error():
    # S = 55 is not a multiple of G = 10: the static bound uses N G = 50 bytes of room, which the
    # dynamic buffer of 55 bytes beats; its bound must be the one of the dynamic allocation
    instance = Instance("one", Platform(10.0, 55.0, 10.0), (Application("a", 0.0, 3, 1.0, 100.0, 30.0),))
    result = solve(instance, "dynamic-reference", time_limit=10)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes  # OPTIMAL: bound met
    assert result.bound is not None and result.bound <= result.objective * (1 + 1e-9)
