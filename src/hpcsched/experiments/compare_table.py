"""What ``hpcsched compare`` shows of its rows: the table, and the rows as ``--json`` prints them.

A method that answers another question than its problem's (`Method.answers`:
a preemptive relaxation, a reference outside the solution space) is marked
with `OTHER_QUESTION_MARK` and the table's caption says which question: its
objective is not comparable with the other rows' (docs/architecture.md).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from ..core.display import readable_number

#: The mark of a method that answers another question than the problem's (`Method.answers`).
OTHER_QUESTION_MARK = "†"


def format_cell(value: Any, kind: str = "") -> str:
    """A cell: ``-`` for none, a gap in percent, a time with two decimals, a number readable."""
    if value is None:
        return "-"
    if kind == "gap":
        return f"{100 * value:.2f}%"
    if kind == "time":
        return f"{value:.2f}"
    if isinstance(value, float):
        return readable_number(value)
    return str(value)


def answers_of_row(row: Mapping[str, Any]) -> str | None:
    """The other question the run's method answers (`hpcsched.core.registry.answers_of`), or None."""
    from ..core.registry import answers_of

    return answers_of(str(row.get("problem") or ""), str(row["method"]), str(row.get("notes") or ""))


def json_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row as ``--json`` prints it: options as an object, no solver as null (as ``solve --json``),
    and ``answers`` (None: the problem's own question; not a results-file column)."""
    options = row.get("options")
    shown = {**row, "options": json.loads(options)} if isinstance(options, str) else dict(row)
    shown["solver"] = row.get("solver") or None  # the CSV's empty cell is no solver
    shown["answers"] = answers_of_row(row)
    return shown


def instance_label(row: Mapping[str, Any], rows: list[dict[str, Any]]) -> str:
    """The instance's name, with its file (as given) when another file holds an instance of the same name."""
    shared = len({other.get("file") for other in rows if other["instance"] == row["instance"]}) > 1
    return f"{row['instance']} ({row['file']})" if shared and row.get("file") else str(row["instance"])


def _caption(rows: list[dict[str, Any]], questions: list[str | None]) -> str | None:
    """One line per other question: which methods answer it."""
    methods: dict[str, set[str]] = defaultdict(set)
    for row, question in zip(rows, questions, strict=True):
        if question:
            methods[question].add(str(row["method"]))
    lines = [
        f"{OTHER_QUESTION_MARK} {', '.join(sorted(names))}: another question ({question}), not comparable"
        for question, names in sorted(methods.items())
    ]
    return "\n".join(lines) or None


def compare_table(rows: list[dict[str, Any]], time_limit: float, seed: int) -> Any:
    """The rich table of ``compare``: one line per run."""
    from rich.console import JustifyMethod
    from rich.table import Table

    questions = [answers_of_row(row) for row in rows]
    table = Table(
        title=f"{len(rows)} runs, time limit {time_limit:g} s, seed {seed}", caption=_caption(rows, questions)
    )
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("instance", "left"),
        ("method", "left"),
        ("objective", "right"),
        ("bound", "right"),
        ("gap", "right"),
        ("status", "left"),
        ("time (s)", "right"),
    )
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for row, question in zip(rows, questions, strict=True):
        table.add_row(
            instance_label(row, rows),
            f"{row['method']} {OTHER_QUESTION_MARK}" if question else row["method"],
            format_cell(row["objective"]),
            format_cell(row["bound"]),
            format_cell(row["gap"], "gap"),
            row["status"],
            format_cell(row["runtime_s"], "time"),
        )
    return table
