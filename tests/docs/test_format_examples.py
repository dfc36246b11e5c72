"""The instance files shown in the problem pages are real: they parse, the reader accepts them, they match the shipped file.

Every ```json block of ``docs/<problem>.md`` that declares a ``"problem"``
key is an instance file a reader may copy. It must be complete JSON (no
``...`` placeholders), the reader (`hpcsched.core.io.instance_from_document`:
the JSON Schema, then the problem's own checks) must accept it, it must be an
instance of the page's problem, and when ``instances/<problem>/<name>.json``
is shipped, the example must be that file, whole, so that a field renamed or
a value regenerated shows up here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hpcsched.core.io import instance_from_document, read_instance
from hpcsched.core.registry import problem_names

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
INSTANCES = ROOT / "instances"

FENCE = re.compile(r"^```json[^\n]*\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
DECLARES_PROBLEM = re.compile(r'"problem"\s*:')

#: Pages whose example is known not to be a complete instance file yet (each uses ``...``
#: placeholders). Their owners replace the example with a shipped instance, whole, and
#: remove the page from this list (strict: a fixed example fails here until it is removed).
KNOWN_INCOMPLETE = {
    "burstbuffer": "`...` placeholders in name, source and the application list",
    "coschedule": "`...` placeholders in name, source and the kernel list",
    "locality": "`...` placeholders in name, source and the task list",
    "offload": "`...` placeholders in source and every per-layer list",
    "partition": "`...` placeholders in name and source",
    "treemem": "`...` placeholders in the node and edge lists",
}


@dataclass(frozen=True)
class Example:
    """One ```json block that declares a problem: its page, its first line and its text."""

    page: Path
    line: int
    text: str

    @property
    def problem(self) -> str:
        return self.page.stem

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def examples() -> list[Example]:
    """Every instance example of the problem pages, in page order."""
    found = []
    for problem in sorted(problem_names()):
        page = DOCS / f"{problem}.md"
        if not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if DECLARES_PROBLEM.search(match["body"]):
                line = text.count("\n", 0, match.start()) + 2  # the block's first line, after the fence
                found.append(Example(page, line, match["body"]))
    return found


def _param(example: Example) -> object:
    reason = KNOWN_INCOMPLETE.get(example.problem)
    # Only the "not JSON" failure is expected of them: any other is a real failure.
    expected = pytest.mark.xfail(strict=True, raises=pytest.fail.Exception, reason=f"{example.where}: {reason}")
    marks = [expected] if reason else []
    return pytest.param(example, id=example.where.removeprefix("docs/"), marks=marks)


EXAMPLES = examples()


def test_the_transfers_page_has_an_example():
    # Guards the collection: a fence pattern that matched nothing would make the test below vacuous.
    assert [e.problem for e in EXAMPLES].count("transfers") == 1


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES])
def test_example_is_a_readable_instance_of_its_page(example: Example):
    try:
        document = json.loads(example.text)
    except json.JSONDecodeError as error:
        pytest.fail(f"{example.where}: not JSON ({error}); show a complete instance file")
    assert document["problem"] == example.problem, f"{example.where}: an instance of another problem"
    instance = instance_from_document(document, example.where)  # raises with the JSON path if the reader refuses
    shipped = INSTANCES / example.problem / f"{instance.name}.json"
    if shipped.is_file():
        assert document == json.loads(shipped.read_text(encoding="utf-8")), (
            f"{example.where} differs from {shipped.relative_to(ROOT)}"
        )
        assert instance.to_data() == read_instance(shipped).to_data()


def test_a_placeholder_example_is_refused():
    # The test above must be able to fail: the example this page showed before (time_unit and capacity
    # not those of the file it names, tasks elided) is caught.
    stale = Example(
        DOCS / "transfers.md",
        1,
        '{"problem": "transfers", "format": 1, "name": "uniform-n5-m1-s1", "time_unit": "us",\n'
        ' "source": {"generator": "uniform", "seed": 1, "n": 5, "memory_factor": 1.0},\n'
        ' "data": {"capacity": 100,\n'
        '          "tasks": [{"name": "t0", "transfer": 48, "compute": 15, "memory": 87}, ...]}}\n',
    )
    with pytest.raises(pytest.fail.Exception, match="not JSON"):
        test_example_is_a_readable_instance_of_its_page(stale)
    complete_but_stale = Example(stale.page, 1, stale.text.replace(", ...]", "]"))
    with pytest.raises(AssertionError, match="differs from instances/transfers/uniform-n5-m1-s1.json"):
        test_example_is_a_readable_instance_of_its_page(complete_but_stale)
