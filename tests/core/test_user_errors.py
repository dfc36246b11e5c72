"""User mistakes on the command line end in one line naming the option or file (issue 20, items 8-10).

Each test here failed before its fix: a traceback, an "internal error ...
please report it", a message naming a temporary file, or a solve that ran
before a doomed output path was noticed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirunner import CliRunner

from hpcsched.cli import app
from hpcsched.core.errors import NotAnInstanceError, OutputPathError
from hpcsched.core.io import atomic_output, atomic_write_text, check_output_path, read_instance

from . import test_core  # noqa: F401  (registers the toy problem "pick")

runner = CliRunner()

REPO = Path(__file__).resolve().parents[2]
TRANSFERS = REPO / "instances" / "transfers" / "uniform-n5-m1-s1.json"


@pytest.fixture
def toy_file(tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"problem": "pick", "format": 1, "name": "toy", "data": {"costs": [5, 3, 8]}}))
    return path


def one_line(result, *fragments):
    """The only stderr line of a failed command, checked for ``fragments``."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_validate_of_a_file_without_solution_says_so(toy_file, tmp_path):
    """Item 8: an INFEASIBLE solve writes "solution": null; validate used to say "must be dict, got NoneType"."""
    empty = tmp_path / "infeasible.json"
    empty.write_text(
        json.dumps({"problem": "pick", "format": 1, "method": "refuse", "status": "INFEASIBLE", "solution": None})
    )
    line = one_line(
        runner.invoke(app, ["validate", str(toy_file), str(empty)]), str(empty), "holds no solution", "INFEASIBLE"
    )
    assert "NoneType" not in line


def test_a_real_infeasible_solve_writes_no_file(toy_file, tmp_path):
    """An INFEASIBLE solve has no solution to write: --out is not written (a note says so on stderr)."""
    out = tmp_path / "sol.json"
    solved = runner.invoke(app, ["solve", str(toy_file), "--method", "refuse", "--out", str(out)])
    assert solved.exit_code == 0 and not out.exists()
    assert f"note: {out} not written: refuse returned no solution (INFEASIBLE)" in solved.stderr


@pytest.mark.parametrize("name", ["out.xyz", "figure"])
def test_plot_with_an_unknown_suffix_is_refused_before_solving(tmp_path, name):
    """Item 9: --plot out.xyz solved first, then failed in matplotlib with "internal error"."""
    plot = tmp_path / name
    result = runner.invoke(app, ["solve", str(TRANSFERS), "--method", "johnson", "--plot", str(plot)])
    one_line(result, "--plot", str(plot), ".png", ".pdf", ".svg")
    assert "johnson" not in result.stdout  # refused before the solve: no result table
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_unwritable_output_is_refused_before_solving_and_named(toy_file, tmp_path, option):
    """Item 9: output-path messages named the temporary file (/proc/.x.json.8k1y8wlw.tmp)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    target = blocker / "sub" / ("x.json" if option == "--out" else "x.png")
    arguments = ["solve", str(toy_file), option, str(target)]
    if option == "--plot":  # pick has no plot; a transfers instance has one
        arguments = ["solve", str(TRANSFERS), "--method", "johnson", option, str(target)]
    result = runner.invoke(app, arguments)
    line = one_line(result, option, str(target))
    assert ".tmp" not in line and "OPTIMAL" not in result.stdout and "FEASIBLE" not in result.stdout


def test_output_that_is_a_folder_is_refused(toy_file, tmp_path):
    one_line(runner.invoke(app, ["solve", str(toy_file), "--out", str(tmp_path)]), "--out", "is a folder")


def test_check_output_path_leaves_nothing_behind(tmp_path):
    check_output_path(tmp_path / "new" / "deeper" / "x.json")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OutputPathError, match="is a folder"):
        check_output_path(tmp_path)


def test_a_failed_write_names_the_users_path_not_the_temporary_file(tmp_path):
    target = tmp_path / "figure.png"
    with pytest.raises(OutputPathError) as caught, atomic_output(target) as temporary:
        raise FileNotFoundError(2, "No such file or directory", str(temporary))
    assert str(target) in str(caught.value) and ".tmp" not in str(caught.value) and "figure." in str(caught.value)
    assert str(temporary) not in str(caught.value)
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    with pytest.raises(OutputPathError, match="a file is in the way") as caught:
        atomic_write_text(blocker / "x.json", "{}")
    assert str(blocker / "x.json") in str(caught.value)


def test_an_option_the_check_cannot_even_convert_is_named(toy_file):
    """Item 7: a 400-digit integer overflowed inside the option check ("internal error (OverflowError)")."""
    huge = "9" * 400
    result = runner.invoke(app, ["solve", str(toy_file), "--method", "tuned", "--opt", f"rounds={huge}"])
    line = one_line(result, "options.rounds")
    assert huge not in line  # cut, not 400 digits


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_time_limit_must_be_finite(toy_file, value):
    one_line(runner.invoke(app, ["solve", str(toy_file), "--time-limit", value]), "--time-limit")


@pytest.mark.parametrize("value", [0, -1, float("nan"), "10", True])
def test_the_python_api_refuses_a_time_limit_that_is_no_time(value):
    """A new user's finding: hpcsched.solve(..., time_limit=-1) (or 0, NaN) ran silently, the CLI refused them."""
    import hpcsched
    from hpcsched.checkpoint.generate import generate_random
    from hpcsched.core.errors import OptionError

    with pytest.raises(OptionError, match="time_limit"):
        hpcsched.solve(generate_random(n=4), "dp", time_limit=value)


@pytest.mark.parametrize("kind", ["folder", "empty", "list", "solved-table"])
def test_instance_paths_that_are_no_instance(tmp_path, kind):
    path = tmp_path / "x.json"
    if kind == "folder":
        path.mkdir()
    else:
        path.write_text({"empty": "", "list": "[1, 2]", "solved-table": '{"a.json": {"objective": 3}}'}[kind])
    one_line(runner.invoke(app, ["solve", str(path)]), str(path))


def test_solved_json_is_recognizably_not_an_instance():
    with pytest.raises(NotAnInstanceError, match="not an instance file"):
        read_instance(REPO / "instances" / "transfers" / "solved.json")


def test_import_prints_the_importers_notes(tmp_path, monkeypatch):
    """Items 1-2 support: the importer's approximations are shown, not buried in the file."""
    from .test_core import PICK, PickInstance

    def importer(path, **options):
        return PickInstance("imported", (4, 2), {"notes": ["DAG linearized into a chain", "times rounded to us"]})

    monkeypatch.setitem(PICK.importers, "pairs", importer)
    trace = tmp_path / "trace.txt"
    trace.write_text("4 2\n")
    out = tmp_path / "imported.json"
    result = runner.invoke(app, ["import", "pairs", str(trace), "--problem", "pick", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "note: DAG linearized into a chain" in result.stdout and "note: times rounded to us" in result.stdout
    assert out.exists()


@pytest.mark.parametrize("seed", ["2147483648", "99999999999999999999"])
def test_seeds_beyond_the_solvers_32_bits_are_refused(seed):
    """Item 7: --seed 99999999999999999999 reached CP-SAT's int32 random_seed ("internal error (TypeError)")."""
    one_line(
        runner.invoke(app, ["solve", str(TRANSFERS), "--method", "cpsat", "--seed", seed, "-t", "1"]),
        "--seed",
        "2147483647",
    )


def test_importing_a_binary_file_as_a_text_trace_is_one_line(tmp_path, monkeypatch):
    """Item 7: a text importer given a binary file raised UnicodeDecodeError (an internal error)."""
    from .test_core import PICK

    def importer(path, **options):
        Path(path).read_text(encoding="utf-8")
        raise AssertionError("not reached")

    monkeypatch.setitem(PICK.importers, "text", importer)
    trace = tmp_path / "trace.bin"
    trace.write_bytes(b"ok\x00\xff\xfe")
    one_line(
        runner.invoke(app, ["import", "text", str(trace), "--problem", "pick", "--output", str(tmp_path / "o.json")]),
        str(trace),
        "not UTF-8 text",
    )


# The two commands of the issue whose bad option values are checked inside the
# problem packages. With the registry's Params (a Literal for `drain`, solver
# parameter names checked in a __post_init__) they end in one line; until the
# package owners move these methods, they stay internal errors.


@pytest.mark.parametrize(
    ("option", "field"),
    [
        ("drain=sideways", "options.drain: unknown option"),  # the option's old name
        ("drain_policy=sideways", "options.drain_policy: must be one of"),
    ],
)
def test_unknown_drain_policy_is_one_line(option, field):
    instance = REPO / "instances" / "burstbuffer" / "periodic-k3-n8-sharing.json"
    one_line(runner.invoke(app, ["solve", str(instance), "--method", "equal-split", "--opt", option]), field)


def test_unknown_cpsat_parameter_is_one_line():
    one_line(
        runner.invoke(
            app, ["solve", str(TRANSFERS), "--method", "cpsat", "-t", "1", "--opt", 'parameters={"no_such_field": 1}']
        ),
        "options.parameters",
    )
