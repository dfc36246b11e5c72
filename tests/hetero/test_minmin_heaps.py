"""MinMin by heaps per machine class against the cached MinMin it replaced (tests/hetero/reference_minmin.py).

The schedules must be identical placement for placement (same tie-breaking),
on layered, fork-join and arbitrary DAGs, with and without communication,
with small m and k (one type absent included), and the validator must accept them.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.core.registry import run_method
from hpcsched.hetero import Instance, generate_fork_join, generate_layered
from hpcsched.hetero.heuristics import minmin_placements
from hpcsched.hetero.model import Solution, validate
from hpcsched.taskgraph import ListScheduler, NoPlacementError

from .hetero_strategies import small_instances
from .reference_minmin import reference_minmin_placements


def _layered_edges(draw, n: int) -> list[tuple[int, int]]:
    layers = draw(st.integers(1, max(1, n // 2)))
    layer_of = sorted(draw(st.lists(st.integers(0, layers - 1), min_size=n, max_size=n)))
    edges = []
    for v in range(n):
        for u in range(v):
            if layer_of[u] == layer_of[v] - 1 and draw(st.integers(0, 2)) == 0:
                edges.append((u, v))
    return edges


def _fork_join_edges(draw, n: int) -> list[tuple[int, int]]:
    width = draw(st.integers(1, max(1, n - 2)))
    edges, fork = [], 0
    while fork + width + 1 < n:
        join = fork + width + 1
        for i in range(1, width + 1):
            edges += [(fork, fork + i), (fork + i, join)]
        fork = join
    return edges


@st.composite
def shaped_instances(draw, max_n: int, max_time: int = 6) -> Instance:
    """Layered or fork-join DAGs, small times (many ties), optional communication and forbidden types, m, k <= 3."""
    n = draw(st.integers(1, max_n))
    shape = draw(st.sampled_from(["layered", "fork-join"]))
    edges = _layered_edges(draw, n) if shape == "layered" else _fork_join_edges(draw, n)
    comm = draw(st.booleans())
    edges3 = [(u, v, draw(st.integers(0, 5)) if comm else 0) for u, v in edges]
    m = draw(st.integers(0, 3))
    k = draw(st.integers(0 if m else 1, 3))
    cpu: list[int | None] = []
    gpu: list[int | None] = []
    for _ in range(n):
        c, g = draw(st.integers(0, max_time)), draw(st.integers(0, max_time))
        forbid = draw(st.integers(0, 5))
        if forbid == 0 and k > 0:
            c = None
        elif forbid == 1 and m > 0:
            g = None
        cpu.append(c)
        gpu.append(g)
    return Instance.create(cpu, gpu, edges3, cpus=m, gpus=k, name=f"hypothesis-{shape}")


def _check_identical_and_valid(instance: Instance) -> None:
    placements = minmin_placements(instance)
    assert placements == reference_minmin_placements(instance)
    assert validate(instance, Solution.from_placements(placements)) == []


@settings(max_examples=300)
@given(shaped_instances(max_n=12))
def test_small_shaped_instances_give_the_reference_schedule(instance):
    _check_identical_and_valid(instance)


@settings(max_examples=60)
@given(shaped_instances(max_n=80, max_time=20))
def test_medium_shaped_instances_give_the_reference_schedule(instance):
    _check_identical_and_valid(instance)


@settings(max_examples=150)
@given(small_instances(max_n=20, max_machines=3))
def test_arbitrary_dags_give_the_reference_schedule(instance):
    _check_identical_and_valid(instance)


@settings(max_examples=30)
@given(
    st.integers(0, 10_000),
    st.sampled_from(["layered", "fork-join"]),
    st.integers(1, 3),
    st.integers(0, 3),
    st.integers(0, 30),
)
def test_generated_graphs_with_communication_give_the_reference_schedule(seed, shape, m, k, max_delay):
    if shape == "layered":
        base = generate_layered(seed=seed, n=150, layers=15, edge_probability=0.2, cpus=m, gpus=k)
    else:
        base = generate_fork_join(seed=seed, phases=4, width=30, cpus=m, gpus=k)
    edges = [(e.u, e.v, (e.u * 7 + e.v * 3 + seed) % (max_delay + 1)) for e in base.edges]
    instance = Instance.create(
        [t.cpu for t in base.tasks], [t.gpu for t in base.tasks], edges, cpus=m, gpus=k, name=base.name
    )
    _check_identical_and_valid(instance)


def test_one_best_placement_per_task(monkeypatch):
    """The point of the change: the reference re-evaluates ready tasks, the heaps evaluate each task once."""
    instance = generate_layered(seed=3, n=3000, layers=30, edge_probability=0.03, cpus=10, gpus=4)
    calls = []
    original = ListScheduler.best_placement

    def counting(self, task):
        calls.append(task)
        return original(self, task)

    monkeypatch.setattr(ListScheduler, "best_placement", counting)
    new = minmin_placements(instance)
    new_calls = len(calls)
    calls.clear()
    old = reference_minmin_placements(instance)
    assert new == old
    assert new_calls == instance.n
    assert len(calls) > 5 * instance.n  # the reference's O(n·r) behaviour on this shape


def test_a_task_that_can_run_nowhere_raises_like_the_reference():
    instance = Instance.create([1, None], [1, 2], [(0, 1)], cpus=1, gpus=0)
    with pytest.raises(NoPlacementError, match="'t1' can run on no available machine"):
        reference_minmin_placements(instance)
    with pytest.raises(NoPlacementError, match="'t1' can run on no available machine"):
        minmin_placements(instance)


def test_registry_run_is_validated_and_feasible():
    instance = generate_layered(seed=1, n=400, layers=20, edge_probability=0.1, cpus=3, gpus=2)
    result = run_method(instance, "minmin", time_limit=60)
    assert result.status == "FEASIBLE"
    assert result.solution == Solution.from_placements(reference_minmin_placements(instance))
