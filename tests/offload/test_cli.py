"""The command line on offload: solve, validate, generate, import, bad input, infeasible budgets."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hpcsched import solve
from hpcsched.cli import app
from hpcsched.core.io import read_instance
from hpcsched.offload import plot_solution
from hpcsched.plotting import new_axes, save_axes

from .offload_helpers import INSTANCES

runner = CliRunner()


def _single_error_line(result, *fragments):
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


VGG16_PCIE3 = min(INSTANCES.glob("vgg16-pcie3-*.json"))


def test_solve_and_validate(tmp_path):
    out = tmp_path / "sol.json"
    instance = VGG16_PCIE3  # the budgets shipped change with the importer: the tightest one
    result = runner.invoke(
        app, ["solve", str(instance), "--method", "local-search", "--time-limit", "0.5", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "FEASIBLE"
    checked = runner.invoke(app, ["validate", str(instance), str(out)])
    assert checked.exit_code == 0 and "overhead" in checked.stdout


def test_solve_with_plot(tmp_path):
    picture = tmp_path / "plot.png"
    result = runner.invoke(
        # the plot is checked, not the schedule: a 0.1 s search gives one to draw
        app,
        ["solve", str(VGG16_PCIE3), "--method", "local-search", "--time-limit", "0.1", "--plot", str(picture)],
    )
    assert result.exit_code == 0, result.output
    assert picture.stat().st_size > 0


def test_plot_returns_axes_and_leaves_the_backend_alone(tmp_path):
    import matplotlib

    backend = matplotlib.get_backend()
    instance = read_instance(VGG16_PCIE3)
    result = solve(instance, "local-search", time_limit=0.1)
    ax = plot_solution(instance, result.solution)
    save_axes(ax, tmp_path / "offload.png")
    assert (tmp_path / "offload.png").stat().st_size > 0
    assert matplotlib.get_backend() == backend
    given = new_axes()
    assert plot_solution(instance, result.solution, ax=given) is given


def test_generate_then_solve_default_method(tmp_path):
    path = tmp_path / "g.json"
    made = runner.invoke(
        app,
        [
            "generate",
            "offload",
            "--family",
            "random",
            "--n",
            "4",
            "--seed",
            "2",
            "--param",
            "budget=0.9",
            "--param",
            "bandwidth=20000",
            "-o",
            str(path),
        ],
    )
    assert made.exit_code == 0, made.output
    solved = runner.invoke(app, ["solve", str(path), "--time-limit", "10", "--json"])
    assert solved.exit_code == 0 and json.loads(solved.stdout)["status"] == "OPTIMAL", solved.output


def test_infeasible_budget_from_the_cli(tmp_path):
    document = json.loads(VGG16_PCIE3.read_text())
    document["data"]["memory"] = 1000
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(document))
    for method in ("cpsat", "local-search", "offload-all"):
        result = runner.invoke(app, ["solve", str(path), "--method", method, "--time-limit", "1", "--json"])
        summary = json.loads(result.stdout)
        assert summary["status"] == "INFEASIBLE" and "step F1" in summary["notes"], result.output


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (lambda d: d["data"].__setitem__("forward", d["data"]["forward"][:-1]), ["data.forward", "data.backward"]),
        (lambda d: d["data"]["activation"].__setitem__(3, -5), ["data.activation[3]"]),
        (lambda d: d["data"].__setitem__("offloadable", [0, 99]), ["data.offloadable[1]"]),
        (lambda d: d["data"].__setitem__("duplex", 3), ["data.duplex"]),
    ],
)
def test_bad_instance_ends_in_one_line(tmp_path, edit, fragments):
    document = json.loads((INSTANCES / "gnmt-pcie3-70.json").read_text())
    edit(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(app, ["solve", str(path), "--method", "offload-all"])
    _single_error_line(result, str(path))
    assert any(fragment in result.stderr for fragment in fragments), result.stderr


def test_malformed_json_and_bad_trace(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"problem": "offload", ')
    _single_error_line(runner.invoke(app, ["solve", str(path)]), str(path))
    trace = tmp_path / "x.graph.txt"
    trace.write_text("garbage line\n")
    _single_error_line(
        runner.invoke(app, ["import", "pipedream", str(trace), "--problem", "offload", "-o", str(tmp_path / "o.json")]),
        "x.graph.txt:1",
    )


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"bandwidth_out": 1e-300}, "data.bandwidth_out"),
        ({"bandwidth_in": 1e-300}, "data.bandwidth_in"),
        ({"latancy": 1000}, "data.latancy"),
        ({"offloadble": []}, "data.offloadble"),
    ],
)
@pytest.mark.parametrize("method", ["cpsat", "cpsat-plain", "brute-force", "offload-all"])
def test_out_of_range_transfer_times_and_unknown_keys_end_in_one_line(tmp_path, changes, field, method):
    # 1e-300 B/us made CP-SAT fail on its int64 domains (an internal error) and offload-all report a
    # ~1e301 makespan; a misspelt key solved with latency 0 / everything offloadable.
    document = json.loads((INSTANCES / "gnmt-pcie3-70.json").read_text())
    document["data"].update(changes)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(app, ["solve", str(path), "--method", method, "--time-limit", "5"])
    _single_error_line(result, str(path), field)
    assert "internal error" not in result.stderr


@pytest.mark.parametrize(
    "method, option, field",
    [
        ("cpsat-plain", "resolution=0", "options.resolution"),
        ("cpsat-plain", "offloaded=[99]", "options.offloaded[0]"),
        ("cpsat-plain", "offloaded=[3, 3]", "options.offloaded[1]"),
        ("cpsat-plain", "workers=0", "options.workers"),
        ("cpsat", "workers=0", "options.workers"),
        ("brute-force", "max_layers=0", "options.max_layers"),
        ("brute-force", "set_deterministic_time=0", "options.set_deterministic_time"),
        ("cpsat", "deterministic_time=-1", "options.deterministic_time"),
        # The registry builds each method's Params before it runs (OptionError, exit 1, one line):
        ("milp-fixed-order", "backend=gurobi", "options.backend"),  # failed after the heuristic had run
        ("milp-fixed-order", "threads=2", "options.threads"),  # renamed to the shared name `workers`
        ("milp-fixed-order", "workers=0", "options.workers"),
        ("cpsat", "branch_fraction=2", "options.branch_fraction"),
        ("cpsat", "branch_node_limit=0", "options.branch_node_limit"),
        ("cpsat", "no_such_option=1", "options.no_such_option"),
        ("cpsat-plain", "offloaded=[-1]", "options.offloaded[0]"),
        ("greedy-size", "max_iterations=3", "options.max_iterations"),  # a method without options
    ],
)
def test_out_of_range_method_options_end_in_one_line(method, option, field):
    # resolution=0 divided by zero; offloaded=[99] was silently ignored (every set searched).
    result = runner.invoke(
        app, ["solve", str(INSTANCES / "gnmt-pcie3-70.json"), "--method", method, "--time-limit", "5", "--opt", option]
    )
    _single_error_line(result, field)
    assert result.exit_code == 1 and "internal error" not in result.stderr


@pytest.mark.parametrize(
    "arguments, field",
    [
        (["--n", "-3"], "--n: "),
        (["--n", "0"], "--n: "),
        (["--param", "n=abc"], "--param n: "),
        (["--param", "budget=abc"], "--param budget: "),
        (["--param", "budget=0"], "--param budget: "),
        (["--param", "link=pcie9"], "--param link: "),
        (["--param", "bandwidth=-1"], "--param bandwidth: "),
        (["--param", "latency=-2"], "--param latency: "),
        (["--param", "duplex=triple"], "--param duplex: "),
        (["--family", "random", "--param", "max_time=0"], "--param max_time: "),
        (["--family", "cnn", "--param", "first_activation=0"], "--param first_activation: "),
        (["--param", "bandwidth=1e-300"], "--param bandwidth: "),
    ],
)
def test_bad_generator_parameters_are_named(tmp_path, arguments, field):
    # Named as given (the option that set it); `--n 0` used to be reported as data.forward.
    output = tmp_path / "g.json"
    result = runner.invoke(app, ["generate", "offload", *arguments, "-o", str(output)])
    _single_error_line(result, f"error: {field}")
    assert "internal error" not in result.stderr and not output.exists()
