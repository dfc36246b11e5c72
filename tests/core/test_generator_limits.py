"""Generator parameters: a documented largest size per family, and no value that breaks a generator inside.

Each failed before its fix: ``--n 10**12`` ended in a MemoryError (exit 3) in
offload, coschedule, checkpoint and treemem, and ran for minutes at 10^8;
NaN, infinite, negative or ill-typed parameters reached the writer (exit 3)
or leaked a TypeError's text. Now every family of the 9 problems declares its
size maximum (`hpcsched.core.generation`, docs/architecture.md "Generator
sizes"), refused before any work, and every given parameter is checked
against its type and range: one line naming ``--n`` or ``--param NAME``.
"""

from __future__ import annotations

import inspect
import json
import math
import typing
from pathlib import Path

import pytest
from clirunner import CliRunner

from hpcsched.cli import app
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.generation import limits
from hpcsched.core.registry import get_problem

from .test_bad_input_scale import one_line

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
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


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _families() -> list[tuple[str, str]]:
    return [(problem, family) for problem in SHIPPED for family in get_problem(problem).generators]


def _sizes(problem: str, family: str) -> dict[str, int]:
    """The size parameters a family declares (`hpcsched.core.generation.size`) and their maxima."""
    generator = get_problem(problem).generators[family]
    return {name: int(r.maximum) for name, r in limits(generator).items() if r.what and r.maximum is not None}


@pytest.mark.parametrize(("problem", "family"), _families())
def test_every_family_declares_its_largest_size(problem, family):
    """Each family of the 9 problems has a documented maximum for its size parameter(s)."""
    sizes = _sizes(problem, family)
    assert sizes, f"{problem}/{family} declares no size maximum"
    documented = (REPO / "docs" / "architecture.md").read_text().splitlines()
    rows = [line for line in documented if line.startswith(f"| {problem} | {family} |")]
    assert len(rows) == 1, f"docs/architecture.md 'Generator sizes' has no row for {problem} {family}"
    for name, maximum in sizes.items():
        assert f"`{name}` ≤ {maximum:,}" in rows[0], (rows[0], name, maximum)


@pytest.mark.parametrize(("problem", "family"), _families())
def test_a_size_past_the_maximum_is_refused_before_any_work(problem, family, tmp_path, monkeypatch):
    import numpy as np

    def no_randomness(*args, **kwargs):
        raise AssertionError("the generator started drawing before refusing the size")

    monkeypatch.setattr(np.random, "default_rng", no_randomness)
    declared = limits(get_problem(problem).generators[family])
    for name, maximum in _sizes(problem, family).items():
        for size in (maximum + 1, 10**12):
            value = [size] if declared[name].of is not None else size  # a grid shape: one dimension
            option = ["--n", value] if name == "n" else ["-p", f"{name}={json.dumps(value)}"]
            result = invoke("generate", problem, "-f", family, *option, "-o", tmp_path / "x.json")
            where = "--n" if name == "n" else f"--param {name}"
            one_line(result, f"{where}: at most {maximum:,}")
            assert not (tmp_path / "x.json").exists()


def _numeric_parameters() -> list[tuple[str, str, str]]:
    found = []
    for problem, family in _families():
        generator = get_problem(problem).generators[family]
        hints = typing.get_type_hints(generator)
        for name in inspect.signature(generator).parameters:
            text = str(hints.get(name))
            if name != "seed" and ("int" in text or "float" in text) and "tuple" not in text:
                found.append((problem, family, name))
    return found


@pytest.mark.parametrize(("problem", "family", "name"), _numeric_parameters())
def test_nan_infinity_and_text_for_a_number_are_refused_naming_the_parameter(problem, family, name, tmp_path):
    for value in ("NaN", "Infinity", "-Infinity", "abc", "[1]"):
        result = invoke("generate", problem, "-f", family, "-p", f"{name}={value}", "-o", tmp_path / "x.json")
        one_line(result, f"--param {name}")


@pytest.mark.parametrize(("problem", "family", "name"), _numeric_parameters())
def test_no_number_makes_a_generator_fail_inside(problem, family, name, tmp_path):
    """Negative, zero or fractional values: an instance, or one line naming the parameter (never exit 3)."""
    for value in ("-1", "0", "0.5", "1e30"):
        result = invoke("generate", problem, "-f", family, "-p", f"{name}={value}", "-o", tmp_path / "x.json")
        if result.exit_code != 0:
            one_line(result, "--param")


@pytest.mark.parametrize(
    ("problem", "family", "parameter", "value"),
    [
        ("treemem", "random-tree", "n", "abc"),  # was: "'<' not supported between instances of 'str' and 'int'"
        ("treemem", "harpoon", "small", "abc"),  # was: internal error (ValueError)
        ("hetero", "layered", "mean_cpu", "-1"),  # was: internal error "scale < 0"
        ("hetero", "fork-join", "min_acceleration", "0"),  # was: internal error (OverflowError)
        ("locality", "uniform", "median", "-1"),  # was: accepted
        ("treemem", "random-dag", "edge_probability", "1.5"),  # was: accepted
        ("partition", "training", "colocate", "abc"),  # was: accepted as true
        ("transfers", "hf-like", "integrals_per_us", "0"),  # was: internal error (OverflowError)
    ],
)
def test_parameters_that_broke_a_generator(problem, family, parameter, value, tmp_path):
    result = invoke("generate", problem, "-f", family, "-p", f"{parameter}={value}", "-o", tmp_path / "x.json")
    line = one_line(result, f"--param {parameter}:")
    assert "TypeError" not in line and "not supported between" not in line


def test_generators_called_from_python_check_their_parameters_too():
    generator = get_problem("treemem").generators["random-dag"]
    with pytest.raises(InvalidInstanceError, match="edge_probability"):
        generator(seed=0, n=5, edge_probability=math.nan)
    with pytest.raises(InvalidInstanceError, match="n: at most"):
        generator(seed=0, n=10**9)


def test_generators_below_the_cap_make_the_same_instances():
    """The checks add no randomness: a seeded family is the instance it always was (shipped files)."""
    shipped = json.loads((REPO / "instances" / "treemem" / "random-dag-n8-p0.25-s1.json").read_text())
    again = get_problem("treemem").generators["random-dag"](seed=1, n=8, edge_probability=0.25)
    assert again.to_data() == shipped["data"]


@pytest.mark.parametrize(
    ("problem", "family", "parameters", "what"),
    [
        # edges ~ n^2 at a fixed edge probability: a 6,400-node DAG at p = 0.25 is 5.1 million edges
        ("treemem", "random-dag", {"n": 4_000, "edge_probability": 0.25}, "edges"),
        ("hetero", "layered", {"n": 100_000, "layers": 316}, "edges"),
        ("hetero", "layered", {"n": 500_000, "edge_probability": 0.0}, "task pairs drawn"),
        ("partition", "random", {"nodes": 5_000}, "edges"),
        ("coschedule", "uniform", {"n": 5_000}, "co-run pairs"),
    ],
)
def test_families_whose_size_grows_faster_than_n_are_capped_before_drawing(
    problem, family, parameters, what, monkeypatch
):
    import numpy as np

    def no_randomness(*args, **kwargs):
        raise AssertionError("the generator started drawing before refusing the size")

    monkeypatch.setattr(np.random, "default_rng", no_randomness)
    generator = get_problem(problem).generators[family]
    with pytest.raises(InvalidInstanceError, match=f"would make .* {what}") as error:
        generator(seed=0, **parameters)
    assert error.value.field in ("n", "nodes")


def test_the_same_families_below_their_caps_still_generate():
    assert get_problem("treemem").generators["random-dag"](seed=1, n=200, edge_probability=0.05).n == 200
    assert len(get_problem("hetero").generators["layered"](seed=0, n=2_000, layers=40).tasks) == 2_000
    assert len(get_problem("coschedule").generators["uniform"](seed=0, n=300, density=0.1).kernels) == 300
