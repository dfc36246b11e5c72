"""Hypothesis strategies shared by the hetero tests."""

from __future__ import annotations

from hypothesis import strategies as st

from hpcsched.hetero import Instance


@st.composite
def small_instances(
    draw,
    min_n: int = 1,
    max_n: int = 5,
    max_time: int = 9,
    edges: bool = True,
    comm: bool = True,
    max_machines: int = 2,
    forbid: bool = True,
    cpus=None,
    gpus=None,
) -> Instance:
    """Random small instances in which every task can run on an available type."""
    n = draw(st.integers(min_n, max_n))
    m = draw(st.integers(0, max_machines)) if cpus is None else cpus
    k = draw(st.integers(0 if m else 1, max_machines)) if gpus is None else gpus
    cpu, gpu = [], []
    for _ in range(n):
        c = draw(st.integers(0, max_time))
        g = draw(st.integers(0, max_time))
        if forbid and draw(st.integers(0, 4)) == 0:
            if draw(st.booleans()):
                c = None
            else:
                g = None
        if m == 0 and c is not None and g is None:
            g = draw(st.integers(0, max_time))
        if k == 0 and g is not None and c is None:
            c = draw(st.integers(0, max_time))
        cpu.append(c)
        gpu.append(g)
    edge_list = []
    if edges:
        for v in range(n):
            for u in range(v):
                if draw(st.integers(0, 2)) == 0:
                    edge_list.append((u, v, draw(st.integers(0, 4)) if comm else 0))
    return Instance.create(cpu, gpu, edge_list, cpus=m, gpus=k, name="hypothesis")
