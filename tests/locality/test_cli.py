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


def test_generate_solve_validate_plot(tmp_path):
    instance = tmp_path / "i.json"
    result = invoke("generate", "locality", "--family", "uniform", "--n", 300, "--seed", 2,
                    "--param", "m=10", "--param", "r=2", "-o", instance)
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
    result = invoke("import", "csv", SHIPPED / "example.csv", "--problem", "locality", "-o", out,
                    "--option", "objective=communication", "--option", "remote_cost=2")
    assert result.exit_code == 0, result.output
    result = invoke("solve", out, "--method", "hadoop-greedy", "--json")
    assert result.exit_code == 0 and '"FEASIBLE"' in result.output


@pytest.mark.parametrize(
    "content, fragment",
    [
        ('{"problem": "locality", "data": {', "malformed JSON"),
        ('{"problem": "locality", "format": 1, "data": {"servers": 2, "tasks": [{"duration": 1, "replicas": [3]}]}}',
         "data.tasks[0].replicas[0]"),
        ('{"problem": "locality", "format": 1, "data": {"servers": 2, "tasks": [{"duration": -1, "replicas": [0]}]}}',
         "data.tasks[0].duration"),
    ],
)
def test_bad_files_give_one_line_and_no_traceback(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = invoke("solve", path)
    assert result.exit_code != 0
    assert fragment in result.output and "Traceback" not in result.output


def test_bad_csv_through_the_cli(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("task,duration,replicas\na,x,0\n")
    result = invoke("import", "csv", path, "--problem", "locality", "-o", tmp_path / "o.json")
    assert result.exit_code != 0 and "line 2.duration" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o.json").exists()
