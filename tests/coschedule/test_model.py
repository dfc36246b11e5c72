"""Instance/Solution checks, evaluate by hand, and one validator test per rule."""

import json
import math

import pytest

from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.io import read_instance, write_instance
from hpcsched.coschedule import Instance, Segment, Solution, evaluate, validate


def two_kernels():
    # p = (4, 6); together kernel 0 runs at 0.5, kernel 1 at 0.75: both finish at t = 8.
    return Instance.create([4, 6], [(0, 1, 0.5, 0.75)], name="two")


def data(**changes):
    base = {
        "kernels": [{"name": "a", "duration": 4}, {"name": "b", "duration": 6}],
        "pairs": [{"a": 0, "b": 1, "rate_a": 0.5, "rate_b": 0.75}],
    }
    base.update(changes)
    return base


def build(d):
    return Instance.from_data(d, name="t", time_unit="us", source={})


@pytest.mark.parametrize(
    "d, field",
    [
        ({"pairs": []}, "data.kernels"),
        (data(kernels=[{"duration": 0}]), "data.kernels[0].duration"),
        (data(kernels=[{"duration": 2.5}]), "data.kernels[0].duration"),
        (data(kernels=[{"duration": "4"}]), "data.kernels[0].duration"),
        (data(kernels=[{"name": "x"}]), "data.kernels[0].duration"),
        (data(kernels=[]), "data.kernels"),
        (data(pairs=[{"a": 0, "b": 5, "rate_a": 0.5, "rate_b": 0.5}]), "data.pairs[0].b"),
        (data(pairs=[{"a": 0, "b": 0, "rate_a": 0.5, "rate_b": 0.5}]), "data.pairs[0].b"),
        (data(pairs=[{"a": 0, "b": 1, "rate_a": float("nan"), "rate_b": 0.5}]), "data.pairs[0].rate_a"),
        (data(pairs=[{"a": 0, "b": 1, "rate_a": 0.0, "rate_b": 0.5}]), "data.pairs[0].rate_a"),
        (data(pairs=[{"a": 0, "b": 1, "rate_a": 0.5, "rate_b": 1.5}]), "data.pairs[0].rate_b"),
        (data(pairs=[{"a": 0, "b": 1, "rate_a": 0.5}]), "data.pairs[0].rate_b"),
        (
            data(
                pairs=[{"a": 0, "b": 1, "rate_a": 0.5, "rate_b": 0.5}, {"a": 1, "b": 0, "rate_a": 0.5, "rate_b": 0.5}]
            ),
            "data.pairs[1]",
        ),
        (data(pairs={"a": 0}), "data.pairs"),
        (data(gpu={"sms": -3}), "data.gpu.sms"),
        (data(kernels=[{"duration": 3, "profile": {"class": "gpu"}}]), "data.kernels[0].profile.class"),
    ],
)
def test_bad_instance_names_the_field(d, field):
    with pytest.raises(InvalidInstanceError) as error:
        build(d)
    assert error.value.field == field


def test_round_trip_and_files(tmp_path):
    instance = two_kernels()
    path = tmp_path / "two.json"
    write_instance(instance, path)
    again = read_instance(path)
    assert again.to_data() == instance.to_data()
    assert again.rate(0, 1) == 0.5 and again.rate(1, 0) == 0.75 and again.rate(0, 0) is None


def test_malformed_json_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"problem": "coschedule", "data": {')
    with pytest.raises(FormatError):
        read_instance(path)
    path.write_text(json.dumps({"problem": "coschedule", "data": {"kernels": [{"duration": -1}]}}))
    with pytest.raises(InvalidInstanceError) as error:
        read_instance(path)
    assert "data.kernels[0].duration" in str(error.value) and "bad.json" in str(error.value)


def test_bad_solution_data():
    instance = two_kernels()
    with pytest.raises(InvalidInstanceError) as error:
        Solution.from_data({"segments": [{"kernel": 7, "start": 0, "end": 1}]}, instance=instance)
    assert error.value.field == "segments[0].kernel"
    with pytest.raises(InvalidInstanceError):
        Solution.from_data({"segments": [{"kernel": 0, "start": "x", "end": 1}]}, instance=instance)


def test_evaluate_by_hand():
    instance = two_kernels()
    together = Solution((Segment(0, 0.0, 8.0), Segment(1, 0.0, 8.0)))
    assert validate(instance, together) == []
    kpis = evaluate(instance, together)
    assert kpis["objective"] == 8.0 and kpis["preemptions"] == 0 and kpis["idle_time"] == 0 and kpis["corun_time"] == 8
    # Preemptive: 1 runs alone [0,2) (progress 1/3), both [2,6) (0: 0.5*4/4 = 0.5, 1: 0.75*4/6 = 0.5),
    # 0 alone [6,8) (0.5 more), gap [8,9), 1 alone [9,10) (1/6 more): 1/3+1/2+1/6 = 1.
    split = Solution((Segment(1, 0, 2), Segment(0, 2, 8), Segment(1, 2, 6), Segment(1, 9, 10)))
    assert validate(instance, split) == []
    kpis = evaluate(instance, split)
    assert kpis["makespan"] == 10 and kpis["preemptions"] == 1 and kpis["preempted_fraction"] == 0.5
    assert math.isclose(kpis["idle_time"], 1.0)
    # Touching segments are one run, not a preemption.
    touching = Solution((Segment(0, 0, 2), Segment(0, 2, 4), Segment(1, 4, 10)))
    assert validate(instance, touching) == [] and evaluate(instance, touching)["preemptions"] == 0


def rules(instance, segments):
    return {v.rule for v in validate(instance, Solution(tuple(Segment(*s) for s in segments)))}


def test_validator_rejects_three_kernels_at_once():
    instance = Instance.create([2, 2, 2], [(0, 1, 1.0, 1.0), (0, 2, 1.0, 1.0), (1, 2, 1.0, 1.0)])
    assert "concurrency" in rules(instance, [(0, 0, 2), (1, 0, 2), (2, 0, 2)])
    assert rules(instance, [(0, 0, 2), (1, 0, 2), (2, 2, 4)]) == set()


def test_validator_rejects_incompatible_pair():
    instance = Instance.create([2, 2], [])
    assert "compatibility" in rules(instance, [(0, 0, 2), (1, 0, 2)])
    assert rules(instance, [(0, 0, 2), (1, 2, 4)]) == set()


def test_validator_rejects_kernel_stopping_short():
    instance = two_kernels()
    # Together until 6: kernel 0 has progress 0.75 only.
    assert "incomplete" in rules(instance, [(0, 0, 6), (1, 0, 8)])


def test_validator_rejects_overrun_missing_selfoverlap_and_bad_segments():
    instance = two_kernels()
    assert "overrun" in rules(instance, [(0, 0, 5), (1, 5, 11)])
    assert "missing" in rules(instance, [(0, 0, 4)])
    assert "self-overlap" in rules(instance, [(0, 0, 3), (0, 1, 2), (1, 4, 10)])
    assert "segment" in rules(instance, [(0, -1, 3), (1, 4, 10)])
    assert "segment" in rules(instance, [(0, 3, 3), (0, 0, 4), (1, 4, 10)])


def test_validator_is_exact_not_loose():
    instance = two_kernels()
    # A shortfall of 1e-6 of the work is far beyond the 1e-9 tolerance.
    assert "incomplete" in rules(instance, [(0, 0, 4 - 4e-6), (1, 4, 10)])
    assert rules(instance, [(0, 0, 4), (1, 4, 10)]) == set()
