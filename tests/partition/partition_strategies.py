"""Hypothesis strategies shared by the partition tests."""

from __future__ import annotations

import importlib.util

from hypothesis import strategies as st

from hpcsched.partition import HEURISTIC_METHODS, Instance

# metis needs the optional pymetis; without it test_metis.py skips with the reason and the loops leave it out
INSTALLED_HEURISTICS = tuple(
    method for method in HEURISTIC_METHODS if method != "metis" or importlib.util.find_spec("pymetis") is not None
)


@st.composite
def small_instances(
    draw,
    min_n: int = 1,
    max_n: int = 6,
    max_gpus: int = 3,
    memory_model: str | None = "static",
    groups: bool = True,
    pins: bool = True,
    max_time: int = 6,
) -> Instance:
    """Random small DAGs with memory from tight to loose, optional colocation pairs and pins."""
    n = draw(st.integers(min_n, max_n))
    gpus = draw(st.integers(1, max_gpus))
    model = memory_model or draw(st.sampled_from(["static", "dynamic"]))
    time = [draw(st.integers(0, max_time)) for _ in range(n)]
    persistent = [draw(st.integers(0, 5)) for _ in range(n)]
    output = [draw(st.integers(0, 4)) for _ in range(n)]
    edges = [(u, v, draw(st.integers(0, 4))) for v in range(n) for u in range(v) if draw(st.integers(0, 2)) == 0]
    group = [None] * n
    if groups and n >= 2 and draw(st.booleans()):
        group[0] = group[n - 1] = "pair"
    pin = [None] * n
    if pins and draw(st.integers(0, 3)) == 0:
        pin[draw(st.integers(0, n - 1))] = draw(st.integers(0, gpus - 1))
    total = sum(persistent) + sum(output)
    memory = draw(st.integers(max(persistent[v] + output[v] for v in range(n)), max(1, total)))
    return Instance.create(
        time,
        edges,
        gpus=gpus,
        memory=memory,
        persistent=persistent,
        output=output,
        group=group,
        pin=pin,
        memory_model=model,
        name="hypothesis",
    )
