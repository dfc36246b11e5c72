"""Honest outputs and bad input at any scale: one line naming the file or option, exit 1, never a traceback.

Each test here failed before its fix:

- ``solve --out FILE`` with no solution replaced a good FILE with ``"solution": null``;
- generators accepted ``--n 10**12`` (a MemoryError, exit 3) and NaN, infinite,
  negative or ill-typed parameters (exit 3 at the writer, or a TypeError's text);
- a JSON file of 100,000 ``[`` ended in a RecursionError without the file's name;
- ``--method ""`` ran the default method; ``compare --time-limit inf`` was accepted;
- ``compare`` and ``study report`` ranked methods that answer another question
  (a preemptive relaxation, a reference outside the solution space) with the others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from clirunner import CliRunner

from hpcsched.cli import app
from hpcsched.core.deadline import TimeLimitReached
from hpcsched.core.registry import Problem, answers_of, register_problem
from hpcsched.core.result import Result, Status
from hpcsched.experiments.report import summary_table
from hpcsched.experiments.runs import COLUMNS

from .test_core import PickInstance, PickSolution, evaluate, validate

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
TRANSFERS = REPO / "instances" / "transfers" / "uniform-n5-m1-s1.json"
SHIPPED = (
    "transfers",
    "offload",
    "coschedule",
    "burstbuffer",
    "locality",
    "checkpoint",
    "treemem",
    "hetero",
    "partition",
)


@pytest.fixture(autouse=True)
def _wide_tables(monkeypatch):
    # The CLI's consoles take their width from COLUMNS when the CLI is imported, and xdist workers set
    # a narrow one: rich would wrap the tables and cut the labels looked for.
    import importlib

    cli_app = importlib.import_module("hpcsched.cli.app")

    for console in (cli_app.console, cli_app.error_console):
        monkeypatch.setattr(console, "width", 400)
    monkeypatch.setenv("COLUMNS", "400")  # the consoles made per command (compare's table)


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(result, *fragments):
    """The only stderr line of a failed command (exit 1, no traceback), checked for ``fragments``."""
    assert result.exit_code == 1, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# --- 1. solve --out never replaces a file with no answer ------------------------------------------


def _outcome(status: Status, solution=None):
    def method(instance, /, *, time_limit, seed, params) -> Result:
        if status is Status.TIME_LIMIT_NO_SOLUTION:
            raise TimeLimitReached("building the model")
        return Result("outs", "m", status, solution=solution, notes=("said why",))

    return method


@dataclass(frozen=True)
class OutsInstance:
    """The toy problem's instance, as a type of its own (a problem is found by its instance type)."""

    name: str
    costs: tuple[int, ...]
    source: dict
    time_unit: str | None = None

    from_data = classmethod(PickInstance.from_data.__func__)  # type: ignore[attr-defined]

    def to_data(self) -> dict:
        return {"costs": list(self.costs)}


OUTS = register_problem(
    Problem(
        name="outs",
        instance_type=OutsInstance,
        solution_type=PickSolution,
        evaluate=evaluate,
        validate=validate,
        default_method="good",
        data_schema={"type": "object"},
    )
)
OUTS.add_method("good", _outcome(Status.FEASIBLE, PickSolution(1)), kind="heuristic")
OUTS.add_method("not-applicable", _outcome(Status.NOT_APPLICABLE), kind="special")
OUTS.add_method("out-of-time", _outcome(Status.TIME_LIMIT_NO_SOLUTION), kind="exact")
OUTS.add_method("invalid", _outcome(Status.FEASIBLE, PickSolution(7)), kind="heuristic")  # validator: ERROR
OUTS.add_method("no-solution", _outcome(Status.FEASIBLE), kind="heuristic")  # claims one: ERROR


@pytest.fixture
def outs_file(tmp_path):
    path = tmp_path / "outs.json"
    path.write_text(json.dumps({"problem": "outs", "format": 1, "name": "o", "data": {"costs": [5, 3, 8]}}))
    return path


@pytest.mark.parametrize(
    ("method", "status", "code"),
    [
        ("not-applicable", "NOT_APPLICABLE", 0),
        ("out-of-time", "TIME_LIMIT_NO_SOLUTION", 0),
        ("invalid", "ERROR", 1),
        ("no-solution", "ERROR", 1),
    ],
)
def test_solve_out_keeps_an_existing_file_when_the_run_has_no_solution(outs_file, tmp_path, method, status, code):
    out = tmp_path / "sol.json"
    assert invoke("solve", outs_file, "-m", "good", "--out", out).exit_code == 0
    good = out.read_bytes()
    assert json.loads(good)["solution"] == {"index": 1}
    result = invoke("solve", outs_file, "-m", method, "--out", out)
    assert result.exit_code == code, result.output
    assert out.read_bytes() == good  # the earlier answer is still there, byte for byte
    assert f"note: {out} not written: {method} returned" in result.stderr
    assert f"({status}) (the existing file is left as it was)" in result.stderr
    assert "Traceback" not in result.output


def test_solve_out_writes_no_file_of_null(outs_file, tmp_path):
    out = tmp_path / "new.json"
    result = invoke("solve", outs_file, "-m", "not-applicable", "--out", out)
    assert result.exit_code == 0 and not out.exists()
    assert f"note: {out} not written: not-applicable returned no solution (NOT_APPLICABLE)" in result.stderr
    to_stdout = invoke("solve", outs_file, "-m", "not-applicable", "--out", "-")
    assert to_stdout.exit_code == 0 and to_stdout.stdout.strip() == ""  # no document of null either


def test_solve_out_of_a_real_method_without_solution(tmp_path):
    """transfers `sequential` is NOT_APPLICABLE where two tasks fit together."""
    instance = REPO / "instances" / "transfers" / "uniform-n20-m2-s3.json"
    out = tmp_path / "sol.json"
    assert invoke("solve", instance, "-m", "johnson", "--out", out).exit_code == 0
    good = out.read_bytes()
    result = invoke("solve", instance, "-m", "sequential", "--out", out)
    assert result.exit_code == 0 and "NOT_APPLICABLE" in result.stdout
    assert out.read_bytes() == good
    assert invoke("validate", instance, out).exit_code == 0


# --- 5. deeply nested JSON ------------------------------------------------------------------------


@pytest.fixture
def deep_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    return path


def test_deeply_nested_instance_and_solution_files_name_the_file(deep_json):
    one_line(invoke("solve", deep_json), f"{deep_json}: cannot read as JSON", "nested too deeply")
    one_line(invoke("validate", TRANSFERS, deep_json), f"{deep_json}: cannot read as JSON", "nested too deeply")
    one_line(invoke("compare", deep_json, "-m", "johnson"), str(deep_json), "nested too deeply")


def test_deeply_nested_option_values_and_study_files(tmp_path, deep_json):
    deep = "[" * 100_000
    one_line(invoke("generate", "transfers", "-p", f"n={deep}", "-o", tmp_path / "x.json"), "--param n")
    one_line(invoke("solve", TRANSFERS, "-m", "johnson", "--opt", f"x={deep}"), "--opt x")
    study = tmp_path / "deep.toml"
    study.write_text("time_limits = [1]\nx = " + "[" * 100_000 + "\n")
    one_line(invoke("study", "run", study), str(study), "nested too deeply")
    one_line(invoke("import", "dnn", deep_json, "-P", "treemem", "-o", tmp_path / "x.json"), str(deep_json))


# --- 6. empty names ------------------------------------------------------------------------------


def test_an_empty_method_family_or_problem_is_refused_not_replaced_by_the_default(tmp_path):
    one_line(invoke("solve", TRANSFERS, "--method", ""), "--method: is empty")
    one_line(invoke("solve", TRANSFERS, "-m", "  "), "--method: is empty")
    one_line(invoke("generate", "transfers", "--family", "", "-o", tmp_path / "x.json"), "--family: is empty")
    one_line(invoke("methods", ""), "PROBLEM: is empty")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("methods", ["johnson,", ",johnson", "johnson,,fifo", " , "])
def test_compare_refuses_an_empty_name_in_its_method_list(methods):
    one_line(invoke("compare", TRANSFERS, "-m", methods, "-t", "1"), "--methods")


# --- 7. non-finite time limits --------------------------------------------------------------------


@pytest.mark.parametrize(("option", "value"), [("--time-limit", "inf"), ("--grace", "inf"), ("--time-limit", "nan")])
def test_compare_refuses_a_non_finite_time(option, value):
    result = invoke("compare", TRANSFERS, "-m", "johnson", option, value)
    assert result.exit_code in (1, 2) and "Traceback" not in result.output  # click itself refuses nan (usage)
    assert option in result.output
    assert "johnson" not in result.stdout  # refused before any run


def test_study_files_refuse_non_finite_times(tmp_path):
    for text in ("time_limits = [inf]", "time_limits = [nan]", "time_limits = [1]\ngrace = inf"):
        study = tmp_path / "s.toml"
        study.write_text(
            f"{text}\n[[instances]]\nfiles = ['{TRANSFERS}']\n[[methods]]\nname = 'johnson'\n", encoding="utf-8"
        )
        one_line(invoke("study", "run", study), str(study))


# --- 9. methods that answer another question --------------------------------------------------------


def test_methods_that_answer_another_question_are_labelled():
    assert answers_of("coschedule", "lp-preemptive") and answers_of("burstbuffer", "dynamic-reference")
    assert answers_of("coschedule", "milp") is None and answers_of("burstbuffer", "sharing-dp") is None
    assert answers_of("coschedule", "auto", "auto ran lp-preemptive") == answers_of("coschedule", "lp-preemptive")
    assert answers_of("coschedule", "auto", "x; auto ran milp") is None
    listed = json.loads(invoke("methods", "coschedule", "--json").stdout)[0]["methods"]
    answers = {m["name"]: m["answers"] for m in listed}
    assert answers["mcnaughton"] and answers["milp-min-preemptions"] and answers["lpt"] is None
    table = invoke("methods", "burstbuffer").stdout
    assert "[answers another question: dynamic sharing" in table


def test_compare_marks_them():
    instance = REPO / "instances" / "coschedule" / "gavel-v100-n6.json"
    result = invoke("compare", instance, "-m", "lp-preemptive,lpt", "-t", "5")
    assert result.exit_code == 0, result.output
    assert "lp-preemptive †" in result.stdout and "lpt †" not in result.stdout
    assert "† lp-preemptive: another question (preemptive schedule" in result.stdout
    rows = json.loads(invoke("compare", instance, "-m", "lp-preemptive,lpt", "-t", "5", "--json").stdout)
    assert [row["answers"] is None for row in rows] == [False, True]


def _row(instance, problem, method, status, objective, bound=None, notes=""):
    values = dict.fromkeys(COLUMNS, "")
    values.update(
        instance=instance,
        instance_sha256=f"sha-{instance}",
        problem=problem,
        size=6,
        method=method,
        options="{}",
        seed=0,
        time_limit=10.0,
        status=status,
        objective=objective,
        bound=bound,
        gap=None,
        runtime_s=1.0,
        host="h",
        notes=notes,
    )
    return values


def test_reports_never_rank_another_question():
    """The preemptive optimum (90) is neither the best known nor the best bound of the non-preemptive runs."""
    rows = [
        _row("X", "coschedule", "lp-preemptive", "OPTIMAL", 90.0, 90.0),
        _row("X", "coschedule", "auto", "OPTIMAL", 90.0, 90.0, notes="auto ran lp-preemptive"),
        _row("X", "coschedule", "milp", "OPTIMAL", 100.0, 100.0),
        _row("X", "coschedule", "lpt", "FEASIBLE", 110.0),
    ]
    table = {line["configuration"]: line for line in summary_table(rows)}
    assert table["lpt"]["geomean_ratio"] == pytest.approx(1.1)  # against milp's 100, not 90
    assert table["lpt"]["mean_gap"] == pytest.approx(10 / 110)  # against milp's bound 100
    for label in ("lp-preemptive †", "auto †"):
        assert table[label]["answers"].startswith("preemptive")
        assert table[label]["mean_gap"] is None and table[label]["geomean_ratio"] is None
    assert table["milp"]["answers"] == ""
