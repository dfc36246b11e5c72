"""``generate`` and ``import``: instance files from a seeded generator or a real trace."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from ..core.errors import FormatError, InvalidInstanceError
from ..core.io import (
    check_output_path,
    is_stdio,
    write_instance,
)
from ..core.registry import get_problem
from .app import (
    check_seed,
    fail,
    friendly_errors,
    load_plugins,
    not_empty,
    parse_assignments,
    summary_console,
    wrote,
)


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
    load_plugins(plugin)
    entry = get_problem(problem)
    if not entry.generators:
        fail(f"problem '{problem}' has no generators")
    not_empty(family, "--family", f"the first family, {next(iter(entry.generators))}")
    family = next(iter(entry.generators)) if family is None else family
    if family not in entry.generators:
        fail(f"unknown family '{family}' for {problem} (known: {', '.join(entry.generators)})")
    check_seed(seed)
    params = parse_assignments(param, "--param")
    check_output_path(output, "--output")
    if n is not None:
        params["n"] = n
    _check_keywords(entry.generators[family], params, "--param", f"generator family '{family}' of {problem}", ("seed",))
    try:
        instance = entry.generators[family](seed=seed, **params)
    except InvalidInstanceError as error:  # a parameter the generator refused: name the option that set it
        raise InvalidInstanceError(_option_of(error.field, params, from_n=n is not None), error.reason) from None
    except TypeError as error:
        raise InvalidInstanceError("--param", f"generator '{family}' rejects these parameters: {error}") from None
    write_instance(instance, output)
    wrote(output, f"wrote {output} ({problem}, family {family}, seed {seed})")


def _option_of(field: str, params: Mapping[str, Any], *, from_n: bool) -> str:
    """The command-line option behind a generator's error ``field``: ``--n``, ``--param name[...]``.

    A generator names its parameter (``n``, ``edge_probability``, or
    ``parameters.n``); a field that is no parameter (a bug's ``data...``) is
    left as it is.
    """
    field = field.removeprefix("parameters.")
    name = re.match(r"[A-Za-z_]\w*", field)
    top = name.group(0) if name else ""
    if top == "n" and from_n:
        return "--n" + field[1:]
    if top in params:
        return f"--param {field}"
    # a field of the instance made (data.memory past 2^53 for a huge factor): say which options made it
    options = [("--n" if key == "n" and from_n else f"--param {key}", value) for key, value in params.items()]
    given = ", ".join(f"{option}={value}" for option, value in options)
    return f"{field} (of the instance made with {given})" if given else field


def _accepted_keywords(func: Any, reserved: tuple[str, ...], positional: int) -> list[str] | None:
    """The keyword parameters of ``func`` a user may set, past its first
    ``positional`` ones and but ``reserved``; None when it takes any
    (``**kwargs``) or has no signature to read."""
    import inspect

    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in parameters[positional:] if p.kind in named and p.name not in reserved]


def _check_keywords(
    func: Any,
    given: Mapping[str, Any],
    option: str,
    what: str,
    reserved: tuple[str, ...],
    *,
    positional: int = 0,
) -> None:
    """Refuse a keyword ``func`` does not take, in one line: the name, ``what``
    takes it from, the closest accepted name and all of them.

    Without this a typo ends in Python's own TypeError text. ``reserved`` are
    keywords the command passes itself (``seed``: ``--seed``); ``positional``
    leading parameters are not options (an importer's path). A function that
    takes any keyword is not checked here (its own TypeError is still caught
    by the caller).
    """
    import difflib

    accepted = _accepted_keywords(func, reserved, positional)
    unknown = [name for name in given if accepted is not None and name not in accepted]
    if accepted is None or not unknown:
        return
    name = unknown[0]
    known = f"(accepted: {', '.join(accepted) or 'none'})"
    if name in reserved:
        raise InvalidInstanceError(f"{option} {name}", f"'{name}' of {what} is set by --{name}, not {option} {known}")
    close = difflib.get_close_matches(name, accepted, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise InvalidInstanceError(f"{option} {name}", f"{what} has no parameter '{name}'{hint} {known}")


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
        fail(f"problem '{problem}' has no importer for format '{format}' (known: {known})")
    if not is_stdio(trace) and not trace.exists():
        fail(f"{trace}: no such file")
    options = parse_assignments(option, "--option")
    check_output_path(output, "--output")
    _check_keywords(entry.importers[format], options, "--option", f"importer '{format}' of {problem}", (), positional=1)
    try:
        with _stdin_as_file(trace) as readable:
            instance = entry.importers[format](readable, **options)
    except TypeError as error:
        raise InvalidInstanceError("--option", f"importer '{format}' rejects these options: {error}") from None
    except UnicodeDecodeError as error:  # decoding the user's file: a binary file given as a text trace
        raise FormatError(f"{trace}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except RecursionError:  # a JSON trace of "[" * 100000: Python's decoder recurses per level
        raise FormatError(f"{trace}: cannot read: arrays or objects nested too deeply") from None
    write_instance(instance, output)
    wrote(output, f"wrote {output} ({problem} from {format} trace {trace})")
    # What the importer approximated (e.g. a DAG linearized into a chain) must
    # not stay hidden in the file: print it.
    source = getattr(instance, "source", None)
    notes = source.get("notes") if isinstance(source, Mapping) else None
    if isinstance(notes, str):
        notes = [notes]
    for note in notes or []:
        summary_console(output).print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)
