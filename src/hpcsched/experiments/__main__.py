"""``python -m hpcsched.experiments``: the engine's commands without the main CLI."""

import typer

from .cli import register

app = typer.Typer(add_completion=False, no_args_is_help=True, help="hpcsched experiments: compare and study.")
register(app)

if __name__ == "__main__":
    app()
