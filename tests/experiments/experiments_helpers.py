"""Helpers of the experiments tests: the toy plugin problem, row comparison.

(Imported by name from the test modules; a module named ``conftest`` cannot
be, since every test folder has one.)

The toy problem (``toy.py`` next to this file) is loaded as a *plugin file*,
exactly as a user's own problem would be, so these tests also cover how
plugins reach the runner processes. Expected values come from the instance data itself
(minimum, first value), never from the engine.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hpcsched.core.registry import get_problem
from hpcsched.experiments.runs import VOLATILE_COLUMNS, load_plugins, row_key

#: The toy problem's plugin file (an absolute path: the runner children and study files load it by path).
TOY = str(Path(__file__).resolve().with_name("toy.py"))
load_plugins([TOY])


def toy_instance(seed: int = 0, n: int = 6):
    """A toy instance of ``n`` values, from the plugin's registered generator."""
    return get_problem("toy").generators["uniform"](seed=seed, n=n)


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
