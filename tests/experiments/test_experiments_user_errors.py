"""`compare`, `study run`, `study report` on user mistakes, and profiles of uneven runs (issue 20, items 9-10).

Each test failed before its fix: a traceback, ERROR rows and exit 0 for a
study whose options were wrong, a documented `compare` glob that took
`solved.json`, a profile that counted runs never made as failures.
"""

from __future__ import annotations

import json
import math

import pytest
import typer
from clirunner import CliRunner

from hpcsched.core.io import write_instance
from hpcsched.experiments import StudyFileError, load_study, run_study
from hpcsched.experiments.cli import register
from hpcsched.experiments.report import performance_ratios, profile_coverage, report
from hpcsched.experiments.runs import COLUMNS
from hpcsched.experiments.store import write_csv

from .experiments_helpers import TOY, toy_instance

app = typer.Typer()
register(app)


@app.callback()
def _main() -> None:
    """Test application."""


runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_error_line(result, *fragments):
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def folder(tmp_path):
    """Two toy instances and a solved.json table, as in instances/<problem>/."""
    for seed, n in ((0, 5), (1, 9)):
        write_instance(toy_instance(seed, n), tmp_path / f"toy{seed}.json")
    (tmp_path / "solved.json").write_text(json.dumps({"toy0.json": {"objective": 1.0, "status": "OPTIMAL"}}))
    return tmp_path


# ---------------------------------------------------------------- compare


def test_compare_glob_skips_solved_json_with_a_note(folder, tmp_path):
    """Item 10: `hpcsched compare instances/transfers/*.json` took solved.json and stopped."""
    files = sorted(folder.glob("*.json"))
    out = tmp_path / "rows.csv"
    result = invoke("compare", *files, "--methods", "first", "--plugin", TOY, "-t", "5", "--csv", out)
    assert result.exit_code == 0, result.output
    assert f"skipped {folder / 'solved.json'}: not an instance file" in result.stderr
    assert out.read_text().count("\n") == 3  # header + the two instances


def test_compare_without_any_instance_is_one_line(folder):
    one_error_line(invoke("compare", folder / "solved.json", "--plugin", TOY), "no instance file")


def test_compare_refuses_an_unwritable_csv_before_any_run(folder):
    result = invoke("compare", folder / "toy0.json", "--methods", "first", "--plugin", TOY, "--csv", folder)
    one_error_line(result, "--csv", "is a folder")
    assert "first" not in result.stdout  # no table: nothing ran


# ---------------------------------------------------------------- study run


def _study(folder, method: str, options: str, results: str = "results.csv") -> str:
    path = folder / "study.toml"
    path.write_text(
        f'results = "{results}"\ntime_limits = [5]\nplugins = ["{TOY}"]\n'
        f'[[instances]]\nfiles = ["toy*.json"]\n'
        f'[[methods]]\nname = "{method}"\noptions = {options}\n'
    )
    return path


@pytest.mark.parametrize(
    ("method", "options", "fragments"),
    [
        ("sleep", '{ seconds = "two" }', ["methods[0].options", "options.seconds", "number"]),
        ("exact", "{ wrokers = 2 }", ["methods[0].options", "wrokers"]),
        ("sleep", "{ seconds = -1.0 }", ["methods[0].options", "options.seconds", ">= 0"]),
    ],
)
def test_study_options_are_checked_before_any_run(folder, method, options, fragments):
    """Item 9: a study with options = { workers = "two" } ran, recorded ERROR rows and exited 0."""
    study = _study(folder, method, options)
    with pytest.raises(StudyFileError) as caught:
        run_study(study, progress=False)
    assert all(fragment in str(caught.value) for fragment in fragments), caught.value
    assert not (folder / "results.csv").exists()
    one_error_line(invoke("study", "run", study, "--no-progress"), str(study), *fragments)
    assert not (folder / "results.csv").exists()


@pytest.mark.parametrize(("key", "seeds"), [("seeds", "[-1]"), ("seeds", "[2147483648]")])
def test_study_method_seeds_must_fit_the_solvers(folder, key, seeds):
    """Item 7: a negative or 33-bit seed failed inside every run (ERROR rows) instead of in the study file."""
    study = folder / "study.toml"
    study.write_text(
        f'results = "r.csv"\ntime_limits = [5]\n{key} = {seeds}\nplugins = ["{TOY}"]\n'
        f'[[instances]]\nfiles = ["toy*.json"]\n[[methods]]\nname = "first"\n'
    )
    with pytest.raises(StudyFileError, match=r"seeds\[0\]"):
        load_study(study)


def test_valid_study_options_still_run(folder):
    summary = run_study(_study(folder, "sleep", "{ seconds = 0.0 }"), progress=False)
    assert summary.ran == 2 and {row["status"] for row in summary.rows} == {"OPTIMAL"}


@pytest.mark.parametrize("where", ["folder", "under-a-file", "parquet-over-a-file"])
def test_study_results_path_that_cannot_be_written_is_one_line(folder, where):
    """Item 9: tracebacks from `study run` when results is /proc/r.csv or a folder."""
    (folder / "a-file").write_text("")
    results = {
        "folder": folder,
        "under-a-file": folder / "a-file" / "r.csv",
        "parquet-over-a-file": folder / "a-file.parquet",
    }[where]
    if where == "parquet-over-a-file":
        results.write_text("")
    study = _study(folder, "first", "{}")
    line = one_error_line(
        invoke("study", "run", study, "--results", results, "--no-progress"), "--results", str(results)
    )
    assert ".tmp" not in line
    assert not (folder / "results.csv").exists()


def test_study_file_results_key_is_named(folder):
    study = _study(folder, "first", "{}", results=str(folder))
    with pytest.raises(StudyFileError, match=r"results: cannot write the results file"):
        run_study(load_study(study), progress=False)


def test_study_report_of_a_folder_is_one_line(folder):
    one_error_line(invoke("study", "report", folder), str(folder), "folder")


# ---------------------------------------------------------------- profiles


def _row(instance, method, objective, seed=0, runtime=1.0):
    values = dict.fromkeys(COLUMNS, "")
    values.update(
        instance=instance,
        instance_sha256=f"sha-{instance}",
        problem="toy",
        size=3,
        method=method,
        options="{}",
        seed=seed,
        time_limit=10.0,
        status="FEASIBLE",
        objective=objective,
        bound=None,
        gap=None,
        runtime_s=runtime,
        host="h",
    )
    return values


# "ils" ran seeds 0, 1, 2 and always found the best; "johnson" (deterministic) ran seed 0 only.
UNEVEN = [
    _row("X", "ils", 10.0, seed=0),
    _row("X", "ils", 10.0, seed=1),
    _row("X", "ils", 10.0, seed=2),
    _row("X", "johnson", 11.0, seed=0),
]


def test_a_method_run_on_fewer_seeds_does_not_fail_the_missing_ones():
    """Item 10: johnson used to get ratio inf on (X, seed 1) and (X, seed 2), runs it never made."""
    ratios = performance_ratios(UNEVEN, "objective")
    assert ratios["johnson"] == [pytest.approx(1.1)]
    assert ratios["ils"] == [1.0]
    assert not any(math.isinf(r) for values in ratios.values() for r in values)
    assert profile_coverage(UNEVEN) == (1, 3)


def test_the_report_says_which_problems_the_profiles_cover(tmp_path):
    write_csv(UNEVEN, tmp_path / "results.csv")
    text = report(tmp_path / "results.csv", tmp_path / "report").markdown.read_text()
    assert "Over the 1 of 3 problems on which every configuration ran" in text
