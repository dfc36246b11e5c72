"""The command line on the toy problem of test_core: outputs, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest
from clirunner import CliRunner

from hpcsched.cli import app

from . import test_core  # noqa: F401  (registers the toy problem "pick")

runner = CliRunner()


@pytest.fixture
def toy_file(tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"problem": "pick", "format": 1, "name": "toy", "data": {"costs": [5, 3, 8]}}))
    return path


def _single_error_line(result, *fragments):
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_solve_prints_table_and_writes_solution_that_validates(toy_file, tmp_path):
    out = tmp_path / "sol.json"
    result = runner.invoke(app, ["solve", str(toy_file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "cheapest" in result.stdout and "OPTIMAL" in result.stdout and "0.00%" in result.stdout
    assert json.loads(out.read_text())["solution"] == {"index": 1}
    checked = runner.invoke(app, ["validate", str(toy_file), str(out)])
    assert checked.exit_code == 0 and "objective = 3" in checked.stdout


def test_solve_json_summary(toy_file):
    result = runner.invoke(app, ["solve", str(toy_file), "--method", "first", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["objective"] == 5.0


def test_validate_reports_violations(toy_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"problem": "pick", "solution": {"index": 9}}))
    result = runner.invoke(app, ["validate", str(toy_file), str(bad)])
    assert result.exit_code == 1 and "index 9 is not a choice" in result.stderr


@pytest.mark.parametrize(
    ("arguments", "fragments"),
    [
        (["solve", "{file}", "--method", "nope"], ["unknown method 'nope'"]),
        (["solve", "{missing}"], ["no such file"]),
        (["solve", "{file}", "--time-limit", "-1"], ["--time-limit", "> 0"]),
        (["solve", "{file}", "--seed", "-1"], ["--seed", ">= 0"]),
        (["solve", "{file}", "--method", "first", "--opt", "index"], ["--opt", "key=value"]),
        (["solve", "{file}", "--method", "first", "--opt", "colour=3"], ["options.colour", "unknown option"]),
        (["solve", "{file}", "--method", "tuned", "--opt", "share=-1"], ["options.share", ">= 0"]),
        (["solve", "{file}", "--method", "tuned", "--opt", "verbose=maybe"], ["options.verbose", "true or false"]),
        (["solve", "{file}", "--plot", "{out}"], ["has no plot"]),
        (["generate", "nope", "-o", "{out}"], ["unknown problem 'nope'"]),
        (["generate", "pick", "-o", "{out}"], ["has no generators"]),
        (["import", "csv", "{file}", "--problem", "pick", "-o", "{out}"], ["no importer for format 'csv'"]),
    ],
)
def test_bad_input_ends_in_one_line(toy_file, tmp_path, arguments, fragments):
    out = tmp_path / "out.png"
    filled = [a.format(file=toy_file, missing=tmp_path / "absent.json", out=out) for a in arguments]
    _single_error_line(runner.invoke(app, filled), *fragments)
    assert not out.exists()


def test_a_mistyped_method_is_one_line_naming_the_file_and_the_closest_method(toy_file):
    result = runner.invoke(app, ["solve", str(toy_file), "--method", "cheapst"])
    _single_error_line(
        result,
        f"{toy_file}: unknown method 'cheapst' for problem 'pick'",
        "did you mean 'cheapest'?",
        "(known: cheapest, first, refuse, tuned)",
    )
    assert result.exit_code == 1


def test_an_unknown_method_without_a_close_name_suggests_nothing(toy_file):
    result = runner.invoke(app, ["solve", str(toy_file), "--method", "zzz"])
    _single_error_line(result, "unknown method 'zzz'", "(known: cheapest, first, refuse, tuned)")
    assert "did you mean" not in result.stderr


def test_solve_table_prints_large_objectives_in_full_and_json_keeps_raw_numbers(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"problem": "pick", "name": "big", "data": {"costs": [50000000, 40963912]}}))
    table = runner.invoke(app, ["solve", str(big)])
    assert table.exit_code == 0, table.output
    assert "40,963,912" in table.stdout and "e+07" not in table.stdout
    summary = runner.invoke(app, ["solve", str(big), "--json"])
    assert json.loads(summary.stdout)["objective"] == 40963912


def test_malformed_instance_names_file_and_field(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"problem": "pick", "data": {"costs": [1, "two"]}}))
    _single_error_line(runner.invoke(app, ["solve", str(path)]), str(path), "data.costs[1]")


def test_methods_and_schema():
    listed = runner.invoke(app, ["methods", "pick"])
    assert listed.exit_code == 0 and "cheapest (default)" in listed.stdout
    schema = runner.invoke(app, ["schema", "pick"])
    assert schema.exit_code == 0 and json.loads(schema.stdout)["properties"]["problem"] == {"const": "pick"}
