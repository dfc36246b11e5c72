"""Instance/Solution checks, evaluate, and the validator (one test per rule)."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from hpcsched import evaluate, validate
from hpcsched.core.errors import FormatError, InvalidInstanceError, InvalidSolutionError
from hpcsched.core.io import read_instance, write_instance
from hpcsched.offload import Instance, Solution, simulate
from hpcsched.offload.model import memory_profile

from .offload_helpers import small_instance

DATA = {
    "forward": [2, 3, 4],
    "backward": [4, 6, 8],
    "activation": [10, 20, 30, 5],
    "memory": 100,
    "bandwidth_out": 2,
    "bandwidth_in": 2,
}


def make(**changes):
    return Instance.from_data({**DATA, **changes}, name="t", time_unit="us", source={})


def rules(violations):
    return {v.rule for v in violations}


def test_transfer_times_are_ceil_plus_latency():
    instance = make(activation=[10, 21, 30, 5], latency=3)
    assert instance.offload_time(1) == math.ceil(21 / 2) + 3 == 14
    assert make(bandwidth_out=None).offload_time(0) == 0


def test_no_offload_with_room_is_back_to_back():
    instance = make()
    solution = simulate(instance, ())
    kpis = evaluate(instance, solution)
    assert kpis["objective"] == 2 + 3 + 4 + 4 + 6 + 8
    assert kpis["overhead"] == 0
    # Peak by hand: during B_3: a0 + a1 + a2 + a3 + δ2 = 10 + 20 + 30 + 5 + 30 = 95.
    assert kpis["peak_memory"] == 95
    assert validate(instance, solution) == []


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"forward": [2, -3, 4]}, "data.forward[1]"),
        ({"forward": [2, float("nan"), 4]}, "data.forward[1]"),
        ({"backward": [4, 6]}, "data.backward"),
        ({"activation": [10, 20, 30]}, "data.activation"),
        ({"memory": "lots"}, "data.memory"),
        ({"bandwidth_out": 0}, "data.bandwidth_out"),
        ({"duplex": "quarter"}, "data.duplex"),
        ({"offloadable": [0, 3]}, "data.offloadable[1]"),
        ({"offloadable": [1, 1]}, "data.offloadable[1]"),
        ({"layers": ["a", "b"]}, "data.layers"),
        ({"forward": []}, "data.forward"),
    ],
)
def test_bad_data_names_the_field(changes, field):
    with pytest.raises(InvalidInstanceError) as error:
        make(**changes)
    assert error.value.field == field


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"bandwidth_out": 1e-300}, "data.bandwidth_out"),
        ({"bandwidth_in": 5e-324}, "data.bandwidth_in"),
        ({"latency": 2**52}, "data.latency"),
        ({"forward": [2**53, 2**53, 1]}, "data.forward"),
    ],
)
def test_transfer_times_beyond_2_53_name_the_field(changes, field):
    # 1e-300 B/us makes a transfer last ~1e301 us: CP-SAT's int64 domains overflow, HiGHS rounds.
    with pytest.raises(InvalidInstanceError, match="2\\^53") as error:
        make(**changes)
    assert error.value.field == field


def test_transfer_times_up_to_2_53_are_accepted():
    # Offloadable a_0..a_2 (10 + 20 + 30 bytes) at 1 byte per 2^46 us: 2 * 60 * 2^46 + 27 < 2^53 = 128 * 2^46.
    instance = make(bandwidth_out=2.0**-46, bandwidth_in=2.0**-46)
    assert instance.offload_time(2) == 30 * 2**46
    with pytest.raises(InvalidInstanceError) as error:  # 60 * 2^46 + 60 * 2^47 > 2^53: the slower direction named
        make(bandwidth_out=2.0**-46, bandwidth_in=2.0**-47)
    assert error.value.field == "data.bandwidth_in"


@pytest.mark.parametrize("key", ["latancy", "offloadble", "bandwidth"])
def test_unknown_data_key_is_refused(key):
    # A misspelt optional field would otherwise read as its default (latency 0, everything offloadable).
    with pytest.raises(InvalidInstanceError, match="is not a field") as error:
        make(**{key: 1000})
    assert error.value.field == f"data.{key}"


def test_data_keys_are_the_schema_properties():
    from hpcsched.offload import DATA_SCHEMA
    from hpcsched.offload.model import DATA_KEYS

    assert set(DATA_KEYS) == set(DATA_SCHEMA["properties"]) and DATA_SCHEMA["additionalProperties"] is False


def test_missing_key_named():
    data = dict(DATA)
    del data["memory"]
    with pytest.raises(InvalidInstanceError, match=r"data\.memory"):
        Instance.from_data(data, name="t", time_unit="us", source={})


def test_round_trip_and_malformed_file(tmp_path):
    instance = make(layers=["a", "b", "c"], offloadable=[0, 2])
    path = tmp_path / "x.json"
    write_instance(instance, path)
    again = read_instance(path)
    assert again == instance
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(FormatError):
        read_instance(bad)
    document = json.loads(path.read_text())
    document["data"]["activation"][2] = -1
    bad.write_text(json.dumps(document))
    with pytest.raises(InvalidInstanceError, match=r"data.activation\[2\]"):
        read_instance(bad)


def test_solution_round_trip_and_bad_solution():
    instance = make(memory=70)
    solution = simulate(instance, (0, 1))
    assert Solution.from_data(solution.to_data(), instance=instance) == solution
    data = solution.to_data()
    data["offload_start"] = {"0": data["offload_start"]["0"]}
    with pytest.raises(InvalidSolutionError, match="offload_start"):
        Solution.from_data(data, instance=instance)
    data = solution.to_data()
    data["offloaded"] = [0, 1, 7]
    with pytest.raises(InvalidSolutionError, match="offloaded"):
        Solution.from_data(data, instance=instance)


@pytest.fixture
def offloading():
    instance = make(memory=70)
    solution = simulate(instance, (0, 1))
    assert validate(instance, solution) == []
    return instance, solution


def test_validator_rejects_prefetch_after_its_backward_step(offloading):
    instance, solution = offloading
    late = dict(solution.prefetch_start)
    late[1] = solution.backward_start[1] - instance.prefetch_time(1) + 1
    broken = dataclasses.replace(solution, prefetch_start=late)
    assert "prefetch-deadline" in rules(validate(instance, broken))


def test_validator_rejects_memory_over_budget_by_one_byte(offloading):
    instance, solution = offloading
    peak = max(usage for _, usage in memory_profile(instance, solution))
    assert validate(instance.with_memory(peak), solution) == []
    assert "memory" in rules(validate(instance.with_memory(peak - 1), solution))


def test_validator_rejects_a_zero_duration_step_that_cannot_hold_its_operands():
    # Every step takes no time, so every residency interval is empty and the sweep sees nothing;
    # B_2 still reads a_1, a_2 and writes δ_1 while a_0 is kept: 4 bytes > 3.  Found by the
    # offload-set search property test (its relaxed solution of makespan 0 passed the validator,
    # while every exact method proves 2).
    instance = Instance(
        name="zero",
        forward=(0, 0),
        backward=(0, 0),
        activation=(1, 1, 1),
        memory=3,
        bandwidth_out=1.0,
        bandwidth_in=1.0,
        offloadable=(0, 1),
    )
    instant = Solution(offloaded=(), forward_start=(0, 0), backward_start=(0, 0), offload_start={}, prefetch_start={})
    assert [v.message for v in validate(instance, instant)] == [
        "B2 (zero duration) needs 4 bytes with the kept activations before it > budget 3"
    ]
    assert validate(instance.with_memory(4), instant) == []
    # Offloading a_0 for [0, 1) and prefetching it for [1, 2) is the optimum.
    offloaded = Solution(
        offloaded=(0,), forward_start=(0, 0), backward_start=(2, 1), offload_start={0: 0}, prefetch_start={0: 1}
    )
    assert validate(instance, offloaded) == []


def test_validator_rejects_overlapping_transfers_on_half_duplex():
    instance = small_instance([5, 5, 5], [5, 5, 5], [4, 4, 4, 4], bandwidth=1.0, fraction=1.0)
    # Offload a_0 at 0 (4 units) and prefetch a_0 while a_1 is still being offloaded.
    solution = Solution(
        offloaded=(0, 1),
        forward_start=(0, 5, 10),
        backward_start=(40, 30, 20),
        offload_start={0: 0, 1: 5},
        prefetch_start={0: 6, 1: 15},
    )
    full = dataclasses.replace(instance, duplex="full")
    half = dataclasses.replace(instance, duplex="half")
    assert "channel" not in rules(validate(full, solution))
    assert "channel" in rules(validate(half, solution))


def test_validator_rejects_order_release_and_early_prefetch(offloading):
    instance, solution = offloading
    starts = list(solution.forward_start)
    starts[1] = starts[0]
    assert "order" in rules(validate(instance, dataclasses.replace(solution, forward_start=tuple(starts))))
    early = dict(solution.offload_start)
    early[1] = solution.forward_start[0]  # before F_1 ends
    assert "offload-release" in rules(validate(instance, dataclasses.replace(solution, offload_start=early)))
    prefetch = dict(solution.prefetch_start)
    prefetch[0] = solution.offload_start[0]
    assert "prefetch-after-offload" in rules(validate(instance, dataclasses.replace(solution, prefetch_start=prefetch)))
