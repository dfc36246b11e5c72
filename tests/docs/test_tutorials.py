"""Every code block of the tutorials runs as written (docs/tutorials/*.md).

Each tutorial page is replayed in order in an empty folder that has the
repository's ``instances/`` beside it:

- a block with ``title="NAME"`` is a file the reader saves: it is written to
  NAME (snippet lines ``--8<-- "path"`` expanded from the repository, as
  MkDocs' pymdownx.snippets does);
- a ``bash`` block runs with ``bash -euo pipefail``, the environment's
  ``hpcsched`` first on PATH;
- a ``python`` block runs in a fresh interpreter; one made only of snippet
  sections (``--8<-- "file.py:section"``, the pieces of a file shown step by
  step) is checked to resolve but not run on its own: the whole file is;
- other blocks (``text`` output, a ``toml`` fragment without a title) are
  shown, not run.

Commands run through subprocesses, so a tutorial's plugin never registers
its methods or problems in the test process.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
PAGES = ("compare.md", "plugin.md", "add-a-problem.md")

FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SNIPPET = re.compile(r'^--8<-- "(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"\s*$')
BLOCK_TIMEOUT_S = 300  # a guard against a hang, not a performance assertion


@dataclass(frozen=True)
class Block:
    language: str
    title: str | None
    body: str


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of ``page`` in order."""
    found = []
    for match in FENCE.finditer(page.read_text(encoding="utf-8")):
        info = match["info"].strip()
        language = info.split()[0] if info else ""
        title = re.search(r'title="([^"]+)"', info)
        found.append(Block(language, title[1] if title else None, match["body"]))
    return found


def section_of(text: str, section: str, path: str) -> str:
    """The lines between ``--8<-- [start:section]`` and ``[end:section]``."""
    start = re.search(rf"^.*--8<-- \[start:{section}\].*\n", text, re.MULTILINE)
    end = re.search(rf"^.*--8<-- \[end:{section}\].*$", text, re.MULTILINE)
    assert start and end, f"{path}: no snippet section '{section}'"
    return text[start.end() : end.start()]


def expand(body: str) -> str:
    """``body`` with its snippet lines replaced by the files (or sections) they name."""
    out = []
    for line in body.splitlines(keepends=True):
        match = SNIPPET.match(line.strip())
        if not match:
            out.append(line)
            continue
        path = ROOT / match["path"]
        assert path.is_file(), f"snippet {match['path']} does not exist"
        text = path.read_text(encoding="utf-8")
        if match["section"]:
            text = section_of(text, match["section"], match["path"])
        else:  # the whole file, as shown: section markers are dropped
            text = "".join(x for x in text.splitlines(keepends=True) if "--8<-- [" not in x)
        out.append(text)
    return "".join(out)


def only_snippet_sections(body: str) -> bool:
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    return bool(lines) and all((m := SNIPPET.match(line)) and m["section"] for line in lines)


def run(command: list[str], cwd: Path, what: str) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    env["COLUMNS"] = "160"
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("page", PAGES)
def test_every_block_of_the_tutorial_runs(page: str, tmp_path: Path) -> None:
    (tmp_path / "instances").symlink_to(ROOT / "instances", target_is_directory=True)
    ran = 0
    for number, block in enumerate(blocks(TUTORIALS / page), start=1):
        what = f"{page} block {number} ({block.language} {block.title or ''})"
        if block.title is not None:
            (tmp_path / block.title).write_text(expand(block.body), encoding="utf-8")
        elif block.language == "bash":
            run(["bash", "-euo", "pipefail", "-c", block.body], tmp_path, what)
            ran += 1
        elif block.language == "python" and only_snippet_sections(block.body):
            expand(block.body)  # the sections exist; the whole file is run through its titled block
        elif block.language == "python":
            script = tmp_path / f"block_{number}.py"
            script.write_text(block.body, encoding="utf-8")
            run([sys.executable, script.name], tmp_path, what)
            ran += 1
    assert ran >= 2, f"{page}: expected runnable blocks, found {ran}"


def test_the_plugin_page_shows_the_tested_plugin_file() -> None:
    """The plugin tutorial includes tests/docs/my_heuristic.py verbatim (what the test above runs)."""
    titled = {b.title: b for b in blocks(TUTORIALS / "plugin.md") if b.title}
    assert titled["my_heuristic.py"].body.strip() == '--8<-- "tests/docs/my_heuristic.py"'


def test_a_broken_block_fails(tmp_path: Path) -> None:
    """The replay can fail: a command that exits non-zero is reported with its output."""
    with pytest.raises(AssertionError, match="no such problem|unknown|failed"):
        run(["bash", "-euo", "pipefail", "-c", "hpcsched methods no-such-problem"], tmp_path, "broken block")
