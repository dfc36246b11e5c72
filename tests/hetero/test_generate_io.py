"""hetero importer and generators: files, errors, provenance; the CLI door."""

from __future__ import annotations

import json

import pytest

from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.io import read_instance, write_instance
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.hetero import (
    bounds,
    generate_cholesky,
    generate_fork_join,
    generate_heteroprio_trap,
    generate_layered,
    import_swf,
)


def test_import_a_small_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("1 2.5 -1\n2 4.0 0.5 1\n3 1.0 0.25 1\n4 3.0 1.0 2 3\n")
    instance = import_swf(path, cpus=2, gpus=1)
    assert [t.cpu for t in instance.tasks] == [2500, 4000, 1000, 3000]
    assert [t.gpu for t in instance.tasks] == [None, 500, 250, 1000]
    assert {(e.u, e.v) for e in instance.edges} == {(0, 1), (0, 2), (1, 3), (2, 3)}  # "2 3": a split list
    assert instance.time_unit == "us" and instance.source["options"] == {"cpus": 2, "gpus": 1, "comm": 0}
    assert any("milliseconds" in note for note in instance.source["notes"])


@pytest.mark.parametrize(
    "text, where",
    [
        ("1 2.5\n", ":1:"),
        ("1 x 2\n", ":1:"),
        ("1 1 1\n1 2 2\n", "duplicate"),
        ("1 1 1 7\n", "predecessor '7'"),
        ("1 -3 1\n", "cpu time"),
        ("", "no task"),
    ],
)
def test_bad_files_end_in_one_error_naming_the_line(tmp_path, text, where):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(FormatError, match=where):
        import_swf(path)


def test_a_cycle_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "cycle.txt"
    path.write_text("1 1 1 2\n2 1 1 1\n")
    with pytest.raises(InvalidInstanceError, match="cycle.txt"):
        import_swf(path)


def test_the_real_spotrf_960_5_is_optimal_at_85_40_ms_on_8_cpus_and_2_gpus(shared_data):
    """The issue's claim: CP-SAT found spotrf-960-5 optimal at 85.40 with m = 8, k = 2."""
    instance = import_swf(
        shared_data / "hetero_swf" / "formatedTasks_2" / "spotrf" / "spotrf-960-5.txt", cpus=8, gpus=2
    )
    assert instance.n == 35
    result = run_method(instance, "cpsat", time_limit=120, deterministic_time=30.0, workers=1)
    assert result.status is Status.OPTIMAL and result.objective == 85403  # microseconds


def test_every_real_file_imports(shared_data):
    files = sorted((shared_data / "hetero_swf" / "formatedTasks_2").glob("*/*.txt"))
    assert len(files) == 105
    for path in files[::10]:
        instance = import_swf(path)
        assert instance.n > 0 and instance.cpus == 10 and instance.gpus == 4


def test_generators_are_seeded_and_round_trip(tmp_path):
    for make in (
        lambda s: generate_layered(seed=s, n=20),
        lambda s: generate_fork_join(seed=s, phases=2, width=4),
        lambda s: generate_cholesky(seed=s, tiles=4, noise=0.1),
        lambda s: generate_heteroprio_trap(seed=s, chain=4),
    ):
        first, again, other = make(1), make(1), make(2)
        assert first == again
        assert first.to_data() != other.to_data() or first.source.get("generator") == "heteroprio-trap"
        write_instance(first, tmp_path / "x.json")
        assert read_instance(tmp_path / "x.json") == first


@pytest.mark.parametrize(
    "make",
    [
        lambda: generate_layered(seed=4, n=15, layers=3, cpus=3, gpus=2, mean_cpu=20, max_acceleration=9.0),
        lambda: generate_fork_join(seed=4, phases=3, width=2, cpus=3, gpus=2, min_acceleration=2.0),
        lambda: generate_cholesky(seed=4, tiles=3, cpus=3, gpus=2, noise=0.2),
        lambda: generate_heteroprio_trap(seed=4, chain=3, acceleration=2, cpus=3, gpus=2),
    ],
)
def test_a_generated_file_records_its_platform_and_regenerates_from_its_source(tmp_path, make):
    """source.parameters names the platform (cpus, gpus) and every option: the file alone remakes it."""
    from hpcsched.hetero import PROBLEM

    write_instance(make(), tmp_path / "g.json")
    stored = read_instance(tmp_path / "g.json")
    parameters = stored.source["parameters"]
    assert (parameters["cpus"], parameters["gpus"]) == (3, 2) == (stored.cpus, stored.gpus)
    generator = PROBLEM.generators[stored.source["generator"]]
    assert generator(seed=stored.source["seed"], **parameters) == stored


def test_cholesky_shape():
    instance = generate_cholesky(tiles=5)
    assert instance.n == 35 and len(instance.edges) == 60  # the shape of spotrf-*-5
    assert bounds.critical_path(instance) > 0


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: generate_layered(n=0), "n"),
        (lambda: generate_layered(n=5, edge_probability=2), "edge_probability"),
        (lambda: generate_cholesky(tiles=0), "tiles"),
        (lambda: generate_heteroprio_trap(chain=0), "chain"),
        (lambda: generate_fork_join(width=True), "width"),
    ],
)
def test_bad_generator_parameters_name_the_field(call, field):
    with pytest.raises(InvalidInstanceError) as error:
        call()
    assert error.value.field == field


def test_cli_solve_and_generate(tmp_path):
    from typer.testing import CliRunner

    from hpcsched.cli import app

    runner = CliRunner()
    out = tmp_path / "g.json"
    generated = runner.invoke(app, ["generate", "hetero", "-f", "layered", "--seed", "3", "-o", str(out)])
    assert generated.exit_code == 0, generated.output
    solved = runner.invoke(
        app, ["solve", str(out), "--method", "heteroprio", "--time-limit", "10", "--plot", str(tmp_path / "g.png")]
    )
    assert solved.exit_code == 0, solved.output
    assert (tmp_path / "g.png").stat().st_size > 0
    assert json.loads(out.read_text())["problem"] == "hetero"


def test_dnn_graphs_are_the_uniform_acceleration_case(shared_data):
    from hpcsched.hetero import import_dnn
    from hpcsched.hetero.simulate import is_uniform_acceleration

    path = shared_data / "dnn_partitioning" / "latency-inputs" / "LayerGraphs" / "bert24_inference.json"
    instance = import_dnn(path)
    assert instance.n == 32 and (instance.cpus, instance.gpus) == (8, 5)
    assert is_uniform_acceleration(instance)
    assert all(t.cpu == 10 * t.gpu for t in instance.tasks)
    assert instance.has_communication
    result = run_method(instance, "heteroprio", time_limit=30)
    assert any("uniform acceleration" in note for note in result.notes)


def test_a_broken_dnn_file_is_one_error(tmp_path):
    from hpcsched.hetero import import_dnn

    path = tmp_path / "g.json"
    path.write_text('{"nodes": [{"id": 0, "name": "a", "cpuLatency": 1}], "edges": []}')
    with pytest.raises(FormatError, match="nodes\\[0\\]"):
        import_dnn(path)
    path.write_text("[1, 2]")
    with pytest.raises(FormatError, match="not a dnn_partitioning graph"):
        import_dnn(path)
