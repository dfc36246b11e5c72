"""typer's ``CliRunner`` that turns each Typer app into its click command once.

``typer.testing.CliRunner.invoke`` rebuilds the click command from the Typer
app on every call: for hpcsched's app that is most of an invocation's time
(about 20 ms of 35 ms), which files with hundreds of invocations pay for
nothing. The command is the same object the app's ``main`` builds once per
process; a test that changes what the command is built from (its options,
help texts) must use typer's runner.

Import it as ``from clirunner import CliRunner`` (``tests/`` is on ``sys.path``).
"""

from __future__ import annotations

from typing import Any

import typer.testing
from typer.main import get_command

_COMMANDS: dict[int, tuple[Any, Any]] = {}


def _command(app: Any) -> Any:
    """The click command of ``app``, built on its first use (the app is kept alive with it)."""
    built = _COMMANDS.get(id(app))
    if built is None or built[0] is not app:
        built = _COMMANDS[id(app)] = (app, get_command(app))
    return built[1]


class CliRunner(typer.testing.CliRunner):
    """``typer.testing.CliRunner`` whose ``invoke`` reuses the app's click command."""

    def invoke(self, app: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        building = typer.testing._get_command
        typer.testing._get_command = _command
        try:
            return super().invoke(app, *args, **kwargs)
        finally:
            typer.testing._get_command = building
