"""The solution file shown in docs/architecture.md ("Files") is real: the reader and the validator accept it.

The problem pages show only the ``solution`` member; the architecture page
shows the whole file once and says which fields are required. A renamed
field, a changed sha256 or an infeasible schedule in that example fails
here, and so do the two refusals the page describes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.errors import InvalidSolutionError

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"

# The page indents the block inside a list item: the fence and the body may be indented.
FENCE = re.compile(r"^[ \t]*```json[^\n]*\n(?P<body>.*?)^[ \t]*```\s*$", re.MULTILINE | re.DOTALL)


def solution_example() -> dict:
    """The one ```json block of the architecture page that holds a ``solution`` member."""
    blocks = [json.loads(match["body"]) for match in FENCE.finditer(PAGE.read_text(encoding="utf-8"))]
    solutions = [block for block in blocks if isinstance(block, dict) and "solution" in block]
    assert len(solutions) == 1, f"{PAGE}: expected one solution-file example, found {len(solutions)}"
    return solutions[0]


def instance_of(document: dict) -> object:
    return hpcsched.read_instance(ROOT / "instances" / document["problem"] / f"{document['instance']['name']}.json")


def write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "example.sol.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_the_example_reads_and_is_feasible(tmp_path: Path) -> None:
    document = solution_example()
    assert set(document) == {"problem", "format", "instance", "solution"}
    instance = instance_of(document)
    solution = hpcsched.read_solution(write(tmp_path, document), instance)
    assert hpcsched.validate(instance, solution) == []


def test_the_bare_solution_member_is_refused_as_the_page_says(tmp_path: Path) -> None:
    document = solution_example()
    with pytest.raises(InvalidSolutionError, match="problem: is missing"):
        hpcsched.read_solution(write(tmp_path, document["solution"]), instance_of(document))


def test_a_sha256_of_other_data_is_refused(tmp_path: Path) -> None:
    document = solution_example()
    other = {**document, "instance": {**document["instance"], "sha256": "0" * 64}}
    with pytest.raises(InvalidSolutionError, match="instance.sha256"):
        hpcsched.read_solution(write(tmp_path, other), instance_of(document))
