"""The validator accepts feasible schedules and rejects each broken rule (hand-made cases)."""

from __future__ import annotations

from hpcsched import validate
from hpcsched.transfers import Instance, Solution

# Two tasks; M = 10 fits both together only if m_a + m_b <= 10.
A_B = Instance.create([2, 3], [4, 1], [6, 4], 10, names=["a", "b"])


def rules(instance, transfer_start, compute_start):
    return sorted({v.rule for v in validate(instance, Solution(transfer_start, compute_start))})


def test_feasible_schedule():
    # a: link [0,2) device [2,6); b: link [2,5) device [6,7); 6 + 4 = 10 <= 10 at once.
    assert rules(A_B, (0, 2), (2, 6)) == []


def test_link_overlap():
    assert rules(A_B, (0, 1), (2, 6)) == ["link-overlap"]


def test_device_overlap():
    assert rules(A_B, (0, 2), (2, 5)) == ["device-overlap"]


def test_compute_before_transfer_end():
    assert rules(A_B, (0, 2), (1, 6)) == ["precedence"]  # a computes at 1 < 0 + 2
    assert rules(A_B, (0, 2), (6, 4)) == ["precedence"]  # b computes at 4 < 2 + 3


def test_memory_overflow_by_one_byte():
    tight = Instance.create([2, 3], [4, 1], [6, 4], 9, names=["a", "b"])
    found = validate(tight, Solution((0, 2), (2, 6)))
    assert [v.rule for v in found] == ["memory"]
    assert "over by 1" in found[0].message
    assert rules(A_B, (0, 2), (2, 6)) == []  # the same schedule at M = 10 is fine


def test_release_before_allocation_at_the_same_instant():
    tight = Instance.create([2, 3], [4, 1], [6, 4], 9, names=["a", "b"])
    assert rules(tight, (0, 6), (2, 9)) == []  # a releases at 6 when b allocates at 6
    assert rules(tight, (0, 5), (2, 8)) == ["memory"]  # one unit earlier both are held


def test_empty_operations_overlap_nothing():
    zero = Instance.create([0, 4], [0, 4], [1, 1], 2)
    assert rules(zero, (2, 0), (3, 4)) == []  # empty transfer at 2 and empty compute at 3 inside busy periods


def test_wrong_length_and_negative_start():
    assert rules(A_B, (0,), (2,)) == ["size"]
    assert "negative-start" in rules(A_B, (-1, 2), (2, 6))
