"""The generic CLI on locality files: generate, import, solve, validate, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

typer_testing = pytest.importorskip("typer.testing")
cli = pytest.importorskip("hpcsched.cli")

SHIPPED = Path(__file__).resolve().parents[2] / "instances" / "locality"


def invoke(*args):
    return typer_testing.CliRunner().invoke(cli.app, [str(a) for a in args])


def assert_clean_failure(result, *fragments):
    """A refused input: non-zero exit through SystemExit, one line naming the field, no escaped exception.

    CliRunner catches exceptions and keeps their traceback out of ``output``,
    so "Traceback" in the output proves nothing: an exception that escaped the
    command shows as ``result.exception`` of a type other than SystemExit.
    """
    assert result.exit_code not in (0, None), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "internal error" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    for fragment in fragments:
        assert fragment in lines[0], result.output


def test_generate_solve_validate_plot(tmp_path):
    instance = tmp_path / "i.json"
    result = invoke(
        "generate",
        "locality",
        "--family",
        "uniform",
        "--n",
        300,
        "--seed",
        2,
        "--param",
        "m=10",
        "--param",
        "r=2",
        "-o",
        instance,
    )
    assert result.exit_code == 0, result.output
    solution, picture = tmp_path / "s.json", tmp_path / "s.png"
    result = invoke("solve", instance, "--out", solution, "--plot", picture)
    assert result.exit_code == 0, result.output
    assert json.loads(solution.read_text())["status"] == "OPTIMAL" and picture.stat().st_size > 0
    assert invoke("validate", instance, solution).exit_code == 0
    # Hand-break the solution: move task 0 to a server that holds no replica of it.
    document = json.loads(solution.read_text())
    data = json.loads(instance.read_text())["data"]
    replicas = set(data["tasks"][0]["replicas"])
    queues = document["solution"]["queues"]
    for queue in queues:
        if 0 in queue:
            queue.remove(0)
    queues[next(i for i in range(10) if i not in replicas)].append(0)
    solution.write_text(json.dumps(document))
    broken = invoke("validate", instance, solution)
    assert broken.exit_code != 0 and "not one of its replicas" in broken.output


def test_import_csv_and_solve_with_heuristic(tmp_path):
    out = tmp_path / "csv.json"
    result = invoke(
        "import",
        "csv",
        SHIPPED / "example.csv",
        "--problem",
        "locality",
        "-o",
        out,
        "--option",
        "objective=communication",
        "--option",
        "remote_cost=2",
    )
    assert result.exit_code == 0, result.output
    result = invoke("solve", out, "--method", "hadoop-greedy", "--json")
    assert result.exit_code == 0 and '"FEASIBLE"' in result.output


@pytest.mark.parametrize(
    "content, fragment",
    [
        ('{"problem": "locality", "data": {', "malformed JSON"),
        (
            '{"problem": "locality", "format": 1, "data": {"servers": 2, "tasks": [{"duration": 1, "replicas": [3]}]}}',
            "data.tasks[0].replicas[0]",
        ),
        (
            '{"problem": "locality", "format": 1, "data": {"servers": 2, '
            '"tasks": [{"duration": -1, "replicas": [0]}]}}',
            "data.tasks[0].duration",
        ),
    ],
)
def test_bad_files_give_one_line_and_no_traceback(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert_clean_failure(invoke("solve", path), fragment)


def test_bad_csv_through_the_cli(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("task,duration,replicas\na,x,0\n")
    result = invoke("import", "csv", path, "--problem", "locality", "-o", tmp_path / "o.json")
    assert_clean_failure(result, "line 2.duration")
    assert not (tmp_path / "o.json").exists()


def test_assert_clean_failure_catches_an_escaped_exception():
    class Escaped:  # what CliRunner returns when the command raised: output without a traceback
        exit_code, exception, output = 1, ValueError("boom"), ""

    with pytest.raises(AssertionError):
        assert_clean_failure(Escaped())


COMMUNICATION = {
    "problem": "locality",
    "format": 1,
    "name": "c",
    "time_unit": "s",
    "source": {},
    "data": {
        "servers": 3,
        "objective": "communication",
        "remote_cost": 2,
        "tasks": [
            {"duration": 2, "replicas": [0, 1]},
            {"duration": 3, "replicas": [1]},
            {"duration": 1, "replicas": [2]},
        ],
    },
}


@pytest.mark.parametrize(
    "option, fragment",
    [
        ("max_pairs=x", "options.max_pairs: must be an integer"),
        ("max_pairs=-5", "options.max_pairs: must be >= 0"),
        ("bogus=1", "options.bogus: unknown option 'bogus'"),
    ],
)
def test_auto_refuses_bad_options_like_the_chosen_method(tmp_path, option, fragment):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(COMMUNICATION))
    via_auto = invoke("solve", path, "--opt", option)
    assert_clean_failure(via_auto, fragment)
    assert via_auto.output == invoke("solve", path, "--method", "milp-communication", "--opt", option).output


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"objectiv": "communication"}, "data.objectiv: unknown key"),
        ({"servers": 10**11}, "data.servers: must be <= 1000000"),
        ({"tasks": [{"duration": 2**53, "replicas": [0]}] * 1100}, "data.tasks[1].duration: the total duration"),
    ],
)
def test_review_inputs_end_in_one_line(tmp_path, change, fragment):
    document = json.loads(json.dumps(COMMUNICATION))
    document["data"].update(change)
    document["data"]["objective"], document["data"]["remote_cost"] = "makespan", 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    assert_clean_failure(invoke("solve", path), fragment)


@pytest.mark.parametrize(
    "method, option, fragment",
    [
        # before the Params contract: "solver backend 'gurobi' is not available" (not an option error)
        ("milp", "backend=gurobi", "options.backend: must be one of 'highs', 'cbc'"),
        # before: workers=0 ran silently with the default 2 workers
        ("cpsat", "workers=0", "options.workers: must be >= 1"),
        ("cpsat", "deterministic_time=-1", "options.deterministic_time: must be > 0"),
        ("delay-scheduling", "delay=-1", "options.delay: must be >= 0"),
        ("brute-force", "max_assignments=0", "options.max_assignments: must be >= 1"),
        ("semi-matching", "workers=2", "options.workers: method 'semi-matching' has no options"),
    ],
)
def test_bad_options_end_in_one_line_naming_the_option(tmp_path, method, option, fragment):
    path = tmp_path / "c.json"
    document = json.loads(json.dumps(COMMUNICATION))
    if method != "delay-scheduling":
        document["data"]["objective"], document["data"]["remote_cost"] = "makespan", 0
    path.write_text(json.dumps(document))
    result = invoke("solve", path, "--method", method, "--opt", option)
    assert_clean_failure(result, fragment)
    assert result.exit_code == 1
