"""Guards that keep the shape of the code base: file sizes, clean notebooks, docs without history.

The complexity guard (no function above McCabe complexity 20) is ruff's C90 rule,
configured in pyproject.toml and run by .ci/run (`ruff check .`); the layer order of
the problem packages is test_layer_direction.py.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "hpcsched"

#: docs/architecture.md: "A file that grows past ~400 lines becomes a folder of the same name".
MAX_SOURCE_LINES = 400

#: Our own history in user-facing text: issue and session numbers, "a new user found".
#: A reference to another project's tracker ("google/or-tools issue 5246") names its project.
_HISTORY = re.compile(r"\b(issue|session|stop) \d+\b|\bnew user\b|\bthis session\b", re.IGNORECASE)
_OTHER_PROJECT = re.compile(r"[\w.-]+/[\w.-]+ issue \d+", re.IGNORECASE)


def _user_facing_text() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "benchmarks").rglob("*.md"))]
    return [*pages, *sorted(SOURCE.rglob("*.py"))]


def test_no_source_file_is_longer_than_the_limit():
    long = {
        str(path.relative_to(ROOT)): lines
        for path in SOURCE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MAX_SOURCE_LINES
    }
    assert long == {}, f"split these into a folder of the same name (docs/architecture.md): {long}"


def test_ruff_checks_complexity():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "C90" in config["select"]
    assert config["mccabe"]["max-complexity"] <= 20


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda path: path.name)
def test_notebooks_are_committed_without_outputs(notebook):
    cells = json.loads(notebook.read_text())["cells"]
    dirty = [
        index
        for index, cell in enumerate(cells)
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None)
    ]
    assert dirty == [], f"cells {dirty} keep outputs: clear them (nbmake runs the notebooks in the tests)"


def test_docs_and_code_carry_no_project_history():
    found = []
    for path in _user_facing_text():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if _HISTORY.search(_OTHER_PROJECT.sub("", line)):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == [], (
        "say what the software does, not when or by whom it changed (git log keeps that):\n" + "\n".join(found)
    )
