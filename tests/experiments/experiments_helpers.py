"""Helpers of the experiments tests: the toy plugin problem, row comparison.

(Imported by name from the test modules; a module named ``conftest`` cannot
be, since every test folder has one.)

The toy problem (`hpcsched.experiments.toy`) is loaded as a *plugin*, exactly
as a user's own problem would be, so these tests also cover how plugins reach
the runner processes. Expected values come from the instance data itself
(minimum, first value), never from the engine.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hpcsched.experiments.runs import VOLATILE_COLUMNS, load_plugins, row_key

TOY = "hpcsched.experiments.toy"
load_plugins([TOY])

from hpcsched.experiments import toy  # noqa: E402  (registered above, through the plugin loader)


def toy_instance(seed: int = 0, n: int = 6):
    return toy.generate_uniform(seed=seed, n=n)


def stable(rows):
    """Rows without the columns that legitimately vary, sorted by run key."""
    return sorted(
        ({k: v for k, v in row.items() if k not in VOLATILE_COLUMNS} for row in rows),
        key=lambda row: tuple("" if v is None else str(v) for v in row_key(row)),
    )


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


PYTHON = sys.executable
