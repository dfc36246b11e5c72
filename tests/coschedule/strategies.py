"""Hypothesis strategies: small random coschedule instances."""

from hypothesis import strategies as st

from hpcsched.coschedule import Instance


@st.composite
def instances(draw, min_n=1, max_n=4, all_ones=False, density=None):
    n = draw(st.integers(min_n, max_n))
    durations = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    rate = st.sampled_from([1.0]) if all_ones else st.floats(0.05, 1.0).map(lambda r: round(r, 3))
    pairs = []
    for a in range(n):
        for b in range(a + 1, n):
            present = (
                True if all_ones else (draw(st.booleans()) if density is None else draw(st.floats(0, 1)) < density)
            )
            if present:
                pairs.append((a, b, draw(rate), draw(rate)))
    return Instance.create(durations, pairs, name="hyp")
