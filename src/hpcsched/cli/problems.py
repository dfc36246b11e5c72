"""``methods`` and ``schema``: what the problems offer, and their file format."""

from __future__ import annotations

import json
import sys

import typer
from rich.markup import escape
from rich.table import Table

from ..core.io import instance_schema
from ..core.method_table import MethodSummary
from ..core.registry import get_problem, problem_names, problem_summaries
from .app import (
    console,
    friendly_errors,
    load_plugins,
    not_empty,
)


@friendly_errors
def show_methods(
    problem: str | None = typer.Argument(None, help="Problem name (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the problems and methods as JSON instead of a table."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems or methods (repeatable)."
    ),
) -> None:
    """List the problems, their methods (with each method's options: name, type, default), generators and importers."""
    load_plugins(plugin)
    not_empty(problem, "PROBLEM", "every problem")
    names = [problem] if problem is not None else problem_names()
    if problem is not None and problem not in problem_names():
        get_problem(problem)  # an entry point's problem loads here; an unknown name fails, naming the known ones
    summaries = problem_summaries(names)
    if as_json:
        console.print_json(json.dumps([summary.to_data() for summary in summaries]))
        return
    table = Table(show_header=True, header_style="bold")
    for column in ("problem", "method", "kind", "summary", "options (--opt name=value)"):
        table.add_column(column, overflow="fold")
    extras = []
    for entry in summaries:
        for method in entry.methods:
            flag = " (default)" if method.name == entry.default_method else ""
            summary = method.summary
            if method.answers:  # not ranked with the others by compare and study reports
                summary = f"[answers another question: {method.answers}] {summary}"
            table.add_row(entry.name, method.name + flag, method.kind, escape(summary), _options_text(method))
        generators = ", ".join(entry.generators) or "-"
        importers = ", ".join(entry.importers) or "-"
        extras.append(f"{entry.name}: generators {generators}; importers {importers}")
    console.print(table)
    for line in extras:
        console.print(line, highlight=False)


def _options_text(method: MethodSummary) -> str:
    """One line per option, ``name: type = default`` (``-`` for a method without options)."""
    if not method.options:
        return "-"
    return "\n".join(f"{o.name}: {o.type} = {json.dumps(o.default)}" for o in method.options)


@friendly_errors
def schema(
    problem: str = typer.Argument(..., help="Problem name."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems (repeatable)."
    ),
) -> None:
    """Print the JSON Schema of PROBLEM's instance files (the one the reader validates against)."""
    load_plugins(plugin)
    sys.stdout.write(json.dumps(instance_schema(get_problem(problem)), indent=2) + "\n")
