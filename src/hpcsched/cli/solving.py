"""``solve`` and ``validate``: one method on one instance, and the independent check."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ..core.deadline import DEFAULT_TIME_LIMIT
from ..core.display import readable_number
from ..core.errors import InvalidInstanceError
from ..core.fields import check_method_options
from ..core.io import (
    STDIN_NAME,
    atomic_output,
    check_output_path,
    claim_violations,
    is_stdio,
    read_instance,
    read_solution_file,
    write_solution,
)
from ..core.registry import problem_of, run_method
from ..core.result import Result
from .app import (
    EXIT_BAD_INPUT,
    check_seed,
    console,
    error_console,
    fail,
    friendly_errors,
    known_method,
    load_plugins,
    not_empty,
    parse_assignments,
    summary_console,
)

#: How standard output is named in messages (``--out -``).
STDOUT_NAME = "<stdout>"

PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def _draw(problem: Any, instance: Any, solution: Any, path: Path) -> None:
    """Draw ``solution`` with the problem's ``plot_solution(instance, solution, ax=None) -> Axes``
    and save the figure to ``path`` (written atomically, or through a link, FIFO or ``-``)."""
    import inspect

    from ..plotting import save_axes

    with atomic_output(path) as temporary:
        if "ax" in inspect.signature(problem.plot).parameters:
            ax = problem.plot(instance, solution)
            save_axes(ax, temporary, format=path.suffix.lstrip(".").lower() or None)
        else:  # a plugin's plotter that still writes the file itself
            problem.plot(instance, solution, temporary)


def _check_plot_path(plot: Path) -> None:
    """Refuse a ``--plot`` path matplotlib cannot write, before any solving."""
    if plot.suffix.lower() not in PLOT_SUFFIXES:
        what = f"unknown image suffix '{plot.suffix}'" if plot.suffix else "no image suffix"
        raise InvalidInstanceError("--plot", f"{plot}: {what} (accepted: {', '.join(PLOT_SUFFIXES)})")
    check_output_path(plot, "--plot")


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def result_table(results: list[tuple[str, Result]]) -> Table:
    """Aligned table of (instance name, Result) rows."""
    table = Table(show_header=True, header_style="bold")
    for column in ("instance", "method", "status", "objective", "bound", "gap", "time (s)"):
        numeric = column in ("objective", "bound", "gap", "time (s)")
        # fold rather than truncate: a cut instance or method name is useless
        table.add_column(column, justify="right" if numeric else "left", overflow="fold", no_wrap=numeric)
    for instance_name, result in results:
        table.add_row(
            instance_name,
            result.method,
            result.status.value,
            readable_number(result.objective),
            readable_number(result.bound),
            _percent(result.gap),
            f"{result.runtime_s:.2f}",
        )
    return table


def _write_or_keep(instance: Any, result: Result, out: Path, name: str) -> None:
    """Write the solution to ``out`` when the run has one (OPTIMAL or FEASIBLE); else write nothing.

    NOT_APPLICABLE, INFEASIBLE, TIME_LIMIT_NO_SOLUTION and ERROR (no
    solution, or one the validator refused) never give a file of ``null``:
    an existing ``out`` is left as it was, so that a run that found nothing
    does not replace an earlier answer. The summary above gives the status;
    the note on stderr says the file was not written.
    """
    if result.solution is not None and result.status.has_solution:
        write_solution(instance, result, out)
        return
    kept = " (the existing file is left as it was)" if not is_stdio(out) and out.exists() else ""
    what = "an invalid solution" if result.solution is not None else "no solution"
    error_console.print(
        f"note: {STDOUT_NAME if is_stdio(out) else out} not written: {name} returned {what} "
        f"({result.status.value}){kept}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )


@friendly_errors
def solve(
    file: Path = typer.Argument(..., help="Instance file (.json or .json.gz; '-' for standard input)."),
    method: str | None = typer.Option(
        None, "--method", "-m", help="Method name (default: the problem's best exact method)."
    ),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        "-t",
        help=f"Seconds for the whole method, model building included (default {DEFAULT_TIME_LIMIT:g}).",
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed passed to the method."),
    opt: list[str] | None = typer.Option(None, "--opt", help="Method option key=value (repeatable)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the solution JSON here ('-': standard output)."),
    plot: Path | None = typer.Option(None, "--plot", help="Draw the solution to this image file (PNG, PDF, SVG)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result summary as JSON instead of a table."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems or methods (repeatable)."
    ),
) -> None:
    """Solve one instance with one method and print objective, bound, gap, status and time.

    FILE may be '-' (standard input); --out - writes the solution to standard
    output (the summary then goes to standard error). Exits 1 when the result
    is ERROR.
    """
    load_plugins(plugin)
    instance = read_instance(file)
    problem = problem_of(instance)
    not_empty(method, "--method", f"the default method, {problem.default_method}")
    name = problem.default_method if method is None else method
    known_method(problem, name, STDIN_NAME if is_stdio(file) else str(file))  # before any work
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInstanceError("--time-limit", f"must be a finite number > 0 seconds, got {time_limit}")
    check_seed(seed)
    options = parse_assignments(opt, "--opt")
    check_method_options(problem.resolve(name, instance), options)  # a dispatcher: its choice's options
    # Every output is checked before the solve: a long solve must not end in "cannot write".
    if out is not None:
        check_output_path(out, "--out")
    if plot is not None:
        if problem.plot is None:
            fail(f"problem '{problem.name}' has no plot")
        _check_plot_path(plot)
    with error_console.status(f"{problem.name}: {name} on {instance.name}...", spinner="dots"):
        result = run_method(instance, name, time_limit=time_limit, seed=seed, **options)
    shown = summary_console(out, plot)
    if as_json:
        shown.print_json(json.dumps({"instance": instance.name, **result.summary()}))
    else:
        shown.print(result_table([(instance.name, result)]))
        if result.solver:
            shown.print(f"solver: {result.solver}", highlight=False)
        for note in result.notes:
            shown.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)
    if out is not None:
        _write_or_keep(instance, result, out, name)
    if plot is not None:
        if result.solution is None:  # the table above is the answer; there is just no picture of it
            shown.print(
                f"note: {plot} not drawn: {name} returned no solution ({result.status.value})",
                highlight=False,
                soft_wrap=True,
                markup=False,
            )
        else:
            _draw(problem, instance, result.solution, plot)
    if result.status.value == "ERROR":
        raise typer.Exit(EXIT_BAD_INPUT)  # a failed run, not a usage error


@friendly_errors
def validate(
    file: Path = typer.Argument(..., help="Instance file ('-' for standard input)."),
    solution: Path = typer.Argument(
        ..., help="Solution file written by `hpcsched solve --out` ('-' for standard input)."
    ),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems (repeatable)."
    ),
) -> None:
    """Check a solution against its instance with the problem's independent validator.

    The file's recorded objective, bound and status are checked too: a
    recorded objective other than the evaluated one, a bound above it, or
    OPTIMAL with a bound below it is reported (exit 1).
    """
    if is_stdio(file) and is_stdio(solution):
        fail("only one of FILE and SOLUTION can be '-' (standard input)")
    load_plugins(plugin)
    instance = read_instance(file)
    problem = problem_of(instance)
    decoded, document = read_solution_file(solution, instance)
    violations = problem.validate(instance, decoded)
    if violations:
        for violation in violations:
            error_console.print(f"{solution}: {violation}", highlight=False, soft_wrap=True, markup=False)
        fail(f"{solution}: {len(violations)} violation(s): the solution is not feasible for {file}")
    kpis = problem.evaluate(instance, decoded)
    # A feasible schedule with a false objective, bound or OPTIMAL is a false
    # file all the same: what it records is checked against the evaluation.
    contradictions = claim_violations(document, float(kpis["objective"]))
    if contradictions:
        for violation in contradictions:
            error_console.print(f"{solution}: {violation}", highlight=False, soft_wrap=True, markup=False)
        fail(f"{solution}: {len(contradictions)} violation(s): the file's claims contradict its solution on {file}")
    # soft_wrap: one line each, whatever the width (a path cut in two breaks grep)
    console.print(f"{solution}: valid for {file}", highlight=False, soft_wrap=True, markup=False)
    for key, value in kpis.items():
        console.print(
            f"  {key} = {value:.10g}" if isinstance(value, (int, float)) else f"  {key} = {value}",
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
