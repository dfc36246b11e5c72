"""METIS (pymetis, the optional extra ``metis``): a valid heuristic, and a clear error without pymetis."""

import sys

import pytest
from hypothesis import given, settings

import hpcsched
from hpcsched.core.errors import SolverUnavailableError
from hpcsched.core.result import Status
from hpcsched.partition import Instance, bounds, generate_training

from .partition_strategies import small_instances

PROOF = {"deterministic_time": 20.0, "workers": 1, "stop_at_bound": False}


def test_metis_without_pymetis_raises_the_missing_solver_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymetis", None)  # `import pymetis` now raises ImportError
    instance = Instance.create([1, 1], [(0, 1, 1)], gpus=2, memory=10)
    with pytest.raises(SolverUnavailableError, match="pymetis"):
        hpcsched.solve(instance, "metis", time_limit=10)


@settings(max_examples=30)
@given(small_instances(max_n=6, memory_model=None))
def test_metis_is_valid_and_never_below_the_optimum_or_the_bound(instance):
    pytest.importorskip("pymetis", reason="pymetis (the optional extra 'metis') is not installed")
    result = hpcsched.solve(instance, "metis", time_limit=60, seed=0)
    assert result.status in (Status.FEASIBLE, Status.NOT_APPLICABLE, Status.INFEASIBLE), result.notes
    if result.status.has_solution:
        exact = hpcsched.solve(instance, "cpsat", time_limit=600, **PROOF)
        assert result.objective >= bounds.best(instance)
        assert exact.status is Status.OPTIMAL and result.objective >= exact.objective


def test_metis_keeps_two_unconnected_equal_chains_apart():
    pytest.importorskip("pymetis", reason="pymetis (the optional extra 'metis') is not installed")
    from hpcsched.partition.heuristics import metis_parts

    # two chains of 4 unit-time nodes with heavy transfers: the balanced zero-cut split is one chain per GPU
    edges = [(0, 1, 50), (1, 2, 50), (2, 3, 50), (4, 5, 50), (5, 6, 50), (6, 7, 50)]
    instance = Instance.create([1] * 8, edges, gpus=2, memory=100)
    parts = metis_parts(instance, seed=0)
    assert len(set(parts[:4])) == 1 and len(set(parts[4:])) == 1 and parts[0] != parts[4]
    result = hpcsched.solve(instance, "metis", time_limit=60, seed=0)
    assert result.objective == 4  # each chain back to back on its own GPU, no transfer


def test_metis_on_a_training_graph_stays_within_memory():
    pytest.importorskip("pymetis", reason="pymetis (the optional extra 'metis') is not installed")
    for memory_model in ("static", "dynamic"):
        instance = generate_training(seed=2, nodes=201, gpus=4, memory_slack=1.6, memory_model=memory_model)
        result = hpcsched.solve(instance, "metis", time_limit=60, seed=0)
        assert result.status is Status.FEASIBLE, result.notes
        assert result.kpis["peak_memory"] <= instance.memory
        assert result.objective >= bounds.best(instance)
