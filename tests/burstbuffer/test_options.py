"""Method options: Params dataclasses checked once by the registry, one line on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from hpcsched import OptionError, read_instance, solve
from hpcsched.burstbuffer import PROBLEM
from hpcsched.cli import app
from hpcsched.core.result import Status

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "burstbuffer" / "periodic-k3-n8-sharing.json"
runner = CliRunner()


def one_line(result, *fragments):
    """The only stderr line of a failed command, checked for ``fragments``."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("method", ["equal-split", "greedy-marginal", "proportional-rate", "dynamic-reference"])
def test_an_unknown_drain_policy_is_one_line_naming_the_option(method):
    # before: `--opt drain=sideways` reached drain_rates() and ended in "internal error" (a ValueError)
    one_line(
        runner.invoke(app, ["solve", str(INSTANCE), "--method", method, "--opt", "drain_policy=sideways"]),
        "options.drain_policy",
        "sideways",
    )


def test_the_old_option_name_is_refused_with_the_new_one_named():
    line = one_line(
        runner.invoke(app, ["solve", str(INSTANCE), "--method", "equal-split", "--opt", "drain=even"]), "options.drain"
    )
    assert "drain_policy" in line


@pytest.mark.parametrize(
    ("method", "option", "value"),
    [
        ("sharing-dp", "epsilon", "0"),
        ("exact", "epsilon", "-1"),
        ("dynamic-reference", "capacity", "-5"),
        ("sizing-static-lp", "allow_overload", '"yes"'),
        ("no-burst-buffer", "drain_policy", "even"),
    ],
)
def test_bad_option_values_are_one_line(method, option, value):
    one_line(
        runner.invoke(app, ["solve", str(INSTANCE), "--method", method, "--opt", f"{option}={value}"]),
        f"options.{option}",
    )


def test_the_static_policies_are_not_the_dynamic_ones():
    instance = read_instance(INSTANCE)
    with pytest.raises(OptionError, match=r"options\.drain_policy"):
        solve(instance, "equal-split", drain_policy="fifo")
    assert solve(instance, "dynamic-reference", drain_policy="fifo").status is Status.FEASIBLE
    assert solve(instance, "equal-split", drain_policy="even").notes[0] == "drain policy: even"


def test_every_method_follows_the_contract():
    import inspect

    for name, method in PROBLEM.methods.items():
        if method.choose is not None:
            continue  # the dispatcher `exact`
        parameters = inspect.signature(method.func).parameters
        assert list(parameters) == ["instance", "time_limit", "seed", "params"], name
        assert parameters["instance"].kind is inspect.Parameter.POSITIONAL_ONLY, name
        doc = inspect.cleandoc(method.func.__doc__ or "")  # Python 3.13 dedents docstrings itself; 3.11 does not
        assert "Parameters\n----------" in doc and "Returns\n-------" in doc, name
    assert PROBLEM.methods["exact"].choose(read_instance(INSTANCE)) == "sharing-dp"


def test_exact_says_which_method_ran():
    result = solve(read_instance(INSTANCE), "exact")
    assert result.method == "exact" and "exact ran sharing-dp" in result.notes
