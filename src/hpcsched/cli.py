"""The ``hpcsched`` command line.

Every command reads and writes the files described in docs/architecture.md.
Bad input of any kind ends with one line on stderr naming the file and the
field, and a non-zero exit code (`EXIT_CODES`). ``-`` is standard input for
every input path and standard output for every output path; a regular output
file is written through a temporary file and a rename, so a failed command
never leaves a half-written file, while a symlink's target, a FIFO or a device
is written through, never replaced.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from . import __version__
from .core.deadline import DEFAULT_TIME_LIMIT
from .core.display import readable_number
from .core.errors import FormatError, HpcschedError, InvalidInstanceError, UnknownMethodError
from .core.fields import check_method_options, require_seed
from .core.io import (
    STDIN_NAME,
    atomic_output,
    check_output_path,
    instance_schema,
    is_stdio,
    read_instance,
    read_solution,
    write_instance,
    write_solution,
)
from .core.registry import Problem, get_problem, problem_names, problem_of, problem_summaries, run_method
from .core.result import Result

if TYPE_CHECKING:
    from .core.solved import SolvedEntry

EXIT_OK = 0
#: Bad input (a file, a field, an option value, an unknown method or problem) or a failed run (status ERROR).
EXIT_BAD_INPUT = 1
#: Usage error: an unknown option, a missing argument (click's own code).
EXIT_USAGE = 2
#: A bug in hpcsched (the traceback with HPCSCHED_DEBUG=1).
EXIT_INTERNAL = 3

EXIT_CODES = (
    "Exit codes: 0 success; 1 bad input (a file, a field, an option value, an unknown problem or method) "
    "or a failed run (a result whose status is ERROR, a solved.json check that finds a contradiction); "
    "2 usage error (unknown option, missing argument); 3 internal error (please report it; "
    "HPCSCHED_DEBUG=1 shows the traceback). "
    "A path given as '-' is standard input (instances, solutions) or standard output (--out, -o, --csv)."
)

app = typer.Typer(
    name="hpcsched",
    help="Exact models, special cases, bounds and heuristics for GPU/HPC scheduling problems.",
    epilog=EXIT_CODES,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
console = Console()
error_console = Console(stderr=True)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"hpcsched {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Exact models, special cases, bounds and heuristics for GPU/HPC scheduling problems."""


def _load_plugins(plugins: list[str] | None) -> None:
    """Import ``--plugin`` modules or .py files (they register problems and methods)."""
    if plugins:
        from .experiments.runs import load_plugins

        load_plugins(plugins)


def _summary_console(*outputs: Path | None) -> Console:
    """Where summaries go: stdout, unless an output is stdout itself (``-``)."""
    return error_console if any(is_stdio(output) for output in outputs) else console


def _wrote(output: Path, text: str) -> None:
    """Say what was written, on stderr when the file itself went to stdout."""
    _summary_console(output).print(text, highlight=False)


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    error_console.print("[bold red]error:[/] ", end="", highlight=False)
    error_console.print(message, highlight=False, soft_wrap=True, markup=False)
    raise typer.Exit(code)


def friendly_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every anticipated error into one line on stderr and an exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except typer.Exit:
            raise
        except HpcschedError as error:
            _fail(str(error))
        except OSError as error:
            where = f"{error.filename}: " if getattr(error, "filename", None) else ""
            _fail(f"{where}{error.strerror or error}")
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except Exception as error:  # a bug: still one line, the traceback on request
            if os.environ.get("HPCSCHED_DEBUG"):
                raise
            _fail(
                f"internal error ({type(error).__name__}): {error} "
                "(set HPCSCHED_DEBUG=1 to see the traceback, and please report it)",
                EXIT_INTERNAL,
            )

    return wrapper


#: Image suffixes ``--plot`` accepts (matplotlib infers the format from the suffix).
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def _draw(problem: Any, instance: Any, solution: Any, path: Path) -> None:
    """Draw ``solution`` with the problem's ``plot_solution(instance, solution, ax=None) -> Axes``
    and save the figure to ``path`` (written atomically, or through a link, FIFO or ``-``)."""
    import inspect

    from .plotting import save_axes

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


def _check_seed(seed: int) -> None:
    """Seeds feed ``numpy.random.default_rng`` (no negative number) and the
    solvers' 32-bit seeds (see `require_seed`)."""
    require_seed(seed, "--seed")


def _known_method(problem: Problem, name: str, where: str) -> None:
    """Refuse an unknown method in one line that says where it was asked for
    (the instance file, or the option), with the problem's known methods."""
    try:
        problem.method(name)
    except UnknownMethodError as error:
        raise UnknownMethodError(f"{where}: {error}") from None


def parse_assignments(pairs: list[str] | None, option: str) -> dict[str, Any]:
    """``["k=v", ...]`` into a dict; values parsed as JSON when they parse, else kept as strings."""
    parsed: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise InvalidInstanceError(option, f"expects key=value, got {pair!r}")
        try:
            parsed[key.replace("-", "_")] = json.loads(text)
        except json.JSONDecodeError:
            parsed[key.replace("-", "_")] = text
    return parsed


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


@app.command()
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
    _load_plugins(plugin)
    instance = read_instance(file)
    problem = problem_of(instance)
    name = method or problem.default_method
    _known_method(problem, name, STDIN_NAME if is_stdio(file) else str(file))  # before any work
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInstanceError("--time-limit", f"must be a finite number > 0 seconds, got {time_limit}")
    _check_seed(seed)
    options = parse_assignments(opt, "--opt")
    check_method_options(problem.resolve(name, instance), options)  # a dispatcher: its choice's options
    # Every output is checked before the solve: a long solve must not end in "cannot write".
    if out is not None:
        check_output_path(out, "--out")
    if plot is not None:
        if problem.plot is None:
            _fail(f"problem '{problem.name}' has no plot")
        _check_plot_path(plot)
    with error_console.status(f"{problem.name}: {name} on {instance.name}...", spinner="dots"):
        result = run_method(instance, name, time_limit=time_limit, seed=seed, **options)
    shown = _summary_console(out, plot)
    if as_json:
        shown.print_json(json.dumps({"instance": instance.name, **result.summary()}))
    else:
        shown.print(result_table([(instance.name, result)]))
        if result.solver:
            shown.print(f"solver: {result.solver}", highlight=False)
        for note in result.notes:
            shown.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)
    if out is not None:
        write_solution(instance, result, out)
    if plot is not None:
        if result.solution is None:
            _fail(f"{plot}: nothing to plot, {name} returned no solution ({result.status})")
        _draw(problem, instance, result.solution, plot)
    if result.status.value == "ERROR":
        raise typer.Exit(EXIT_BAD_INPUT)  # a failed run, not a usage error


@app.command()
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
    """Check a solution against its instance with the problem's independent validator."""
    if is_stdio(file) and is_stdio(solution):
        _fail("only one of FILE and SOLUTION can be '-' (standard input)")
    _load_plugins(plugin)
    instance = read_instance(file)
    problem = problem_of(instance)
    decoded = read_solution(solution, instance)
    violations = problem.validate(instance, decoded)
    if violations:
        for violation in violations:
            error_console.print(f"{solution}: {violation}", highlight=False, soft_wrap=True, markup=False)
        _fail(f"{solution}: {len(violations)} violation(s): the solution is not feasible for {file}")
    kpis = problem.evaluate(instance, decoded)
    console.print(f"{solution}: valid for {file}", highlight=False)
    for key, value in kpis.items():
        console.print(
            f"  {key} = {value:.10g}" if isinstance(value, (int, float)) else f"  {key} = {value}", highlight=False
        )


@app.command()
@friendly_errors
def generate(
    problem: str = typer.Argument(..., help="Problem name."),
    output: Path = typer.Option(..., "--output", "-o", help="Instance file to write ('-': standard output)."),
    family: str | None = typer.Option(None, "--family", "-f", help="Generator family (default: the first one)."),
    n: int | None = typer.Option(None, "--n", help="Size (tasks, layers, kernels, ...), where the family takes one."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    param: list[str] | None = typer.Option(None, "--param", "-p", help="Generator parameter key=value (repeatable)."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems (repeatable)."
    ),
) -> None:
    """Write a seeded random instance of PROBLEM."""
    _load_plugins(plugin)
    entry = get_problem(problem)
    if not entry.generators:
        _fail(f"problem '{problem}' has no generators")
    family = family or next(iter(entry.generators))
    if family not in entry.generators:
        _fail(f"unknown family '{family}' for {problem} (known: {', '.join(entry.generators)})")
    _check_seed(seed)
    params = parse_assignments(param, "--param")
    check_output_path(output, "--output")
    if n is not None:
        params["n"] = n
    try:
        instance = entry.generators[family](seed=seed, **params)
    except TypeError as error:
        raise InvalidInstanceError("--param", f"generator '{family}' rejects these parameters: {error}") from None
    write_instance(instance, output)
    _wrote(output, f"wrote {output} ({problem}, family {family}, seed {seed})")


class _stdin_as_file:
    """``path`` itself, or for ``-`` a temporary file holding standard input
    (importers read a path, some of them twice)."""

    def __init__(self, path: Path):
        self.path = path
        self.temporary: Path | None = None

    def __enter__(self) -> Path:
        if not is_stdio(self.path):
            return self.path
        import tempfile

        handle, name = tempfile.mkstemp(prefix="hpcsched-stdin.")
        stream = getattr(sys.stdin, "buffer", None)
        payload = stream.read() if stream is not None else sys.stdin.read().encode()
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        self.temporary = Path(name)
        return self.temporary

    def __exit__(self, *exc: Any) -> None:
        if self.temporary is not None:
            self.temporary.unlink(missing_ok=True)


@app.command("import")
@friendly_errors
def import_trace(
    format: str = typer.Argument(..., help="Trace format (see `hpcsched methods` for importers)."),
    trace: Path = typer.Argument(..., help="Trace file ('-' for standard input)."),
    problem: str = typer.Option(..., "--problem", "-P", help="Problem to build an instance of."),
    output: Path = typer.Option(..., "--output", "-o", help="Instance file to write ('-': standard output)."),
    option: list[str] | None = typer.Option(None, "--option", help="Importer option key=value (repeatable)."),
) -> None:
    """Turn a real trace into an instance of PROBLEM."""
    entry = get_problem(problem)
    if format not in entry.importers:
        known = ", ".join(entry.importers) or "none"
        _fail(f"problem '{problem}' has no importer for format '{format}' (known: {known})")
    if not is_stdio(trace) and not trace.exists():
        _fail(f"{trace}: no such file")
    options = parse_assignments(option, "--option")
    check_output_path(output, "--output")
    try:
        with _stdin_as_file(trace) as readable:
            instance = entry.importers[format](readable, **options)
    except TypeError as error:
        raise InvalidInstanceError("--option", f"importer '{format}' rejects these options: {error}") from None
    except UnicodeDecodeError as error:  # decoding the user's file: a binary file given as a text trace
        raise FormatError(f"{trace}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    write_instance(instance, output)
    _wrote(output, f"wrote {output} ({problem} from {format} trace {trace})")
    # What the importer approximated (e.g. a DAG linearized into a chain) must
    # not stay hidden in the file: print it.
    source = getattr(instance, "source", None)
    notes = source.get("notes") if isinstance(source, Mapping) else None
    if isinstance(notes, str):
        notes = [notes]
    for note in notes or []:
        _summary_console(output).print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)


@app.command("methods")
@friendly_errors
def show_methods(
    problem: str | None = typer.Argument(None, help="Problem name (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the problems and methods as JSON instead of a table."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems or methods (repeatable)."
    ),
) -> None:
    """List the problems, their methods, generators and importers."""
    _load_plugins(plugin)
    names = [problem] if problem else problem_names()
    if problem and problem not in problem_names():
        get_problem(problem)  # an entry point's problem loads here; an unknown name fails, naming the known ones
    summaries = problem_summaries(names)
    if as_json:
        console.print_json(json.dumps([summary.to_data() for summary in summaries]))
        return
    table = Table(show_header=True, header_style="bold")
    for column in ("problem", "method", "kind", "summary"):
        table.add_column(column, overflow="fold")
    extras = []
    for entry in summaries:
        for method in entry.methods:
            flag = " (default)" if method.name == entry.default_method else ""
            table.add_row(entry.name, method.name + flag, method.kind, method.summary)
        generators = ", ".join(entry.generators) or "-"
        importers = ", ".join(entry.importers) or "-"
        extras.append(f"{entry.name}: generators {generators}; importers {importers}")
    console.print(table)
    for line in extras:
        console.print(line, highlight=False)


@app.command()
@friendly_errors
def schema(
    problem: str = typer.Argument(..., help="Problem name."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", help="Module or .py file registering problems (repeatable)."
    ),
) -> None:
    """Print the JSON Schema of PROBLEM's instance files (the one the reader validates against)."""
    _load_plugins(plugin)
    sys.stdout.write(json.dumps(instance_schema(get_problem(problem)), indent=2) + "\n")


@app.command()
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
        None, "--only", help="Instance file name to (re)solve or check, keeping the other entries (repeatable)."
    ),
    check: bool = typer.Option(
        False,
        "--check",
        help="Re-run each entry's recorded runs and report contradictions (exit 1 if any); write nothing.",
    ),
    time_limit: float = typer.Option(DEFAULT_TIME_LIMIT, "--time-limit", "-t", help="Seconds per method run."),
    seed: int = typer.Option(0, "--seed", help="Seed passed to every method."),
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
    from .core.solved import read_solved

    _load_plugins(plugin)
    entry = get_problem(problem)
    folder = folder if folder is not None else Path("instances") / problem
    if not folder.is_dir():
        _fail(f"{folder}: no such folder (give the instances folder with --folder)")
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInstanceError("--time-limit", f"must be a finite number > 0 seconds, got {time_limit}")
    _check_seed(seed)
    names = method or [entry.default_method]
    for name in names:
        _known_method(entry, name, "--method")  # before any work
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
    _solve_shipped(problem, names, time_limit, seed, {name: files[name] for name in wanted}, kept)
    _write_solved_table(table_path, kept, wanted, as_json)


def _shipped_files_of(entry: Problem, folder: Path) -> dict[str, Path]:
    """File name -> path of the instance files of ``entry`` in ``folder``."""
    from .core.solved import shipped_instances

    files = shipped_instances(folder)
    return {name: path for name, path in files.items() if problem_of(read_instance(path)) is entry}


def _only_files(only: list[str], files: Mapping[str, Path], folder: Path) -> list[str]:
    """The file names ``--only`` asks for (``NAME`` or ``NAME.json``); an unknown one fails."""
    chosen = []
    for name in only:
        match = name if name in files else f"{name}.json" if f"{name}.json" in files else None
        if match is None:
            _fail(f"--only {name}: no instance file of that name in {folder} (known: {', '.join(files) or 'none'})")
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
    from .core.solved import check_file

    unrecorded = [name for name in wanted if name not in entries]
    if explicit and unrecorded:
        _fail(f"--only {unrecorded[0]}: no entry in {table_path} (recorded: {', '.join(sorted(entries)) or 'none'})")
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


def _solve_shipped(
    problem: str,
    names: list[str],
    time_limit: float,
    seed: int,
    files: Mapping[str, Path],
    kept: dict[str, SolvedEntry],
) -> None:
    """Solve each of ``files`` with the portfolio ``names`` into ``kept`` (file name -> entry)."""
    from .core.solved import Attempt, solve_file

    attempts = [Attempt(name, time_limit, seed) for name in names]
    for name, path in files.items():
        with error_console.status(f"{problem}: {', '.join(names)} on {name}...", spinner="dots"):
            kept[name] = solve_file(path, attempts)


def _write_solved_table(table_path: Path, kept: Mapping[str, SolvedEntry], wanted: list[str], as_json: bool) -> None:
    """Write ``kept`` to ``table_path`` and print the ``wanted`` entries (as JSON or a table)."""
    from .core.solved import write_solved

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


def _register_experiments() -> None:
    """Add `compare`, `study` and `solved` (their heavy imports happen when they run)."""
    from .experiments.cli import register

    register(app)


_register_experiments()


def _click_exception_modules() -> list[Any]:
    """The click exception modules typer may raise from: click's own (older typers depend on
    click) and the copy newer typers vendor (they do not install click at all)."""
    import importlib

    modules = []
    for name in ("click.exceptions", "typer._click.exceptions"):
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            continue
    return modules


def main() -> None:
    """The console script: run the app, with click's usage errors as one line (exit 2), like every other error."""
    modules = _click_exception_modules()
    usage = tuple(m.UsageError for m in modules)
    other = tuple(m.ClickException for m in modules)
    aborted = tuple(m.Abort for m in modules if hasattr(m, "Abort"))
    try:
        code = app(standalone_mode=False)
    except usage as error:
        context = getattr(error, "ctx", None)
        if type(error).__name__ == "NoArgsIsHelpError" and context is not None:  # a bare command: its help
            console.print(context.get_help(), highlight=False, markup=False)
            sys.exit(2)
        where = f" (see '{context.command_path} --help')" if context is not None else ""
        error_console.print(f"error: {error.format_message()}{where}", highlight=False, soft_wrap=True, markup=False)
        sys.exit(2)
    except other as error:
        error_console.print(f"error: {error.format_message()}", highlight=False, soft_wrap=True, markup=False)
        sys.exit(error.exit_code)
    except aborted:
        error_console.print("error: interrupted", highlight=False)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
