"""Importers of real layer profiles (PipeDream graphs, the H100 chains) through the stage DP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hpcsched import solve
from hpcsched.cli import app
from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.result import Status
from hpcsched.pipeline.importers import import_checkpoint_chain, import_pipedream
from hpcsched.pipeline.stages import stage_chain

ROOT = Path(__file__).resolve().parents[2]
H100 = sorted((ROOT / "instances" / "checkpoint").glob("*-h100-b50.json"))


@pytest.mark.parametrize("network", ["resnet50", "vgg16", "gnmt", "alexnet"])
def test_pipedream_graphs_become_stage_chains(shared_data, network):
    path = shared_data / "pipedream" / f"{network}.graph.txt"
    instance = import_pipedream(path, devices=4, micro_batches=4, memory_factor=2)
    chain = stage_chain(instance)
    assert not isinstance(chain, str) and chain.stages == 4 and chain.one_stage_per_device()
    assert instance.time_unit == "us" and instance.source["importer"] == "pipedream"
    assert len(instance.source["stages"]) == 4 and instance.source["notes"]
    layers = [stage["layers"] for stage in instance.source["stages"]]
    assert layers[0][0] == 0 and all(layers[k][1] + 1 == layers[k + 1][0] for k in range(3))
    result = solve(instance, "1f1b", time_limit=30)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


@pytest.mark.parametrize("path", H100, ids=lambda p: p.stem)
def test_h100_chains_split_and_period(path):
    instance = import_checkpoint_chain(path, devices=3, split=True, bandwidth=25)
    chain = stage_chain(instance)
    assert not isinstance(chain, str) and chain.split
    assert any(edge.delay > 0 for edge in instance.edges)
    assert solve(instance, "zb-h1", time_limit=30).status in (Status.OPTIMAL, Status.FEASIBLE)
    period = import_checkpoint_chain(path, devices=2, objective="period", memory_factor=1.5)
    assert period.is_period and period.micro_batches == 1
    assert solve(period, "1f1b", time_limit=30).status in (Status.OPTIMAL, Status.FEASIBLE)


def test_memory_limit_steers_the_cut():
    path = ROOT / "instances" / "checkpoint" / "vgg16-h100-link-b30.json"
    free = import_checkpoint_chain(path, devices=4, micro_batches=4)
    need = [min(4, 4 - k) * free.blocks[chain_f].memory for k, chain_f in enumerate(stage_chain(free).forward)]
    tight = import_checkpoint_chain(path, devices=4, micro_batches=4, memory_limit=max(need) - 1)
    assert tight.source["stages"] != free.source["stages"]
    assert tight.source["bottleneck_us"] >= free.source["bottleneck_us"]
    with pytest.raises(InvalidInstanceError, match="memory_limit"):
        import_checkpoint_chain(path, devices=4, memory_limit=1)


def test_bad_options_and_files(tmp_path):
    path = H100[0]
    with pytest.raises(InvalidInstanceError, match="devices"):
        import_checkpoint_chain(path, devices=0)
    with pytest.raises(InvalidInstanceError, match="devices"):
        import_checkpoint_chain(path, devices=1000)
    with pytest.raises(InvalidInstanceError, match="memory_factor"):
        import_checkpoint_chain(path, memory_factor=0.5)
    with pytest.raises(InvalidInstanceError, match="bandwidth"):
        import_checkpoint_chain(path, bandwidth=0)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"problem": "transfers", "data": {}}))
    with pytest.raises(FormatError, match="not a checkpoint instance"):
        import_checkpoint_chain(other)


def test_cli_import_prints_the_notes(tmp_path):
    out = tmp_path / "t.json"
    command = ["import", "checkpoint-chain", str(H100[0]), "--problem", "pipeline", "--option", "devices=2"]
    done = CliRunner().invoke(app, [*command, "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "note: layers cut into contiguous stages" in done.output
    assert json.loads(out.read_text())["data"]["devices"] == 2
    bad = CliRunner().invoke(app, [*command, "--option", "devices=x", "-o", str(out)])
    assert bad.exit_code == 1 and "devices: must be an integer" in bad.output, bad.output
    assert isinstance(bad.exception, SystemExit)  # one line, no traceback


def _make_real():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_real", ROOT / "instances" / "pipeline" / "make_real.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_real_instances_are_the_scripts(shared_data):
    from hpcsched.core.io import read_instance

    maker = _make_real()
    shipped = {path.stem: path for path in (ROOT / "instances" / "pipeline" / "real").glob("*.json")}
    shipped.pop("solved")  # the table of optima, not an instance
    assert len(shipped) == len(maker.PLAN)
    for importer, file, options in maker.PLAN:
        instance = maker.build(importer, file, options)
        assert read_instance(shipped[instance.name]).to_data() == instance.to_data(), instance.name
        result = solve(instance, "greedy", time_limit=30)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
