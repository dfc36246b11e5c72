"""Hypothesis strategies: small random DAGs and in-trees as treemem instances."""

from __future__ import annotations

from hypothesis import strategies as st

from hpcsched.treemem import Instance


@st.composite
def dags(draw, min_n: int = 1, max_n: int = 7, max_size: int = 9) -> Instance:
    """A DAG: edges only from lower to higher rank of a random permutation."""
    n = draw(st.integers(min_n, max_n))
    rank = draw(st.permutations(range(n)))
    edges = [(rank[i], rank[j]) for i in range(n) for j in range(i + 1, n) if draw(st.booleans())]
    execs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    outputs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    return Instance.create(execs, outputs, edges, name="hypothesis-dag")


@st.composite
def trees(draw, min_n: int = 1, max_n: int = 12, max_size: int = 9) -> Instance:
    """An in-tree rooted at node 0: node k hangs under some earlier node."""
    n = draw(st.integers(min_n, max_n))
    edges = [(k, draw(st.integers(0, k - 1))) for k in range(1, n)]
    execs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    outputs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    return Instance.create(execs, outputs, edges, name="hypothesis-tree")
