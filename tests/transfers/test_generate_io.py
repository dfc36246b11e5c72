"""Generators, the CSV importer, the plot and the command line."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from reference import proven_optimum

from hpcsched import solve
from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.registry import get_problem
from hpcsched.plotting import new_axes, save_axes
from hpcsched.transfers import import_csv, plot_solution
from hpcsched.transfers.generate import GENERATORS


@pytest.mark.parametrize("family", sorted(GENERATORS))
def test_generators_are_seeded_and_size_memory(family):
    one = GENERATORS[family](seed=7, n=30, memory_factor=1.5)
    two = GENERATORS[family](seed=7, n=30, memory_factor=1.5)
    other = GENERATORS[family](seed=8, n=30, memory_factor=1.5)
    assert one == two and one.to_data() != other.to_data()
    assert one.n == 30
    assert one.capacity == -(-3 * one.max_memory // 2)  # ceil(1.5 max m)
    assert one.source["generator"] == family and one.source["seed"] == 7
    unlimited = GENERATORS[family](seed=7, n=30, memory_factor="unlimited")
    assert unlimited.capacity == sum(unlimited.memory)
    assert get_problem("transfers").generators[family] is GENERATORS[family]


def test_family_shapes():
    hf = GENERATORS["hf-like"](seed=1, n=200)
    assert statistics.median(p / c for c, p in zip(hf.transfer, hf.compute, strict=True)) > 10  # compute >> transfer
    ccsd = GENERATORS["ccsd-like"](seed=1, n=200)
    assert (
        0.3 < statistics.median(p / c for c, p in zip(ccsd.transfer, ccsd.compute, strict=True)) < 3
    )  # transfer ~ compute
    assert statistics.median(ccsd.memory) > 100 * statistics.median(hf.memory)  # large footprints
    correlated = GENERATORS["correlated"](seed=1, n=50, bytes_per_time_unit=7)
    assert all(m == 7 * c for c, m in zip(correlated.transfer, correlated.memory, strict=True))


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"n": 0}, "n"),
        ({"n": 2.5}, "n"),
        ({"memory_factor": 0.5}, "memory_factor"),
        ({"memory_factor": "lots"}, "memory_factor"),
        ({"max_transfer": 0}, "max_transfer"),
    ],
)
def test_generator_bad_parameters(params, field):
    with pytest.raises(InvalidInstanceError) as error:
        GENERATORS["uniform"](seed=0, **params)
    assert error.value.field == field


GOOD_CSV = "# time_unit=ms, memory_unit=MiB\nname,transfer,compute,memory\nload,1.5,2,1\nfft,0.25,4,0.5\n"


def test_csv_import(tmp_path):
    path = tmp_path / "trace.csv"
    path.write_text(GOOD_CSV)
    instance = import_csv(path, memory_factor=2, time_unit="us")
    assert instance.transfer == (1500, 250) and instance.compute == (2000, 4000)
    assert instance.memory == (2**20, 2**19) and instance.capacity == 2 * 2**20
    assert instance.time_unit == "us" and instance.source["sha256"]
    assert [t.name for t in instance.tasks] == ["load", "fft"]
    # Both fit together (1.5 MiB <= 2 MiB): Johnson order fft (250 <= 4000), load (1500 <= 2000);
    # link fft [0, 250), load [250, 1750); device fft [250, 4250), load [4250, 6250).
    assert proven_optimum(instance, "cpsat") == 250 + 4000 + 2000
    assert get_problem("transfers").importers["csv"] is import_csv


@pytest.mark.parametrize(
    ("text", "options", "error", "match"),
    [
        ("name,transfer,compute,memory\na,1,1,1\n", {"capacity": 9}, FormatError, "line 1"),
        ("# time_unit=hours, memory_unit=B\nname,transfer,compute,memory\n", {"capacity": 9}, FormatError, "time_unit"),
        ("# time_unit=us, memory_unit=B\nname,size\na,1\n", {"capacity": 9}, FormatError, "header"),
        (
            "# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,x,1,1\n",
            {"capacity": 9},
            FormatError,
            "line 3: column transfer",
        ),
        (
            "# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,1.5,1,1\n",
            {"capacity": 9},
            FormatError,
            "not a whole number",
        ),
        (
            "# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,1,-1,1\n",
            {"capacity": 9},
            FormatError,
            "column compute",
        ),
        (
            "# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,1,1\n",
            {"capacity": 9},
            FormatError,
            "4 columns",
        ),
        (
            "# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,1,1,0\n",
            {"capacity": 9},
            InvalidInstanceError,
            r"memory",
        ),
        (
            "# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,1,1,1\n",
            {},
            InvalidInstanceError,
            "capacity",
        ),
    ],
)
def test_csv_import_errors_name_file_and_field(tmp_path, text, options, error, match):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(error, match=match) as raised:
        import_csv(path, **options)
    assert "bad.csv" in str(raised.value)


def test_plot_returns_axes_and_leaves_the_backend_alone(tmp_path):
    import matplotlib

    backend = matplotlib.get_backend()
    instance = GENERATORS["uniform"](seed=0, n=8, memory_factor=1.5)
    result = solve(instance, "dynamic-johnson")
    ax = plot_solution(instance, result.solution)
    assert [label.get_text() for label in ax.get_yticklabels()] == ["link", "device"]
    assert len(ax.get_figure().axes) == 2  # the Gantt chart above the memory profile
    target = tmp_path / "gantt.png"
    save_axes(ax, target)
    assert target.stat().st_size > 1000 and target.read_bytes()[:4] == b"\x89PNG"
    given = new_axes()
    assert plot_solution(instance, result.solution, ax=given) is given
    assert matplotlib.get_backend() == backend
    source = Path(plot_solution.__code__.co_filename).parent
    assert not [p.name for p in source.rglob("*.py") if "matplotlib.use" in p.read_text()]


# -- command line (skipped until the generic CLI is merged) -------------------------------
def _cli():
    cli = pytest.importorskip("hpcsched.cli")
    testing = pytest.importorskip("typer.testing")
    return testing.CliRunner(), cli.app


def test_cli_generate_solve_and_bad_input(tmp_path):
    runner, app = _cli()
    instance_file = tmp_path / "u.json"
    done = runner.invoke(
        app,
        [
            "generate",
            "transfers",
            "--family",
            "uniform",
            "--n",
            "6",
            "--seed",
            "1",
            "--param",
            "memory_factor=1.5",
            "-o",
            str(instance_file),
        ],
    )
    assert done.exit_code == 0, done.output
    solved = runner.invoke(
        app,
        ["solve", str(instance_file), "--method", "cpsat", "--time-limit", "10", "--out", str(tmp_path / "sol.json")],
    )
    assert solved.exit_code == 0, solved.output
    assert (tmp_path / "sol.json").exists()
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"problem": "transfers", "format": 1, "data": {"capacity": 5, '
        '"tasks": [{"name": "a", "transfer": -1, "compute": 1, "memory": 1}]}}'
    )
    failed = runner.invoke(app, ["solve", str(bad)])
    assert failed.exit_code != 0
    assert "data.tasks[0].transfer" in failed.output and "Traceback" not in failed.output


def test_cli_import_bad_trace_is_one_line(tmp_path):
    runner, app = _cli()
    trace = tmp_path / "trace.csv"
    trace.write_text("# time_unit=us, memory_unit=B\nname,transfer,compute,memory\na,1,x,1\n")
    out = tmp_path / "t.json"
    failed = runner.invoke(
        app, ["import", "csv", str(trace), "--problem", "transfers", "--option", "capacity=10", "-o", str(out)]
    )
    assert failed.exit_code != 0 and not out.exists()
    assert "trace.csv: line 3: column compute" in failed.output and "Traceback" not in failed.output


@pytest.mark.parametrize(
    ("option", "field"),
    [
        ('parameters={"no_such_field": 1}', "options.parameters.no_such_field"),
        ("workers=0", "options.workers"),
        ("no_such_option=1", "options.no_such_option"),
    ],
)
def test_cli_bad_option_is_one_line_naming_it(tmp_path, option, field):
    # before: an unknown SatParameters key ended in "internal error" (CP-SAT's AttributeError)
    runner, app = _cli()
    instance_file = tmp_path / "u.json"
    done = runner.invoke(
        app, ["generate", "transfers", "--family", "uniform", "--n", "5", "--seed", "1", "-o", str(instance_file)]
    )
    assert done.exit_code == 0, done.output
    failed = runner.invoke(app, ["solve", str(instance_file), "--method", "cpsat", "--opt", option])
    assert failed.exit_code == 1, failed.output
    lines = [line for line in failed.output.splitlines() if line.strip()]
    assert len(lines) == 1 and field in lines[0] and "Traceback" not in failed.output, failed.output
