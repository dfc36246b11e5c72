"""The ``hpcsched`` application object and what every command shares.

The exit codes, the consoles (summaries on stdout, errors on stderr), the
one-line error wrapper `friendly_errors`, plugin loading and the parsing of
``key=value`` options. The commands live in the modules beside this one.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

from .. import __version__
from ..core.errors import HpcschedError, InvalidInstanceError, UnknownMethodError
from ..core.fields import require_seed
from ..core.io import is_stdio
from ..core.registry import Problem

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
#: Width of the tables when the output is not a terminal and COLUMNS is not set.
PIPE_WIDTH = 200


def _console(stderr: bool = False) -> Console:
    """A console that does not squeeze tables into 80 columns when piped.

    On a terminal rich uses its width; elsewhere (a pipe, a file) it would
    fall back to 80 and wrap names and paths. There ``COLUMNS`` decides when
    set (rich reads it), else `PIPE_WIDTH`.
    """
    console = Console(stderr=stderr)
    if console.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return console
    return Console(stderr=stderr, width=PIPE_WIDTH)


console = _console()
error_console = _console(stderr=True)


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


def load_plugins(plugins: list[str] | None) -> None:
    """Import ``--plugin`` modules or .py files (they register problems and methods)."""
    if plugins:
        from ..experiments.runs import load_plugins

        load_plugins(plugins)


def summary_console(*outputs: Path | None) -> Console:
    """Where summaries go: stdout, unless an output is stdout itself (``-``)."""
    return error_console if any(is_stdio(output) for output in outputs) else console


def wrote(output: Path, text: str) -> None:
    """Say what was written, on stderr when the file itself went to stdout."""
    summary_console(output).print(text, highlight=False)


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
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
            fail(str(error))
        except OSError as error:
            where = f"{error.filename}: " if getattr(error, "filename", None) else ""
            fail(f"{where}{error.strerror or error}")
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except Exception as error:  # a bug: still one line, the traceback on request
            if os.environ.get("HPCSCHED_DEBUG"):
                raise
            fail(
                f"internal error ({type(error).__name__}): {error} "
                "(set HPCSCHED_DEBUG=1 to see the traceback, and please report it)",
                EXIT_INTERNAL,
            )

    return wrapper


def check_seed(seed: int) -> None:
    """Seeds feed ``numpy.random.default_rng`` (no negative number) and the
    solvers' 32-bit seeds (see `require_seed`)."""
    require_seed(seed, "--seed")


def not_empty(value: str | None, option: str, default: str) -> None:
    """Refuse an empty (or blank) ``option`` value: ``--method ""`` must not run the default.

    Leaving the option out gives ``default``; an empty value is a mistake (an
    unset shell variable, say), and running something else would hide it.
    """
    if value is not None and not value.strip():
        raise InvalidInstanceError(option, f"is empty (leave {option} out for {default})")


def known_method(problem: Problem, name: str, where: str) -> None:
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
        except RecursionError:  # "[" * 100000: Python's decoder recurses per level
            raise InvalidInstanceError(
                f"{option} {key}", "value nested too deeply (a JSON value of ~900 levels at most)"
            ) from None
    return parsed
