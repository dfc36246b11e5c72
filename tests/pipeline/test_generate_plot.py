"""Generators (every family, seeded, capped), the command line end to end, the plot, and the time limit."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched import solve
from hpcsched.cli import app
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.result import Status
from hpcsched.pipeline import GENERATORS, bounds, generate_random, generate_uniform, validate

runner = CliRunner()


@pytest.mark.parametrize("family", sorted(GENERATORS))
@pytest.mark.parametrize("objective", ["makespan", "period"])
def test_every_family_is_seeded_and_feasible_at_factor_one(family, objective):
    make = GENERATORS[family]
    instance = make(seed=3, devices=3, memory_factor=1, objective=objective)
    assert instance == make(seed=3, devices=3, memory_factor=1, objective=objective)
    assert instance.micro_batches == (8 if objective == "makespan" else 1)
    result = solve(instance, "sequential", time_limit=10)
    assert result.status is Status.FEASIBLE  # one micro-batch at a time fits at memory_factor 1
    assert result.objective >= bounds.best(instance)


def test_placements():
    interleaved = GENERATORS["interleaved"](devices=2, chunks=3)
    assert [b.device for b in interleaved.blocks if b.kind == "F"] == [0, 1, 0, 1, 0, 1]
    vshape = GENERATORS["vshape"](devices=3)
    assert [b.device for b in vshape.blocks if b.kind == "F"] == [0, 1, 2, 2, 1, 0]
    assert {b.kind for b in vshape.blocks} == {"F", "B", "W"}
    split = generate_random(seed=1, split=True, stages=4, devices=2)
    assert sum(b.kind == "W" for b in split.blocks) == 4


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"devices": 0}, "devices"),
        ({"devices": 10**9}, "devices"),
        ({"n": 0}, "n"),
        ({"n": 10**12}, "n"),
        ({"memory_factor": 0.5}, "memory_factor"),
        ({"memory_factor": 2, "memory_limit": 3}, "memory_factor"),
        ({"memory_limit": -1}, "memory_limit"),
        ({"objective": "latency"}, "objective"),
        ({"forward": 0}, "forward"),
    ],
)
def test_bad_parameters_name_the_field(parameters, field):
    with pytest.raises(InvalidInstanceError) as error:
        generate_uniform(**parameters)
    assert error.value.field == field


def test_command_line_end_to_end(tmp_path):
    instance, solution, picture = tmp_path / "u.json", tmp_path / "u.sol.json", tmp_path / "u.png"
    made = runner.invoke(
        app,
        [
            "generate",
            "pipeline",
            "-f",
            "uniform",
            "--n",
            "3",
            "-p",
            "devices=2",
            "-p",
            "memory_limit=2",
            "-o",
            str(instance),
        ],
    )
    assert made.exit_code == 0, made.output
    solved = runner.invoke(app, ["solve", str(instance), "--out", str(solution), "--plot", str(picture)])
    assert solved.exit_code == 0, solved.output
    assert json.loads(solution.read_text())["objective"] == 12 and picture.stat().st_size > 0
    checked = runner.invoke(app, ["validate", str(instance), str(solution)])
    assert checked.exit_code == 0 and "valid" in checked.output
    assert runner.invoke(app, ["schema", "pipeline"]).exit_code == 0
    listed = runner.invoke(app, ["methods", "pipeline"])
    assert "brute-force" in listed.output and "sequential" in listed.output


def test_plot_of_a_period_and_a_makespan():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from hpcsched.pipeline import plot_solution

    periodic = generate_uniform(devices=4, backward=3, memory_limit=4, objective="period")
    result = solve(periodic, "brute-force", max_period_jobs=8)
    ax = plot_solution(periodic, result.solution)
    assert ax.get_xlim() == (0, 12) and "period" in ax.get_title()
    makespan = generate_uniform(devices=2, n=3, weight=1)
    ax = plot_solution(makespan, solve(makespan, "sequential").solution)
    assert "makespan" in ax.get_title()


@pytest.mark.parametrize("reads", [0, 40])
def test_brute_force_stops_at_the_limit(reads):
    instance = generate_random(seed=1, devices=4, n=6, split=True, memory_factor=1.3, max_delay=2)  # 72 jobs
    result, clock = solve_past_deadline(instance, "brute-force", reads=reads, max_jobs=100, problem="pipeline")
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("reads", [0, 60])
def test_period_brute_force_stops_at_the_limit(reads):
    instance = generate_random(seed=5, devices=2, memory_factor=1.5, objective="period")
    result, clock = solve_past_deadline(instance, "brute-force", reads=reads, problem="pipeline")
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    assert_stops_promptly(instance, result, clock)
