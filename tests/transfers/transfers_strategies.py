"""Hypothesis strategies and helpers shared by the transfers tests."""

from __future__ import annotations

from hypothesis import strategies as st

from hpcsched.transfers import Instance


@st.composite
def small_instances(
    draw, min_n: int = 1, max_n: int = 5, max_time: int = 9, allow_zero: bool = True, capacity: str = "any"
) -> Instance:
    """Random small instances; every task fits (M >= max m).

    ``capacity``: "any" (max m .. sum m), "unlimited" (sum m) or "sequential"
    (no two tasks fit together).
    """
    n = draw(st.integers(min_n, max_n))
    low = 0 if allow_zero else 1
    transfer = draw(st.lists(st.integers(low, max_time), min_size=n, max_size=n))
    compute = draw(st.lists(st.integers(low, max_time), min_size=n, max_size=n))
    if capacity == "sequential":
        memory = draw(st.lists(st.integers(6, 10), min_size=n, max_size=n))
        total = 11  # any two sum to at least 12 > 11 >= max m
    else:
        memory = draw(st.lists(st.integers(1, 10), min_size=n, max_size=n))
        total = sum(memory) if capacity == "unlimited" else draw(st.integers(max(memory), sum(memory)))
    return Instance.create(transfer, compute, memory, total, name="hypothesis")
