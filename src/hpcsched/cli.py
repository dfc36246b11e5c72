"""The ``hpcsched`` command line.

Every command reads and writes the files described in ARCHITECTURE.md. Bad
input of any kind ends with one line on stderr naming the file and the field,
and a non-zero exit code; outputs are written through a temporary file and a
rename, so a failed command never leaves a half-written file.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Optional

import typer
from rich.console import Console
from rich.table import Table

from .core.deadline import DEFAULT_TIME_LIMIT
from .core.errors import FormatError, HpcschedError, InvalidInstanceError
from .core.fields import check_method_options, require_seed
from .core.io import (
    FORMAT_VERSION,
    TIME_UNITS,
    atomic_output,
    check_output_path,
    read_instance,
    read_solution,
    write_instance,
    write_solution,
)
from .core.registry import get_problem, methods as list_methods, problem_names, problem_of, run_method
from .core.result import Result

app = typer.Typer(
    name="hpcsched",
    help="Exact models, special cases, bounds and heuristics for GPU/HPC scheduling problems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
error_console = Console(stderr=True)

EXIT_BAD_INPUT = 1
EXIT_INTERNAL = 3


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
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


def _number(value: float | None, digits: int = 6) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}g}"


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
            _number(result.objective),
            _number(result.bound),
            _percent(result.gap),
            f"{result.runtime_s:.2f}",
        )
    return table


@app.command()
@friendly_errors
def solve(
    file: Path = typer.Argument(..., help="Instance file (.json or .json.gz)."),
    method: Optional[str] = typer.Option(None, "--method", "-m", help="Method name (default: the problem's best exact method)."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", "-t", help=f"Seconds for the whole method, model building included (default {DEFAULT_TIME_LIMIT:g})."),
    seed: int = typer.Option(0, "--seed", help="Random seed passed to the method."),
    opt: Optional[list[str]] = typer.Option(None, "--opt", help="Method option key=value (repeatable)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the solution JSON here."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw the solution to this image file (PNG, PDF, SVG)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result summary as JSON instead of a table."),
) -> None:
    """Solve one instance with one method and print objective, bound, gap, status and time."""
    instance = read_instance(file)
    problem = problem_of(instance)
    name = method or problem.default_method
    problem.method(name)  # unknown method: fail before any work
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInstanceError("--time-limit", f"must be a finite number > 0 seconds, got {time_limit}")
    _check_seed(seed)
    options = parse_assignments(opt, "--opt")
    check_method_options(problem.method(name), options)
    # Every output is checked before the solve: a long solve must not end in "cannot write".
    if out is not None:
        check_output_path(out, "--out")
    if plot is not None:
        if problem.plot is None:
            _fail(f"problem '{problem.name}' has no plot")
        _check_plot_path(plot)
    with error_console.status(f"{problem.name}: {name} on {instance.name}...", spinner="dots"):
        result = run_method(instance, name, time_limit=time_limit, seed=seed, **options)
    if as_json:
        console.print_json(json.dumps({"instance": instance.name, **result.summary()}))
    else:
        console.print(result_table([(instance.name, result)]))
        if result.solver:
            console.print(f"solver: {result.solver}", highlight=False)
        for note in result.notes:
            console.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)
    if out is not None:
        write_solution(instance, result, out)
    if plot is not None:
        if result.solution is None:
            _fail(f"{plot}: nothing to plot, {name} returned no solution ({result.status})")
        with atomic_output(plot) as temporary:
            problem.plot(instance, result.solution, temporary)
    if result.status.value == "ERROR":
        raise typer.Exit(2)


@app.command()
@friendly_errors
def validate(
    file: Path = typer.Argument(..., help="Instance file."),
    solution: Path = typer.Argument(..., help="Solution file written by `hpcsched solve --out`."),
) -> None:
    """Check a solution against its instance with the problem's independent validator."""
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
        console.print(f"  {key} = {value:.10g}" if isinstance(value, (int, float)) else f"  {key} = {value}", highlight=False)


@app.command()
@friendly_errors
def generate(
    problem: str = typer.Argument(..., help="Problem name."),
    output: Path = typer.Option(..., "--output", "-o", help="Instance file to write."),
    family: Optional[str] = typer.Option(None, "--family", "-f", help="Generator family (default: the first one)."),
    n: Optional[int] = typer.Option(None, "--n", help="Size (tasks, layers, kernels, ...), where the family takes one."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="Generator parameter key=value (repeatable)."),
) -> None:
    """Write a seeded random instance of PROBLEM."""
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
    console.print(f"wrote {output} ({problem}, family {family}, seed {seed})", highlight=False)


@app.command("import")
@friendly_errors
def import_trace(
    format: str = typer.Argument(..., help="Trace format (see `hpcsched methods` for importers)."),
    trace: Path = typer.Argument(..., help="Trace file."),
    problem: str = typer.Option(..., "--problem", "-P", help="Problem to build an instance of."),
    output: Path = typer.Option(..., "--output", "-o", help="Instance file to write."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Importer option key=value (repeatable)."),
) -> None:
    """Turn a real trace into an instance of PROBLEM."""
    entry = get_problem(problem)
    if format not in entry.importers:
        known = ", ".join(entry.importers) or "none"
        _fail(f"problem '{problem}' has no importer for format '{format}' (known: {known})")
    if not trace.exists():
        _fail(f"{trace}: no such file")
    options = parse_assignments(option, "--option")
    check_output_path(output, "--output")
    try:
        instance = entry.importers[format](trace, **options)
    except TypeError as error:
        raise InvalidInstanceError("--option", f"importer '{format}' rejects these options: {error}") from None
    except UnicodeDecodeError as error:  # decoding the user's file: a binary file given as a text trace
        raise FormatError(f"{trace}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    write_instance(instance, output)
    console.print(f"wrote {output} ({problem} from {format} trace {trace})", highlight=False)
    # What the importer approximated (e.g. a DAG linearized into a chain) must
    # not stay hidden in the file: print it.
    source = getattr(instance, "source", None)
    notes = source.get("notes") if isinstance(source, Mapping) else None
    if isinstance(notes, str):
        notes = [notes]
    for note in notes or []:
        console.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)


@app.command("methods")
@friendly_errors
def show_methods(problem: Optional[str] = typer.Argument(None, help="Problem name (default: all).")) -> None:
    """List the problems, their methods, generators and importers."""
    names = [problem] if problem else problem_names()
    table = Table(show_header=True, header_style="bold")
    for column in ("problem", "method", "kind", "summary"):
        table.add_column(column, overflow="fold")
    extras = []
    for name in names:
        entry = get_problem(name)
        for method in list_methods(name):
            flag = " (default)" if method.name == entry.default_method else ""
            table.add_row(name, method.name + flag, method.kind, method.summary)
        extras.append(
            f"{name}: generators {', '.join(entry.generators) or '-'}; importers {', '.join(entry.importers) or '-'}"
        )
    console.print(table)
    for line in extras:
        console.print(line, highlight=False)


@app.command()
@friendly_errors
def schema(problem: str = typer.Argument(..., help="Problem name.")) -> None:
    """Print the JSON Schema of PROBLEM's instance files."""
    entry = get_problem(problem)
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"hpcsched {problem} instance",
        "type": "object",
        "required": ["problem", "data"],
        "properties": {
            "problem": {"const": problem},
            "format": {"const": FORMAT_VERSION},
            "name": {"type": "string"},
            "time_unit": {"enum": list(TIME_UNITS)},
            "source": {"type": "object", "description": "provenance: generator, parameters and seed, or trace file and sha256"},
            "data": entry.data_schema,
        },
    }
    sys.stdout.write(json.dumps(document, indent=2) + "\n")


def _register_experiments() -> None:
    """Add `compare` and `study` from the experiments engine."""
    try:
        from .experiments.cli import register
    except ImportError:  # the engine is part of hpcsched; this only guards partial checkouts
        return
    register(app)


_register_experiments()


def main() -> None:  # pragma: no cover - console script entry
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
