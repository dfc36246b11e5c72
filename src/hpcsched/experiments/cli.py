"""Command-line front of the experiments engine: ``compare`` and ``study``.

The main ``hpcsched`` application calls `register(app)`. Both commands are
thin: they build tasks and hand them to `run_tasks`, the same engine (runner
children with hard deadlines, validation through ``run_method``) whether it
is one comparison on a laptop or a study on a cluster. Bad input ends with one
line on stderr and the main CLI's exit codes (1 bad input or failed run, 2 usage, 3 bug).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import signal
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from ..core.errors import HpcschedError, UnknownMethodError
from .compare_table import compare_table, format_cell, json_row

#: Default per-run time limit of ``compare`` (seconds).
COMPARE_TIME_LIMIT_S = 10.0


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _one_line_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Whatever escapes a command ends in one line on stderr, never a traceback:
    a file problem (exit 1) names the file; anything else is a bug (exit 3,
    the traceback with HPCSCHED_DEBUG=1), as in the main CLI."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, SystemExit, KeyboardInterrupt):
            raise
        except HpcschedError as error:
            raise _fail(str(error)) from None
        except OSError as error:
            where = f"{error.filename}: " if getattr(error, "filename", None) else ""
            raise _fail(f"{where}{error.strerror or error}") from None
        except Exception as error:
            if os.environ.get("HPCSCHED_DEBUG"):
                raise
            raise _fail(
                f"internal error ({type(error).__name__}): {error} "
                "(set HPCSCHED_DEBUG=1 to see the traceback, and please report it)",
                3,
            ) from None

    return wrapper


@contextlib.contextmanager
def _sigterm_as_exit():
    """While running: SIGTERM becomes SystemExit, so that the runner children
    are killed on the way out (the rows already written stay); warnings (e.g.
    oversubscription) print as one ``warning: ...`` line on stderr."""

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    def show(message, category, filename, lineno, file=None, line=None):
        typer.echo(f"warning: {message}", err=True)

    previous_show = warnings.showwarning
    warnings.showwarning = show
    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        previous = None
    try:
        yield
    finally:
        warnings.showwarning = previous_show
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _console(stderr: bool = False):
    """A console that never squeezes a table: when not a terminal, COLUMNS if set (rich reads it), else 250."""
    from rich.console import Console

    console = Console(stderr=stderr)
    if console.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return console
    return Console(width=250, stderr=stderr)


@_one_line_errors
def compare(
    files: list[Path] = typer.Argument(..., help="Instance files (.json or .json.gz), any problems."),
    methods: str = typer.Option(
        "all",
        "--methods",
        "-m",
        help="Comma-separated method names, or 'all' (every method of the file's problem except brute-force).",
    ),
    time_limit: float = typer.Option(COMPARE_TIME_LIMIT_S, "--time-limit", "-t", min=0.001, help="Seconds per run."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Concurrent runs."),
    executor: str = typer.Option("local", "--executor", help="local (process pool) or dask."),
    scheduler: str | None = typer.Option(None, "--scheduler", help="Dask scheduler address (default: a LocalCluster)."),
    csv: Path | None = typer.Option(
        None,
        "--csv",
        help="Also write the rows to this CSV file ('-': standard output; a regular file is replaced atomically).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed passed to every method."),
    grace: float | None = typer.Option(
        None, "--grace", min=0, help="Seconds past the time limit before a run is killed."
    ),
    plugin: list[str] = typer.Option(
        [], "--plugin", help="Module or .py file registering an extra problem (repeatable)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as a JSON list instead of a table."),
) -> None:
    """Run several methods on several instance files and print one aligned table.

    Exits 1 when a run ends in ERROR (not with -m all for a method whose optional solver is missing).
    """
    from ..core.fields import require_seed
    from ..core.io import check_output_path
    from .engine import EXECUTORS, run_tasks
    from .runs import failed_runs, load_plugins, row_key, task_key

    # An HpcschedError raised here ends as one "error: ..." line through _one_line_errors.
    if executor not in EXECUTORS:
        raise _fail(f"--executor must be one of {', '.join(EXECUTORS)}, got '{executor}'")
    require_seed(seed, "--seed")
    # click's range check lets infinity through (and NaN past a minimum): a run needs finite seconds
    if not math.isfinite(time_limit):
        raise _fail(f"--time-limit: must be a finite number > 0 seconds, got {time_limit}")
    if grace is not None and not math.isfinite(grace):
        raise _fail(f"--grace: must be a finite number >= 0 seconds, got {grace}")
    plugins = load_plugins(plugin)
    instances = _read_instance_files(files)
    requested = [name.strip() for name in methods.split(",")]
    if not any(requested):
        raise _fail("--methods is empty")
    if not all(requested):  # "johnson," or "a,,b": a name left out by mistake, not a request for fewer runs
        raise _fail(f"--methods: an empty method name in '{methods}'")
    if csv is not None:  # before any run: a long comparison must not end in "cannot write"
        check_output_path(csv, "--csv")
    tasks = [
        task
        for instance_file in instances
        for task in _compare_tasks(instance_file, requested, seed, time_limit, grace, plugins)
    ]
    with _sigterm_as_exit():
        summary = run_tasks(tasks, executor=executor, jobs=jobs, scheduler=scheduler, description="compare")
    by_key = {row_key(row): row for row in summary.rows}
    # Each row names its file: two files may hold instances of the same name.
    rows = [{**by_key[task_key(task)], "file": task["instance_file"]} for task in tasks if task_key(task) in by_key]
    _report_rows(rows, csv, as_json, time_limit, seed)
    failed = failed_runs(rows, every_method=requested == ["all"])  # the table and the CSV are written first
    if failed:
        raise _fail(f"{len(failed)} of {len(rows)} runs ended in ERROR")


def _report_rows(rows: list[dict[str, Any]], csv: Path | None, as_json: bool, time_limit: float, seed: int) -> None:
    """Print the rows (a table, or JSON with ``--json``) and the runs' errors; write the CSV if asked."""
    from ..core.io import is_stdio
    from .store import write_csv

    to_stdout = csv is not None and is_stdio(csv)  # the CSV owns stdout: the table goes to stderr
    if as_json:
        # a row stores its options as JSON text (the CSV's column); --json gives them as an object
        text = json.dumps([json_row(row) for row in rows], indent=1, default=str)
        typer.echo(text, err=to_stdout)
    else:
        _console(stderr=to_stdout).print(compare_table(rows, time_limit, seed))
    for row in rows:
        if row["error"]:
            typer.echo(f"{row['instance']} / {row['method']}: {row['error']}", err=True)
    if csv is not None:
        # results-file columns only: `study report` checks this header (instance_sha256 tells files apart)
        write_csv(rows, csv)  # an OutputPathError names the user's path
        typer.echo(f"wrote {len(rows)} rows to {csv}", err=True)


@dataclass(frozen=True)
class _InstanceFile:
    """An instance read from a file given on the command line."""

    instance: Any
    file: str


def _read_instance_files(files: list[Path]) -> list[_InstanceFile]:
    """The instances among ``files``; the files that are not instances are skipped with a note.

    A shell glob such as ``instances/transfers/*.json`` also takes the
    folder's solved.json (or a solution file): not an instance, skipped. A
    broken instance file fails.
    """
    from ..core.errors import NotAnInstanceError
    from ..core.io import read_instance

    instances, skipped = [], []
    for file in files:
        try:
            instances.append(_InstanceFile(read_instance(file), str(file)))
        except NotAnInstanceError:
            skipped.append(str(file))
    if not instances:
        raise _fail(f"no instance file among the files given ({', '.join(skipped)}: not instance files)")
    for skipped_file in skipped:
        typer.echo(f"note: skipped {skipped_file}: not an instance file", err=True)
    return instances


#: The order of ``--methods all``: exact methods first, baselines last.
_KIND_ORDER = ("exact", "special", "heuristic", "baseline")


def _compare_tasks(
    instance_file: _InstanceFile,
    requested: list[str],
    seed: int,
    time_limit: float,
    grace: float | None,
    plugins: Any,
) -> list[Any]:
    """The runs of the ``requested`` methods (``["all"]``: every method but brute force) on one instance."""
    from ..core.registry import problem_of
    from .engine import instance_fields, make_task

    problem = problem_of(instance_file.instance)
    if requested == ["all"]:
        names = [m.name for m in problem.methods.values() if m.kind != "brute-force"]
        names.sort(key=lambda n: (_KIND_ORDER.index(problem.methods[n].kind), n))
    else:
        names = requested
    for name in names:
        try:
            problem.method(name)  # the same message as solve's, with its "did you mean"
        except UnknownMethodError as error:
            raise _fail(f"{instance_file.file}: {error}") from None
    prepared = instance_fields(instance_file.instance, instance_file.file)
    return [
        make_task(
            instance_file.instance,
            name,
            seed=seed,
            time_limit=time_limit,
            grace=grace,
            plugins=plugins,
            prepared=prepared,
        )
        for name in names
    ]


study_app = typer.Typer(help="Resumable studies: methods x instances x time limits x seeds.", no_args_is_help=True)


@study_app.command("run")
@_one_line_errors
def study_run(
    study_file: Path = typer.Argument(..., metavar="STUDY.toml", help="The study file (see docs/study.md)."),
    executor: str | None = typer.Option(None, "--executor", help="local or dask (default: the study's)."),
    scheduler: str | None = typer.Option(
        None, "--scheduler", help="Dask scheduler address (default: the study's, else a LocalCluster)."
    ),
    jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Concurrent runs (default: the study's)."),
    results: Path | None = typer.Option(None, "--results", help="Results file (default: the study's)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
) -> None:
    """Run every run of a study that its results file does not hold yet."""
    from .engine import EXECUTORS
    from .study import load_study, run_study

    if executor is not None and executor not in EXECUTORS:
        raise _fail(f"--executor must be one of {', '.join(EXECUTORS)}, got '{executor}'")
    try:
        study = load_study(study_file)
        with _sigterm_as_exit():
            summary = run_study(
                study, executor=executor, jobs=jobs, scheduler=scheduler, results=results, progress=progress
            )
    except HpcschedError as error:
        raise _fail(str(error)) from None
    where = results or study.results
    typer.echo(
        f"{study.name}: ran {summary.ran} runs, skipped {summary.skipped} already recorded"
        + (f" and {summary.duplicates} duplicates" if summary.duplicates else "")
        + f"; results in {where}"
    )


@study_app.command("report")
@_one_line_errors
def study_report(
    results: Path = typer.Argument(..., help="A results file written by 'study run' or 'compare --csv'."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Output folder (default: RESULTS-report beside it)."),
) -> None:
    """Gap tables, performance profiles and gap-versus-size plots, as Markdown and PNG."""
    from rich.table import Table

    from .report import report
    from .report.summary import not_ranked

    out = out or results.with_name(results.name.removesuffix(".csv").removesuffix(".parquet") + "-report")
    try:
        written = report(results, out)
    except (HpcschedError, ValueError) as error:
        raise _fail(str(error)) from None
    table = Table(title=f"{results}")
    for column in (
        "configuration",
        "runs",
        "n/a",
        "solved",
        "optimal",
        "mean gap",
        "worst gap",
        "geo-mean ratio",
        "mean time (s)",
    ):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for line in written.table:
        table.add_row(
            line["configuration"],
            str(line["runs"]),
            str(line["not_applicable"]),
            format_cell(line["solved"], "gap"),
            format_cell(line["proven_optimal"], "gap"),
            format_cell(line["mean_gap"], "gap"),
            format_cell(line["worst_gap"], "gap"),
            "-" if line["geomean_ratio"] is None else f"{line['geomean_ratio']:.4f}",
            format_cell(line["mean_runtime_s"], "time"),
        )
    table.caption = not_ranked(written.table) or None  # marked † in the table: reported, never ranked
    _console().print(table)
    typer.echo(f"report: {written.markdown}")


def register(app: typer.Typer) -> None:
    """Add ``compare`` and the ``study`` group to ``app`` (the main CLI)."""
    app.command("compare")(compare)
    app.add_typer(study_app, name="study")
