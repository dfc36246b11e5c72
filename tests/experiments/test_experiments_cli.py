"""The `compare` and `study` commands, on a Typer app built with `register`."""

from __future__ import annotations

import csv

import pytest
import typer
from clirunner import CliRunner

from hpcsched.core.io import write_instance
from hpcsched.experiments.cli import register

from .experiments_helpers import TOY, toy_instance

app = typer.Typer()
register(app)


@app.callback()
def _main() -> None:
    """Test application."""


runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    paths = []
    for seed, n in ((0, 5), (1, 9)):
        path = tmp_path / f"toy{seed}.json"
        write_instance(toy_instance(seed, n), path)
        paths.append(path)
    return paths


def one_error_line(result):
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_compare_prints_a_table_and_writes_csv(files, tmp_path):
    out = tmp_path / "out" / "compare.csv"
    result = invoke("compare", *files, "--methods", "exact,first", "--plugin", TOY, "-t", "5", "--csv", out)
    assert result.exit_code == 0, result.output
    for name in (
        "instance",
        "objective",
        "bound",
        "gap",
        "status",
        "toy-uniform-n5-s0",
        "toy-uniform-n9-s1",
        "OPTIMAL",
    ):
        assert name in result.stdout
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["instance"], r["method"]) for r in rows] == [
        ("toy-uniform-n5-s0", "exact"),
        ("toy-uniform-n5-s0", "first"),
        ("toy-uniform-n9-s1", "exact"),
        ("toy-uniform-n9-s1", "first"),
    ]
    instance = toy_instance(1, 9)
    assert float(rows[2]["objective"]) == min(instance.values) and float(rows[3]["objective"]) == instance.values[0]


def test_compare_all_methods_runs_every_method_and_survives_bad_ones(files, tmp_path):
    out = tmp_path / "all.csv"
    result = invoke(
        "compare", files[0], "--methods", "all", "--plugin", TOY, "-t", "0.2", "--grace", "0.2", "--csv", out
    )
    assert result.exit_code == 1, result.output  # runs ended in ERROR: a failed run exits 1, the CSV is still written
    assert "3 of 8 runs ended in ERROR" in result.stderr
    with open(out, newline="") as handle:
        statuses = {r["method"]: r["status"] for r in csv.DictReader(handle)}
    assert statuses == {
        "exact": "OPTIMAL",
        "sleep": "OPTIMAL",
        "hang": "TIME_LIMIT_NO_SOLUTION",
        "seeded": "FEASIBLE",
        "boom": "ERROR",
        "bad": "ERROR",
        "die": "ERROR",
        "first": "FEASIBLE",
    }
    assert "boom: deliberate failure" in result.stderr


def test_compare_missing_file_is_one_line(files, tmp_path):
    result = invoke("compare", files[0], tmp_path / "missing.json", "--plugin", TOY)
    assert result.exit_code == 1
    assert one_error_line(result) == f"error: {tmp_path / 'missing.json'}: no such file"


def test_compare_malformed_instance_is_one_line_naming_the_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"problem": "toy", "format": 1, "data": {"values": [1, -0.5]}}')
    result = invoke("compare", bad, "--plugin", TOY)
    assert result.exit_code == 1
    assert "bad.json: data.values[1]: must be an integer" in one_error_line(result)
    bad.write_text("{not json")
    result = invoke("compare", bad, "--plugin", TOY)
    assert result.exit_code == 1 and "malformed JSON" in one_error_line(result)


def test_compare_unknown_problem_is_one_line(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"problem": "nosuchproblem", "format": 1, "data": {}}')
    result = invoke("compare", path)
    assert result.exit_code == 1 and "unknown problem 'nosuchproblem'" in one_error_line(result)


def test_compare_rejects_unknown_methods_before_running_anything(files, tmp_path):
    out = tmp_path / "never.csv"
    result = invoke("compare", *files, "--methods", "exact,simplex", "--plugin", TOY, "--csv", out)
    assert result.exit_code == 1  # bad input, as from solve (2 is click's usage error)
    assert "unknown method 'simplex'" in one_error_line(result)
    assert not out.exists()


def test_compare_rejects_unknown_executor(files):
    result = invoke("compare", files[0], "--plugin", TOY, "--executor", "slurm")
    assert result.exit_code == 1 and "--executor must be one of local, dask" in one_error_line(result)


def test_study_run_and_report(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(
        f'results = "r.csv"\ntime_limits = [5]\nplugins = ["{TOY}"]\n'
        '[[instances]]\nproblem = "toy"\nfamily = "uniform"\nseeds = [0, 1]\n'
        '[[methods]]\nname = "exact"\n[[methods]]\nname = "first"\n'
    )
    result = invoke("study", "run", study, "--no-progress")
    assert result.exit_code == 0, result.output
    assert "ran 4 runs, skipped 0" in result.stdout
    result = invoke("study", "run", study, "--no-progress")
    assert "ran 0 runs, skipped 4" in result.stdout
    result = invoke("study", "report", tmp_path / "r.csv", "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep" / "report.md").exists() and "first" in result.stdout


def test_study_bad_file_and_missing_results_are_one_line(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('results = "r.csv"\ntime_limits = ["ten"]\n')
    result = invoke("study", "run", study)
    assert result.exit_code == 1
    assert one_error_line(result) == f"error: {study}: time_limits[0]: must be a positive number of seconds, got 'ten'"
    result = invoke("study", "report", tmp_path / "none.csv")
    assert result.exit_code == 1 and "no such results file" in one_error_line(result)


def test_compare_warns_in_one_line_when_oversubscribed(files, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    result = invoke("compare", *files, "--methods", "exact", "--plugin", TOY, "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert "warning: 2 workers x 2 solver threads per run = 4 threads on 1 cores" in result.stderr


def test_the_main_cli_has_compare_and_study(files, tmp_path):
    from hpcsched.cli import app as main_app

    result = runner.invoke(
        main_app, ["compare", str(files[0]), "-m", "exact", "--plugin", TOY, "--csv", str(tmp_path / "c.csv")]
    )
    assert result.exit_code == 0, result.output
    assert "OPTIMAL" in result.stdout and (tmp_path / "c.csv").exists()
    result = runner.invoke(main_app, ["study", "--help"])
    assert result.exit_code == 0 and "run" in result.stdout and "report" in result.stdout
