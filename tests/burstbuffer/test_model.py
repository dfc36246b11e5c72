"""Instance/Solution parsing, hand-computed simulations, one test per validator rule."""

from __future__ import annotations

import json
import math

import pytest

from hpcsched.burstbuffer import Application, DrainSchedule, Instance, Platform, Solution, evaluate, validate
from hpcsched.burstbuffer.model.fluid import simulate
from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.io import read_instance, write_instance

from .bb_helpers import pair, single

APP = Application("x", 0.0, 2, 10.0, 100.0, 10.0)  # burst 10 s, period 20 s, nominal 40 s


def rules(instance, solution):
    return {v.rule for v in validate(instance, solution)}


# ------------------------------------------------------------ hand computations


def test_static_partition_that_fits_one_burst_has_no_slowdown():
    # size 50, drain 5: fills at 5 B/s for 10 s = exactly the burst, empties in the 10 s compute.
    kpis = evaluate(single(APP), Solution.static([5], [5.0]))
    assert kpis["max_dilation"] == pytest.approx(1.0, rel=1e-12)
    assert kpis["peak_occupancy"] == pytest.approx(50.0)


def test_static_partition_one_granule_short_throttles():
    # size 40: 8 s at r (80 bytes), then 20 bytes at d = 5 (4 s): bursts of 12 s, completion 44 s.
    kpis = evaluate(single(APP), Solution.static([4], [5.0]))
    assert kpis["max_dilation"] == pytest.approx(44.0 / 40.0, rel=1e-12)
    trace = simulate(single(APP), Solution.static([4], [5.0]))
    assert next(s for s in trace.segments[0] if s[2] == "throttled") == pytest.approx((18.0, 22.0, "throttled"))


def test_dynamic_pair_by_hand():
    # Two writers at 10 B/s into B = 10: the buffer grows at 10 B/s; S = 50 is full at t = 5,
    # then each writes at 5 B/s for its last 50 bytes: completion 15 s of nominal 10 s.
    assert evaluate(pair(capacity=50.0), Solution.dynamic(50.0))["max_dilation"] == pytest.approx(1.5)
    assert evaluate(pair(capacity=0.0), Solution.dynamic(0.0))["max_dilation"] == pytest.approx(2.0)
    assert evaluate(pair(capacity=100.0), Solution.dynamic(100.0))["max_dilation"] == pytest.approx(1.0)
    assert evaluate(pair(capacity=100.0), Solution.dynamic(100.0))["peak_occupancy"] == pytest.approx(100.0)


@pytest.mark.parametrize("policy", ["proportional", "fifo", "equal"])
def test_drain_policy_changes_contents_not_completions(policy):
    apps = (Application("a", 0.0, 2, 3.0, 60.0, 12.0), Application("b", 2.0, 3, 1.0, 30.0, 9.0))
    instance = Instance("p", Platform(8.0, 40.0, 5.0), apps)
    base = simulate(instance, Solution.dynamic(40.0, "proportional"))
    trace = simulate(instance, Solution.dynamic(40.0, policy))
    assert trace.completion == pytest.approx(base.completion, rel=1e-12)
    # trace.contents is clamped at 0: a negative per-application content shows only as a violation
    assert not trace.violations, trace.violations
    # the per-application contents add up to the aggregate occupancy at every event
    assert max(sum(row) for row in trace.contents) == pytest.approx(trace.peak_occupancy, rel=1e-9)
    for row, reference in zip(trace.contents, base.contents, strict=False):
        assert sum(row) == pytest.approx(sum(reference), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    "policy, bookkeeping", [("equal", "_equal_share_contents"), ("proportional", "_proportional_contents")]
)
def test_negative_contents_are_a_violation(monkeypatch, policy, bookkeeping):
    # what the policy test above relies on: contents going negative are reported, not hidden by the clamp
    import hpcsched.burstbuffer.model.dynamic_events as events

    original = getattr(events, bookkeeping)
    monkeypatch.setattr(events, bookkeeping, lambda *args: [c - 5.0 for c in original(*args)])
    apps = (Application("a", 0.0, 2, 3.0, 60.0, 12.0), Application("b", 2.0, 3, 1.0, 30.0, 9.0))
    trace = simulate(Instance("p", Platform(8.0, 40.0, 5.0), apps), Solution.dynamic(40.0, policy))
    assert "occupancy" in {v.rule for v in trace.violations}
    assert min(min(row) for row in trace.contents) >= 0  # the clamp: this alone proves nothing


def test_efficiency_is_node_weighted_compute_fraction():
    kpis = evaluate(single(APP), Solution.static([4], [5.0]))
    assert kpis["efficiency"] == pytest.approx(20.0 / 44.0)


# ------------------------------------------------------------ one test per rule


def test_rule_capacity_static_and_dynamic():
    assert "capacity" in rules(single(APP), Solution.static([6], [5.0]))  # N = 5
    assert "capacity" in rules(single(APP), Solution.dynamic(60.0))


def test_rule_occupancy_at_events():
    # a dynamic buffer declared larger than the platform's S is caught at the event where it overflows S
    found = rules(pair(capacity=50.0), Solution.dynamic(100.0))
    assert {"capacity", "occupancy"} <= found
    # (write-rate and the event budget are invariants of the simulator: no allocation can break them)


def test_rule_drain_constant_and_schedule():
    assert "drain" in rules(pair(), Solution.static([2, 2], [6.0, 6.0]))
    schedule = DrainSchedule((0.0, 5.0, 20.0), ((5.0, 9.0), (5.0, 3.0)))  # 12 > B on [5, 20)
    sized = pair(objective="sizing-static")
    assert "drain" in rules(sized, Solution.static([10, 10], [5.0, 5.0], schedule))


def test_rule_allocation_kind():
    assert "allocation" in rules(pair(objective="sizing-dynamic"), Solution.static([5, 5], [5.0, 5.0]))
    assert "allocation" in rules(pair(objective="sizing-static"), Solution.dynamic(100.0))
    schedule = DrainSchedule((0.0, 20.0), ((5.0,), (5.0,)))
    assert "allocation" in rules(pair(), Solution.static([2, 2], [5.0, 5.0], schedule))


def test_rule_starvation():
    assert "starvation" in rules(single(APP), Solution.static([0], [0.0]))


def test_rule_slowdown_for_sizing():
    assert "slowdown" in rules(pair(objective="sizing-dynamic"), Solution.dynamic(99.0))
    assert rules(pair(objective="sizing-dynamic"), Solution.dynamic(100.0)) == set()


def test_feasible_solutions_have_no_violation():
    assert validate(single(APP), Solution.static([5], [5.0])) == []
    assert validate(pair(), Solution.dynamic(50.0, "fifo")) == []


# ------------------------------------------------------------ parsing


def good_data():
    return {
        "platform": {"pfs_bandwidth": 10.0, "capacity": 50.0, "granule": 10.0},
        "applications": [{"name": "x", "release": 0, "iterations": 2, "compute": 10, "volume": 100, "rate": 10}],
    }


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["platform"].update(pfs_bandwidth=0), "data.platform.pfs_bandwidth"),
        (lambda d: d["platform"].update(capacity=-1), "data.platform.capacity"),
        (lambda d: d["platform"].update(granule=float("nan")), "data.platform.granule"),
        (lambda d: d["applications"][0].update(rate="fast"), "data.applications[0].rate"),
        (lambda d: d["applications"][0].update(iterations=1.5), "data.applications[0].iterations"),
        (lambda d: d["applications"][0].update(volume=0), "data.applications[0].volume"),
        (lambda d: d["applications"][0].pop("compute"), "data.applications[0].compute"),
        (lambda d: d["applications"].append(dict(d["applications"][0])), "data.applications[1].name"),
        (lambda d: d.update(objective="fastest"), "data.objective"),
        (lambda d: d.update(applications=[]), "data.applications"),
        # unknown keys: a misspelt optional field used to fall back to its default silently
        (lambda d: d.update(objectve="sizing-static"), "data.objectve"),
        (lambda d: d["platform"].update(bandwidth=5.0), "data.platform.bandwidth"),
        (lambda d: d["applications"][0].update(node=64), "data.applications[0].node"),
    ],
)
def test_bad_instance_names_the_field(mutate, field):
    data = good_data()
    mutate(data)
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(data, name="bad", time_unit="s", source={})
    assert error.value.field == field


def test_bad_solution_names_the_field():
    instance = single(APP)
    with pytest.raises(InvalidInstanceError, match="granules"):
        Solution.from_data({"allocation": "static", "granules": [1, 2], "drain_rates": [1.0]}, instance=instance)
    with pytest.raises(InvalidInstanceError, match="drain_rates"):
        Solution.from_data({"allocation": "static", "granules": [1], "drain_rates": [-1.0]}, instance=instance)
    with pytest.raises(InvalidInstanceError, match="allocation"):
        Solution.from_data({"allocation": "elastic"}, instance=instance)
    with pytest.raises(InvalidInstanceError, match="times"):
        Solution.from_data(
            {
                "allocation": "static",
                "granules": [1],
                "drain_rates": [1.0],
                "drain_schedule": {"times": [0, 0], "rates": [[1.0]]},
            },
            instance=instance,
        )


def test_unknown_solution_keys_are_refused():
    instance = single(APP)
    with pytest.raises(InvalidInstanceError) as error:
        Solution.from_data({"allocation": "dynamic", "capacity": 50.0, "drain_polcy": "fifo"}, instance=instance)
    assert error.value.field == "drain_polcy"
    with pytest.raises(InvalidInstanceError) as error:  # granules mean nothing to a dynamic allocation
        Solution.from_data({"allocation": "dynamic", "capacity": 50.0, "granules": [1]}, instance=instance)
    assert error.value.field == "granules"
    with pytest.raises(InvalidInstanceError) as error:
        Solution.from_data(
            {
                "allocation": "static",
                "granules": [1],
                "drain_rates": [1.0],
                "drain_schedule": {"times": [0, 1], "rates": [[1.0]], "rate": 2},
            },
            instance=instance,
        )
    assert error.value.field == "drain_schedule.rate"


def test_unknown_key_in_a_file_is_one_line_naming_it(tmp_path):
    path = tmp_path / "typo.json"
    write_instance(pair(), path)
    document = json.loads(path.read_text())
    document["data"]["objectve"] = "sizing-static"  # used to solve the sharing problem instead, OPTIMAL
    path.write_text(json.dumps(document))
    with pytest.raises(InvalidInstanceError) as error:
        read_instance(path)
    assert error.value.field == "data.objectve" and "typo.json" in str(error.value)


def test_schema_closes_the_records_the_reader_closes():
    from hpcsched.burstbuffer.model import APPLICATION_KEYS, DATA_KEYS, DATA_SCHEMA, PLATFORM_KEYS

    assert DATA_SCHEMA["additionalProperties"] is False and set(DATA_SCHEMA["properties"]) == set(DATA_KEYS)
    platform = DATA_SCHEMA["properties"]["platform"]
    assert platform["additionalProperties"] is False and set(platform["properties"]) == set(PLATFORM_KEYS)
    items = DATA_SCHEMA["properties"]["applications"]["items"]
    assert items["additionalProperties"] is False and set(items["properties"]) == set(APPLICATION_KEYS)


def test_instance_in_code_is_checked():
    # Application is plain data; the Instance constructor runs the file checks on it.
    with pytest.raises(InvalidInstanceError, match=r"applications\[0\]\.release"):
        Instance("bad", single(APP).platform, (Application("x", -1.0, 1, 1.0, 1.0, 1.0),))


def test_file_round_trip_and_malformed_json(tmp_path):
    instance = pair(objective="sizing-static")
    path = tmp_path / "pair.json"
    write_instance(instance, path)
    again = read_instance(path)
    assert again.to_data() == instance.to_data() and again.objective == "sizing-static"
    solution = Solution.static([3, 4], [5.0, 5.0], DrainSchedule((0.0, 1.0), ((1.0,), (2.0,))))
    assert Solution.from_data(json.loads(json.dumps(solution.to_data())), instance=instance) == solution
    broken = tmp_path / "broken.json"
    broken.write_text('{"problem": "burstbuffer", "data": {')
    with pytest.raises(FormatError):
        read_instance(broken)
    document = json.loads(path.read_text())
    document["data"]["applications"][1]["rate"] = -3
    path.write_text(json.dumps(document))
    with pytest.raises(InvalidInstanceError, match=r"applications\[1\]\.rate"):
        read_instance(path)
    assert math.isfinite(evaluate(again, Solution.dynamic(150.0))["objective"])


def test_proportional_contents_match_a_numerical_integration():
    # b_k' = a_k - B b_k / Q while Q > 0 (drain shared in proportion to backlog), integrated by small steps.
    apps = (Application("a", 0.0, 1, 0.0, 60.0, 12.0), Application("b", 2.0, 1, 0.0, 30.0, 9.0))
    instance = Instance("p", Platform(8.0, 100.0, 10.0), apps)
    trace = simulate(instance, Solution.dynamic(100.0, "proportional"))
    step, now, contents = 1e-4, 0.0, [0.0, 0.0]
    checkpoints = {round(t, 6): row for t, row in zip(trace.times, trace.contents, strict=False) if 0 < t < 9}
    seen = 0
    while now < 9:
        inflow = [12.0 if now < 5 else 0.0, 9.0 if 2 <= now < 2 + 30 / 9 else 0.0]
        total = sum(contents)
        drain = [8.0 * c / total if total > 1e-12 else 0.0 for c in contents]
        contents = [max(0.0, c + (a - d) * step) for c, a, d in zip(contents, inflow, drain, strict=False)]
        now += step
        for t, row in checkpoints.items():
            if abs(now - t) < step / 2:
                assert contents == pytest.approx(row, rel=2e-3, abs=1e-3)
                seen += 1
    assert seen >= 2


def test_equal_share_contents_by_hand():
    # a writes 12 B/s from 0 to 5, b writes 9 B/s from 2; B = 8 split equally between non-empty
    # buffers: a gains 4/s alone, then both drain 4/s: a gains 8/s, b 5/s. At t = 5: a 32, b 15.
    apps = (Application("a", 0.0, 1, 0.0, 60.0, 12.0), Application("b", 2.0, 1, 0.0, 30.0, 9.0))
    trace = simulate(Instance("e", Platform(8.0, 100.0, 10.0), apps), Solution.dynamic(100.0, "equal"))
    at_five = trace.contents[trace.times.index(pytest.approx(5.0))]
    assert at_five == pytest.approx([32.0, 15.0])
