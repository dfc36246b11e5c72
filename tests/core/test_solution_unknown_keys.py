"""Every problem's solution reader refuses a key it does not know, in one error naming it.

A misspelt optional member (``"strat"`` for ``"start"``) would otherwise be
ignored and the file validated as something else than its author meant. For
each problem that ships instances, the smallest instance of each data shape
(the set of ``data`` keys: a treemem parallel or out-of-core question, a
checkpoint chain with a host link) is solved by its cheap methods; every
distinct solution shape gets an unknown key in each of its JSON objects in
turn, and ``read_solution`` must refuse each with the key's path.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from clirunner import CliRunner

import hpcsched
from hpcsched.cli import app
from hpcsched.core.errors import InvalidSolutionError
from hpcsched.core.io import read_instance, read_solution, solution_document
from hpcsched.core.registry import problem_names

from .instance_mutations import locations

REPO = Path(__file__).resolve().parents[2]
CHEAP_KINDS = ("baseline", "heuristic", "special")
UNKNOWN = "colour"
SHAPE_BUDGET_S = 0.25


def _shipped(problem: str) -> list[Path]:
    """The smallest shipped instance of each data shape (the set of ``data`` keys)."""
    files = [f for f in sorted((REPO / "instances" / problem).glob("*.json")) if f.name != "solved.json"]
    smallest: dict[tuple[str, ...], Path] = {}
    for file in sorted(files, key=lambda f: (f.stat().st_size, f.name)):
        document = json.loads(file.read_text())
        if isinstance(document, dict) and isinstance(document.get("data"), dict) and "problem" in document:
            smallest.setdefault(tuple(sorted(document["data"])), file)
    return list(smallest.values())


def _problems_with_instances() -> list[str]:
    return [p for p in problem_names() if _shipped(p)]


def _solution_documents(problem: str) -> list[tuple[Path, dict]]:
    """One solution file per distinct solution shape (its JSON objects' key sets)."""
    found: dict[tuple, tuple[Path, dict]] = {}
    for file in _shipped(problem):
        instance = read_instance(file)
        for method in hpcsched.methods(problem):
            if method.kind not in CHEAP_KINDS:
                continue
            # A short budget: only the solution's shape matters, not its quality, and the anytime
            # heuristics (offload's local-search, transfers' iterated-greedy) use all of it.
            result = hpcsched.solve(instance, method.name, time_limit=SHAPE_BUDGET_S)
            if result.solution is None or not result.status.has_solution:
                continue
            document = json.loads(json.dumps(solution_document(instance, result)))
            objects = [document["solution"]] + [c[k] for c, k in locations(document["solution"]) if _object(c[k])]
            shape = tuple(tuple(sorted(o)) for o in objects[:8])
            found.setdefault((file.name, shape), (file, document))
    return list(found.values())


def _object(value) -> bool:
    return isinstance(value, dict)


@pytest.mark.parametrize("problem", _problems_with_instances())
def test_an_unknown_key_in_any_object_of_a_solution_is_refused(problem, tmp_path):
    documents = _solution_documents(problem)
    assert documents, f"no cheap method of {problem} solved its smallest instances"
    checked = 0
    for file, document in documents:
        instance = read_instance(file)
        count = 1 + sum(1 for c, k in locations(document["solution"]) if _object(c[k]))
        for which in range(min(count, 4)):  # the top object and the first nested records
            mutated = copy.deepcopy(document)
            objects = [mutated["solution"]] + [c[k] for c, k in locations(mutated["solution"]) if _object(c[k])]
            objects[which][UNKNOWN] = 1
            path = tmp_path / f"{problem}-{which}.json"
            path.write_text(json.dumps(mutated))
            with pytest.raises(InvalidSolutionError) as error:
                read_solution(path, instance)
            message = str(error.value)
            assert message.startswith(f"{path}: solution."), message
            assert UNKNOWN in message, message
            assert "solution.solution" not in message, message  # the path in the file, named once
            checked += 1
    assert checked


def test_validate_names_the_unknown_key_in_one_line(tmp_path):
    """From the command line: one line naming the file and the key, exit 1."""
    instance = REPO / "instances" / "transfers" / "uniform-n5-m1-s1.json"
    solution = tmp_path / "sol.json"
    assert runner.invoke(app, ["solve", str(instance), "-m", "johnson", "--out", str(solution)]).exit_code == 0
    document = json.loads(solution.read_text())
    document["solution"]["compute_strat"] = document["solution"]["compute_start"]
    solution.write_text(json.dumps(document))
    result = runner.invoke(app, ["validate", str(instance), str(solution)])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert f"{solution}: solution.compute_strat: is not a field of a transfers solution" in lines[0]


runner = CliRunner()


@pytest.mark.parametrize("key", ["objectve", "kpis", "soluton"])
def test_an_unknown_top_level_key_of_a_solution_file_is_refused(tmp_path, key):
    """A misspelt top-level key (its claim would be ignored) gives one line naming it, exit 1."""
    instance = REPO / "instances" / "transfers" / "uniform-n5-m1-s1.json"
    solution = tmp_path / "sol.json"
    assert runner.invoke(app, ["solve", str(instance), "-m", "johnson", "--out", str(solution)]).exit_code == 0
    assert runner.invoke(app, ["validate", str(instance), str(solution)]).exit_code == 0  # as written: accepted
    document = json.loads(solution.read_text())
    document[key] = 1
    solution.write_text(json.dumps(document))
    result = runner.invoke(app, ["validate", str(instance), str(solution)])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert f"{solution}: {key}: is not a field of a solution file" in lines[0]
