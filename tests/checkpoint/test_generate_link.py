"""The generators' ``bandwidth``/``latency`` parameters write kind chain-offload (a new user found no CLI way)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import hpcsched
from hpcsched.checkpoint.generate import generate_homogeneous, generate_random, generate_transformer
from hpcsched.cli import app
from hpcsched.core.errors import InvalidInstanceError


@pytest.mark.parametrize("generate", [generate_homogeneous, generate_random, generate_transformer])
def test_a_bandwidth_gives_the_same_chain_with_a_host_link(generate):
    chain = generate(seed=3, n=6)
    linked = generate(seed=3, n=6, bandwidth=4, latency=2)
    assert (chain.kind, linked.kind) == ("chain", "chain-offload")
    assert (linked.fw, linked.bw, linked.x, linked.xbar, linked.memory) == (
        chain.fw,
        chain.bw,
        chain.x,
        chain.xbar,
        chain.memory,
    )
    assert (linked.bandwidth_out, linked.bandwidth_in, linked.latency, linked.duplex) == (4, 4, 2, "full")
    assert linked.source["parameters"]["bandwidth"] == 4 and linked.source["parameters"]["latency"] == 2


def test_a_latency_without_a_bandwidth_is_refused():
    with pytest.raises(InvalidInstanceError, match="latency"):
        generate_random(n=4, latency=1)


def test_the_cli_writes_a_chain_offload_file_that_solves(tmp_path):
    path = tmp_path / "o.json"
    result = CliRunner().invoke(
        app,
        [
            "generate",
            "checkpoint",
            "-f",
            "random",
            "--n",
            "8",
            "-p",
            "bandwidth=20",
            "-p",
            "latency=1",
            "-o",
            str(path),
        ],
    )
    assert result.exit_code == 0, result.output
    instance = hpcsched.read_instance(path)
    assert instance.kind == "chain-offload"
    solved = hpcsched.solve(instance, "offload-greedy", time_limit=30)
    assert solved.solution is not None and solved.objective >= solved.bound
