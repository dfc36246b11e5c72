"""Hypothesis strategies: random small chains at budgets between the proven minimum and the store-all peak."""

from __future__ import annotations

from hypothesis import strategies as st

from hpcsched.checkpoint import Instance, memory_lower_bound, store_all_peak


@st.composite
def small_chains(draw, max_length: int = 4, max_size: int = 4, transients: bool = True):
    L = draw(st.integers(1, max_length))
    fw = draw(st.lists(st.integers(0, 6), min_size=L, max_size=L))
    bw = draw(st.lists(st.integers(0, 6), min_size=L + 1, max_size=L + 1))
    x = draw(st.lists(st.integers(0, max_size), min_size=L + 1, max_size=L + 1))
    extra = draw(st.lists(st.integers(0, 2), min_size=L, max_size=L))
    xbar = [None] + [x[i + 1] + extra[i] for i in range(L)]
    if transients:
        ftmp = draw(st.lists(st.integers(0, 1), min_size=L, max_size=L))
        btmp = draw(st.lists(st.integers(0, 1), min_size=L + 1, max_size=L + 1))
    else:
        ftmp, btmp = [0] * L, [0] * (L + 1)
    probe = Instance.create(fw, bw, x, xbar, 10**12, ftmp=ftmp, btmp=btmp)
    low, high = memory_lower_bound(probe), store_all_peak(probe)
    memory = draw(st.integers(low, max(low, high)))
    return probe.with_memory(memory, name=f"random-L{L}")
