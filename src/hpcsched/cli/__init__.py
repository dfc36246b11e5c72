"""The ``hpcsched`` command line.

Every command reads and writes the files described in docs/architecture.md.
Bad input of any kind ends with one line on stderr naming the file and the
field, and a non-zero exit code (`EXIT_CODES`). ``-`` is standard input for
every input path and standard output for every output path; a regular output
file is written through a temporary file and a rename, so a failed command
never leaves a half-written file, while a symlink's target, a FIFO or a device
is written through, never replaced.

The application object is `app` (in `cli.app`); the commands are in
`solving` (solve, validate), `instances` (generate, import), `problems`
(methods, schema) and `solved`; ``compare`` and ``study`` come from
`hpcsched.experiments.cli`. `main` is the console script.
"""

from __future__ import annotations

import sys
from typing import Any

from . import instances, problems, solved, solving
from .app import EXIT_BAD_INPUT, EXIT_CODES, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, app, console, error_console

# In the order ``hpcsched --help`` lists them.
app.command()(solving.solve)
app.command()(solving.validate)
app.command()(instances.generate)
app.command("import")(instances.import_trace)
app.command("methods")(problems.show_methods)
app.command()(problems.schema)
app.command()(solved.solved)

__all__ = ["EXIT_BAD_INPUT", "EXIT_CODES", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "app", "main"]


def _register_experiments() -> None:
    """Add `compare`, `study` and `solved` (their heavy imports happen when they run)."""
    from ..experiments.cli import register

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
