"""Importer of the msr-fiddle/dnn-partitioning graphs (skipped without ../shared/data) and its errors."""

from __future__ import annotations

import json

import pytest

import hpcsched
from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.result import Status
from hpcsched.partition import bounds, import_dnn

pytestmark = pytest.mark.data


def _graphs(folder):
    return sorted((folder / "dnn_partitioning").glob("*-inputs/*/*.json"))


def test_every_real_graph_imports_and_heft_schedules_it(shared_data):
    graphs = _graphs(shared_data)
    assert len(graphs) == 24
    for path in graphs:
        raw = json.loads(path.read_text())
        instance = import_dnn(path, gpus=4)
        assert instance.n == len(raw["nodes"]) and len(instance.edges) == len(raw["edges"])
        assert instance.memory == int(raw["maxSizePerFPGA"])
        assert instance.source["sha256"] and instance.source["notes"]
    small = import_dnn(
        shared_data / "dnn_partitioning/throughput-inputs/LayerGraphs/bert24_training.json",
        gpus=2,
        memory_fraction=0.15,
    )
    result = hpcsched.solve(small, "heft", time_limit=60)
    assert result.status is Status.FEASIBLE and result.objective >= bounds.best(small)
    # colorClass pairs a forward layer with its gradient: colocation holds
    groups = {}
    for v, node in enumerate(small.nodes):
        groups.setdefault(node.group, set()).add(result.solution.gpu[v])
    assert all(len(g) == 1 for g in groups.values())


@pytest.mark.slow
def test_bert24_training_claim_cpsat_proves_the_optimum(shared_data):
    """The spec's claim: K = 2, memory 15 % of 17.2 GB, CP-SAT proves 128.58 (ms; 128577 us here)."""
    instance = import_dnn(
        shared_data / "dnn_partitioning/throughput-inputs/LayerGraphs/bert24_training.json",
        gpus=2,
        memory_fraction=0.15,
    )
    # One worker does not prove it within 60 deterministic units (measured: 130847 vs 125417); two
    # workers did in 6.3 units. The verdict below holds either way: no wall-clock dependence.
    result = hpcsched.solve(instance, "cpsat", time_limit=900, workers=2, deterministic_time=60.0)
    assert result.bound <= 128577 <= result.objective
    if result.status is Status.OPTIMAL:
        assert result.objective == 128577


def test_import_errors_name_the_problem(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(FormatError, match="not JSON"):
        import_dnn(bad)
    bad.write_text(
        json.dumps(
            {
                "nodes": [{"id": 1, "fpgaLatency": 1.0, "size": 1.0}],
                "edges": [{"sourceId": 1, "destId": 7, "cost": 0.1}],
                "maxSizePerFPGA": 10,
            }
        )
    )
    with pytest.raises(FormatError, match="edges\\[0\\]"):
        import_dnn(bad)
    with pytest.raises(InvalidInstanceError, match="options.gpus"):
        import_dnn(bad, gpus=0)
    good = tmp_path / "good.json"
    good.write_text(
        json.dumps(
            {
                "nodes": [
                    {"id": 1, "fpgaLatency": 1.2345, "size": 3.0, "colorClass": 1},
                    {"id": 2, "fpgaLatency": 0.5, "size": 2.0, "colorClass": 1},
                ],
                "edges": [{"sourceId": 1, "destId": 2, "cost": 0.0004}],
                "maxSizePerFPGA": 10,
            }
        )
    )
    instance = import_dnn(good, gpus=2, memory_fraction=0.5)
    assert instance.times == (1234, 500) and instance.memory == 5 and instance.edges[0].delay == 0
    assert any("below half a unit" in note for note in instance.source["notes"])


def test_pipedream_profiles_become_training_graphs(shared_data):
    from hpcsched.partition import import_pipedream

    paths = sorted((shared_data / "pipedream").glob("*.graph.txt"))
    assert len(paths) == 10
    for path in paths:
        instance = import_pipedream(path, gpus=4)
        layers = [line for line in path.read_text().splitlines() if line and not line.startswith(("\t", " "))]
        inputs = sum(1 for line in layers if line.split(" -- ")[1].startswith("Input"))
        assert inputs >= 1 and instance.n == 2 * len(layers) - inputs  # a backward node per layer but the Inputs
        names = {node.name: node for node in instance.nodes}
        assert all(names[f"{node.group}.fwd"].group == node.group for node in instance.nodes)
    gnmt = import_pipedream(shared_data / "pipedream" / "gnmt.graph.txt", gpus=2)
    lstm = next(node for node in gnmt.nodes if node.name == "node7.fwd")
    assert lstm.output == 6291456 + 131072 + 131072  # the list [a; b; c] is summed
    result = hpcsched.solve(gnmt, "heft", time_limit=60)
    assert result.status is Status.FEASIBLE and result.objective >= bounds.best(gnmt)


def test_pipedream_errors_name_the_line(tmp_path):
    from hpcsched.partition import import_pipedream

    bad = tmp_path / "x.graph.txt"
    bad.write_text("node1 -- Input -- forward_compute_time=1.0\n")
    with pytest.raises(FormatError, match=":1:"):
        import_pipedream(bad)
    bad.write_text(
        "node1 -- Conv -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=4.0, "
        "parameter_size=1.0\n\tnode1 -- node9\n"
    )
    with pytest.raises(FormatError, match=":2: edge names an unknown layer"):
        import_pipedream(bad)
