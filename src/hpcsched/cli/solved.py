"""``solved``: the table of known optima of a problem's shipped instances, made or checked."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from ..core.deadline import DEFAULT_TIME_LIMIT
from ..core.display import readable_number
from ..core.errors import InvalidInstanceError, OptionError
from ..core.fields import check_method_options
from ..core.io import read_instance
from ..core.registry import Problem, get_problem, problem_of
from .app import (
    EXIT_BAD_INPUT,
    check_seed,
    console,
    error_console,
    fail,
    friendly_errors,
    known_method,
    load_plugins,
    parse_assignments,
)

if TYPE_CHECKING:
    from ..core.solved import SolvedEntry


@friendly_errors
def solved(
    problem: str = typer.Argument(..., help="Problem whose shipped instances to solve."),
    method: list[str] | None = typer.Option(
        None,
        "--method",
        "-m",
        help="Method of the portfolio, tried in order (repeatable; default: the problem's default method).",
    ),
    only: list[str] | None = typer.Option(
        None,
        "--only",
        help="Instance file (name, or path in the folder) to (re)solve or check, keeping the others (repeatable).",
    ),
    check: bool = typer.Option(
        False,
        "--check",
        help="Re-run each entry's recorded runs and report contradictions (exit 1 if any); write nothing.",
    ),
    time_limit: float = typer.Option(DEFAULT_TIME_LIMIT, "--time-limit", "-t", help="Seconds per method run."),
    seed: int = typer.Option(0, "--seed", help="Seed passed to every method."),
    opt: list[str] | None = typer.Option(
        None,
        "--opt",
        help="Method option key=value for every method of the portfolio, recorded in the entry and "
        "used by --check (repeatable; not with --check, which re-runs each entry's recorded options).",
    ),
    folder: Path | None = typer.Option(None, "--folder", help="Instances folder (default: instances/PROBLEM)."),
    table: str = typer.Option(
        "solved.json",
        "--table",
        help="File name of the table in the folder (e.g. coschedule's solved-nonpreemptive.json).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the entries (or the check's findings) as JSON instead of a table."
    ),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems or methods (repeatable)."
    ),
) -> None:
    """Solve the shipped instances of PROBLEM with a portfolio of methods and write FOLDER/solved.json.

    Each instance gets the best validated value and the best proven bound of
    the portfolio (stopping when they meet); solved.json is replaced
    atomically. With --only, only those entries are (re)made and the others
    kept; without it, entries of files no longer in the folder are dropped.
    """
    from ..core.solved import read_solved

    load_plugins(plugin)
    entry = get_problem(problem)
    folder = folder if folder is not None else Path("instances") / problem
    if not folder.is_dir():
        fail(f"{folder}: no such folder (give the instances folder with --folder)")
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInstanceError("--time-limit", f"must be a finite number > 0 seconds, got {time_limit}")
    check_seed(seed)
    options = parse_assignments(opt, "--opt")
    if check and options:
        fail("--opt with --check: the check re-runs each entry with the options recorded in it")
    names = method or [entry.default_method]
    for name in names:
        known_method(entry, name, "--method")  # before any work
    files = _shipped_files_of(entry, folder)
    wanted = _only_files(only, files, folder) if only else list(files)
    if Path(table).name != table or not table.startswith("solved") or not table.endswith(".json"):
        raise InvalidInstanceError("--table", f"must be a file name solved*.json in the folder, got {table!r}")
    table_path = folder / table
    entries = read_solved(table_path)
    if check:
        _check_solved(table_path, files, wanted, entries, as_json, explicit=bool(only))
        return
    kept = {name: value for name, value in entries.items() if name in files} if only else {}
    chosen = {name: files[name] for name in wanted}
    _check_options(entry, names, chosen, options)  # before any work: a typo must not cost a portfolio run
    _solve_shipped(problem, names, time_limit, seed, options, chosen, kept)
    _write_solved_table(table_path, kept, wanted, as_json)


def _shipped_files_of(entry: Problem, folder: Path) -> dict[str, Path]:
    """File name -> path of the instance files of ``entry`` in ``folder``."""
    from ..core.solved import shipped_instances

    files = shipped_instances(folder)
    return {name: path for name, path in files.items() if problem_of(read_instance(path)) is entry}


def _only_files(only: list[str], files: Mapping[str, Path], folder: Path) -> list[str]:
    """The file names ``--only`` asks for (``NAME``, ``NAME.json`` or a path to a file of the folder); an unknown
    one fails."""
    chosen = []
    for name in only:
        path = Path(name)
        if path.name != name and path.name in files and files[path.name].resolve() == path.resolve():
            name = path.name  # a path to the folder's file (shell completion gives paths)
        match = name if name in files else f"{name}.json" if f"{name}.json" in files else None
        if match is None:
            fail(f"--only {name}: no instance file of that name in {folder} (known: {', '.join(files) or 'none'})")
        chosen.append(match)
    return chosen


def _check_solved(
    table_path: Path,
    files: Mapping[str, Path],
    wanted: list[str],
    entries: Mapping[str, SolvedEntry],
    as_json: bool,
    *,
    explicit: bool,
) -> None:
    """``solved --check``: re-run the ``wanted`` entries, print what contradicts them, exit 1 if anything does.

    A file the table has no entry for contradicts nothing (a table may cover
    part of the folder, e.g. one variant of the problem): it is listed as not
    recorded, unless ``--only`` named it, which is then a usage mistake.
    """
    from ..core.solved import check_file

    unrecorded = [name for name in wanted if name not in entries]
    if explicit and unrecorded:
        fail(f"--only {unrecorded[0]}: no entry in {table_path} (recorded: {', '.join(sorted(entries)) or 'none'})")
    wanted = [name for name in wanted if name in entries]
    findings: dict[str, list[str]] = {}
    for name in wanted:
        with error_console.status(f"checking {name}...", spinner="dots"):
            found = check_file(files[name], entries[name])
        if found:
            findings[name] = found
    for name in sorted(set(entries) - set(files)):
        findings[name] = ["entry of a file that is not in the folder"]
    if as_json:
        console.print_json(json.dumps({"checked": len(wanted), "contradictions": findings, "not_recorded": unrecorded}))
    else:
        if unrecorded:
            console.print(
                f"not recorded in {table_path.name}: {', '.join(unrecorded)}", highlight=False, soft_wrap=True
            )
        for name, found in findings.items():
            for line in found:
                console.print(f"{name}: {line}", highlight=False, soft_wrap=True, markup=False)
        console.print(
            f"checked {len(wanted)} entries of {table_path}: {len(findings)} with contradictions",
            highlight=False,
            soft_wrap=True,
        )
    if findings:
        raise typer.Exit(EXIT_BAD_INPUT)


def _check_options(entry: Problem, names: list[str], files: Mapping[str, Path], options: dict[str, Any]) -> None:
    """Refuse an option that a method of the portfolio does not take (for a
    dispatcher, the method it chooses on each file), naming ``options.<name>``."""
    if not options:
        return
    for path in files.values():
        instance = read_instance(path)
        for name in names:
            try:
                check_method_options(entry.resolve(name, instance), options)
            except OptionError as error:
                raise OptionError(error.field, f"{error.reason} (--method {name} on {path.name})") from None


def _solve_shipped(
    problem: str,
    names: list[str],
    time_limit: float,
    seed: int,
    options: Mapping[str, Any],
    files: Mapping[str, Path],
    kept: dict[str, SolvedEntry],
) -> None:
    """Solve each of ``files`` with the portfolio ``names`` into ``kept`` (file name -> entry)."""
    from ..core.solved import Attempt, solve_file

    attempts = [Attempt(name, time_limit, seed, dict(options)) for name in names]
    for name, path in files.items():
        with error_console.status(f"{problem}: {', '.join(names)} on {name}...", spinner="dots"):
            kept[name] = solve_file(path, attempts)


def _write_solved_table(table_path: Path, kept: Mapping[str, SolvedEntry], wanted: list[str], as_json: bool) -> None:
    """Write ``kept`` to ``table_path`` and print the ``wanted`` entries (as JSON or a table)."""
    from ..core.solved import write_solved

    write_solved(table_path, kept)
    if as_json:
        console.print_json(json.dumps({name: kept[name].to_data() for name in wanted}))
    else:
        table = Table(show_header=True, header_style="bold", title=f"{table_path}")
        for column in ("instance", "status", "objective", "bound", "method", "bound method", "time (s)"):
            table.add_column(column, overflow="fold")
        for name in wanted:
            item = kept[name]
            table.add_row(
                name,
                item.status,
                readable_number(item.objective),
                readable_number(item.bound),
                item.method or "-",
                item.bound_method or "-",
                f"{item.runtime_s:.2f}",
            )
        console.print(table)
    error_console.print(f"wrote {table_path} ({len(kept)} entries, {len(wanted)} solved now)", highlight=False)
