"""Every registered generator family, called with no parameter, writes an
instance that reads back and that a heuristic or baseline solves into a
solution the validator accepts (``generate`` -> ``solve --out`` -> ``validate``)."""

from __future__ import annotations

import pytest
from clirunner import CliRunner

from hpcsched.cli import app
from hpcsched.core.registration import _is_shipped
from hpcsched.core.registry import PROBLEM_PACKAGES, get_problem, methods

runner = CliRunner()


def _families() -> list[tuple[str, str]]:
    pairs = []
    for problem in PROBLEM_PACKAGES:
        if not _is_shipped(problem):
            continue
        try:
            families = get_problem(problem).generators
        except Exception:  # a package that does not import fails its own tests; here: one case that fails
            pairs.append((problem, "?"))
            continue
        pairs.extend((problem, family) for family in families)
    return pairs


def _cheap_methods(problem: str) -> list[str]:
    """Baselines first, then heuristics (the cheapest kinds).

    The order is this tuple's, not `METHOD_KINDS`' (which puts heuristics first): an anytime
    heuristic (partition's cpsat-lns on the 199-node training default) uses all of ``-t``.
    """
    kinds = ("baseline", "heuristic")
    chosen = [m for m in methods(problem) if m.kind in kinds]
    return [m.name for m in sorted(chosen, key=lambda m: (kinds.index(m.kind), m.name))]


@pytest.mark.parametrize(("problem", "family"), _families())
def test_defaults_of_every_family_give_a_valid_instance(problem, family, tmp_path):
    instance = tmp_path / "x.json"
    generated = runner.invoke(app, ["generate", problem, "--family", family, "-o", str(instance)])
    assert generated.exit_code == 0, generated.output
    solution = tmp_path / "solution.json"
    statuses = []
    for method in _cheap_methods(problem):
        solved = runner.invoke(
            app, ["solve", str(instance), "-m", method, "-t", "20", "--json", "--out", str(solution)]
        )
        assert solved.exit_code == 0, solved.output  # never ERROR on a generated instance
        if solution.exists() and '"solution": null' not in solution.read_text():
            checked = runner.invoke(app, ["validate", str(instance), str(solution)])
            assert checked.exit_code == 0, checked.output
            return
        statuses.append((method, solved.stdout))
    pytest.fail(f"no baseline or heuristic found a solution of {problem}/{family}: {statuses}")
