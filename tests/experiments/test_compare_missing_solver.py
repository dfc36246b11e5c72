"""``compare -m all`` does not fail on a method the user did not name whose optional solver is missing.

The row still says ERROR and why; naming that method explicitly fails the comparison (exit 1), as a
missing solver does everywhere else.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from hpcsched.core.registration import _PROBLEMS

from .test_experiments_cli import invoke

# The square plugin (copied next to this file's plugin) plus a method whose optional solver is missing.
PLUGIN = textwrap.dedent(
    """
    import importlib.util
    import sys
    from pathlib import Path

    from hpcsched.core.errors import SolverUnavailableError

    spec = importlib.util.spec_from_file_location("square_base", Path(__file__).with_name("plugin_square.py"))
    square = importlib.util.module_from_spec(spec)
    sys.modules["square_base"] = square
    spec.loader.exec_module(square)


    def needs_solver(instance, /, *, time_limit, seed, params):
        \"\"\"Needs an optional package that is not installed.\"\"\"
        raise SolverUnavailableError("nosuchsolver", "pip install nosuchsolver")


    square.PROBLEM.add_method("needs-solver", needs_solver, kind="heuristic")
    """
)


@pytest.fixture
def registry_restored():
    """The plugin re-registers problem "square" with one more method: put the registry back afterwards."""
    saved = dict(_PROBLEMS)
    yield
    _PROBLEMS.clear()
    _PROBLEMS.update(saved)


def test_a_missing_optional_solver_fails_only_a_named_method(tmp_path, registry_restored):
    shutil.copy(Path(__file__).with_name("plugin_square.py"), tmp_path / "plugin_square.py")
    plugin = tmp_path / "plugin_missing.py"
    plugin.write_text(PLUGIN)
    instance_file = tmp_path / "sq.json"
    instance = {"problem": "square", "format": 1, "name": "sq", "source": {}, "data": {"target": 3, "limit": 10}}
    instance_file.write_text(json.dumps(instance))

    every = invoke("compare", instance_file, "-m", "all", "--plugin", plugin, "--json", "-t", "5")
    assert every.exit_code == 0, every.output
    rows = {row["method"]: row for row in json.loads(every.stdout)}
    assert rows["clamp"]["status"] == "OPTIMAL"
    assert rows["needs-solver"]["status"] == "ERROR" and "pip install nosuchsolver" in rows["needs-solver"]["error"]

    named = invoke("compare", instance_file, "-m", "clamp,needs-solver", "--plugin", plugin, "--json", "-t", "5")
    assert named.exit_code == 1
    assert "1 of 2 runs ended in ERROR" in named.stderr
