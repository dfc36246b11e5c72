"""What a new user found in the CLI (issue 22): option listing, ``solved --opt``,
the claims of a solution file, tables and paths when piped, parameter typos,
the plugin hint and ``--plot`` without a solution."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from clirunner import CliRunner

from hpcsched.cli import app
from hpcsched.core.solved import read_solved

from . import test_core  # noqa: F401  (registers the toy problem "pick")

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _one_error_line(result):
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "TypeError" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def toy_file(tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"problem": "pick", "format": 1, "name": "toy", "data": {"costs": [5, 3, 8]}}))
    return path


@pytest.fixture
def transfers_file(tmp_path):
    path = tmp_path / "t1.json"
    assert invoke("generate", "transfers", "-o", path, "--n", "5", "--seed", "1").exit_code == 0
    return path


# 1. hpcsched methods PROBLEM lists each method's options


def test_methods_json_lists_each_option_with_type_and_default():
    result = invoke("methods", "pick", "--json")
    assert result.exit_code == 0, result.output
    [problem] = json.loads(result.stdout)
    methods = {method["name"]: method for method in problem["methods"]}
    # TunedParams in test_core: share: float = 0.5, rounds: int = 3, verbose: bool = False, note: str | None = None
    assert methods["tuned"]["options"] == [
        {"name": "share", "type": "float", "default": 0.5},
        {"name": "rounds", "type": "int", "default": 3},
        {"name": "verbose", "type": "bool", "default": False},
        {"name": "note", "type": "str | None", "default": None},
    ]
    assert methods["cheapest"]["options"] == []


def test_methods_table_shows_the_options():
    result = invoke("methods", "pick")
    assert result.exit_code == 0, result.output
    assert "share: float = 0.5" in result.stdout and "rounds: int = 3" in result.stdout


def test_methods_of_a_shipped_problem_lists_options_from_the_cache(tmp_path):
    """The cached table (no solver imported) carries the options too."""
    code = (
        "import json, sys; from hpcsched.core.registry import problem_summaries;"
        "[s] = problem_summaries(['transfers']); m = {x.name: x for x in s.methods};"
        "print(json.dumps([o.to_data() for o in m['ils'].options]), 'hpcsched.transfers' in sys.modules)"
    )
    env = {**os.environ, "HPCSCHED_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    expected = '[{"name": "max_iterations", "type": "int", "default": 20000}, {"name": "stall", "type": "int", "default": 200}]'
    assert first.stdout.strip() == f"{expected} True"  # built live
    assert second.stdout.strip() == f"{expected} False"  # read from the cache


# 3. hpcsched solved --opt


def test_solved_records_opt_in_the_entry_and_check_reruns_it(transfers_file):
    folder = transfers_file.parent
    made = invoke("solved", "transfers", "--folder", folder, "-m", "ils", "--opt", "max_iterations=50", "-t", "10")
    assert made.exit_code == 0, made.output
    entry = read_solved(folder / "solved.json")["t1.json"]
    assert dict(entry.options) == {"max_iterations": 50}
    checked = invoke("solved", "transfers", "--folder", folder, "--check")
    assert checked.exit_code == 0 and "0 with contradictions" in checked.stdout


def test_solved_refuses_an_unknown_opt_before_solving(transfers_file):
    folder = transfers_file.parent
    line = _one_error_line(invoke("solved", "transfers", "--folder", folder, "-m", "ils", "--opt", "max_iteratons=5"))
    assert "options.max_iteratons" in line and "ils" in line
    assert not (folder / "solved.json").exists()


# 4. validate checks what the file claims


def _solution_with(toy_file, tmp_path, **claims):
    out = tmp_path / "sol.json"
    assert invoke("solve", toy_file, "--out", out).exit_code == 0  # cheapest: index 1, objective 3, OPTIMAL
    document = json.loads(out.read_text())
    document.update(claims)
    out.write_text(json.dumps(document))
    return out


def test_validate_reports_false_claims_one_line_each(toy_file, tmp_path):
    bad = _solution_with(toy_file, tmp_path, objective=1, status="OPTIMAL", bound=999999999)
    result = invoke("validate", toy_file, bad)
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 3, result.stderr  # objective, bound, the summary
    assert "recorded objective 1 " in lines[0] and "evaluates to 3" in lines[0]
    assert "recorded bound 999999999 is above the evaluated objective 3" in lines[1]
    assert "valid" not in result.stdout


def test_validate_reports_optimal_with_a_bound_below_the_objective(toy_file, tmp_path):
    bad = _solution_with(toy_file, tmp_path, status="OPTIMAL", bound=2)
    result = invoke("validate", toy_file, bad)
    assert result.exit_code == 1 and "status OPTIMAL but the recorded bound 2 " in result.stderr


def test_validate_accepts_true_claims_and_files_without_claims(toy_file, tmp_path):
    honest = _solution_with(toy_file, tmp_path)
    assert invoke("validate", toy_file, honest).exit_code == 0
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"problem": "pick", "solution": {"index": 2}}))
    assert invoke("validate", toy_file, bare).exit_code == 0
    within = _solution_with(toy_file, tmp_path, objective=3 * (1 + 1e-12), status="FEASIBLE", bound=1)
    assert invoke("validate", toy_file, within).exit_code == 0


# 5. tables and paths are not wrapped when stdout is not a terminal


def _cli(*args, columns=None, cwd=None):
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "hpcsched.cli", *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd
    )


def test_validate_prints_a_long_path_on_one_line_when_piped(transfers_file, tmp_path):
    deep = tmp_path / ("a-folder-name-long-enough-to-pass-eighty-columns-" * 2)
    deep.mkdir()
    solution = deep / "solution-of-the-first-transfers-instance.json"
    assert invoke("solve", transfers_file, "-m", "fifo", "--out", solution).exit_code == 0
    result = _cli("validate", transfers_file, solution)
    assert result.returncode == 0, result.stderr
    assert f"{solution}: valid for {transfers_file}" in result.stdout.splitlines()


def test_tables_are_wide_when_piped_and_follow_columns():
    wide = _cli("methods", "transfers")
    assert wide.returncode == 0, wide.stderr
    assert max(len(line) for line in wide.stdout.splitlines()) > 80
    assert "Iterated local search (swap/insert moves, perturbation on stall) over transfer orders." in wide.stdout
    narrow = _cli("methods", "transfers", columns=100)
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 100


# 6. generator and importer parameter typos


def test_a_generator_parameter_typo_is_one_line_with_a_suggestion(tmp_path):
    line = _one_error_line(invoke("generate", "transfers", "-o", tmp_path / "x.json", "--param", "memory_factr=2"))
    assert "memory_factr" in line and "'uniform'" in line and "did you mean 'memory_factor'?" in line
    assert "accepted:" in line and "memory_factor" in line.split("accepted:")[1]
    assert not (tmp_path / "x.json").exists()


def test_an_importer_option_typo_is_one_line_with_a_suggestion(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("x\n")
    line = _one_error_line(
        invoke(
            "import", "csv", trace, "--problem", "transfers", "-o", tmp_path / "x.json", "--option", "memory_factr=2"
        )
    )
    assert "importer 'csv'" in line and "did you mean 'memory_factor'?" in line


# 7. smaller findings


def test_an_unknown_problem_hints_at_a_plugin(tmp_path):
    path = tmp_path / "plugin-problem.json"
    path.write_text(json.dumps({"problem": "fromplugin", "format": 1, "name": "x", "data": {}}))
    line = _one_error_line(invoke("solve", path))
    assert "unknown problem 'fromplugin'" in line and "--plugin FILE" in line


def test_plot_without_a_solution_is_skipped_with_a_note(transfers_file, tmp_path):
    image = tmp_path / "plot.png"
    # sequential is NOT_APPLICABLE when two tasks fit in memory together (they do on this instance)
    result = invoke("solve", transfers_file, "-m", "sequential", "--plot", image)
    assert result.exit_code == 0, result.output
    assert "NOT_APPLICABLE" in result.stdout and f"note: {image} not drawn" in result.stdout
    assert not image.exists()


def test_seed_given_as_a_generator_parameter_points_to_the_seed_option(tmp_path):
    line = _one_error_line(invoke("generate", "transfers", "-o", tmp_path / "x.json", "--param", "seed=3"))
    assert "--param seed" in line and "is set by --seed" in line
