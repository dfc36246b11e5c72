"""The generic CLI on coschedule files: solve, and bad input without traceback."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("hpcsched.cli") is None:
    pytest.skip("hpcsched.cli not merged into this branch yet", allow_module_level=True)

from typer.testing import CliRunner

from hpcsched.cli import app

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "coschedule"


def test_solve_default_method(tmp_path):
    result = CliRunner().invoke(
        app,
        ["solve", str(FOLDER / "orion-n10.json"), "--out", str(tmp_path / "s.json"), "--plot", str(tmp_path / "g.png")],
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "s.json").read_text())
    assert document["method"] == "auto" and document["status"] == "OPTIMAL"
    assert (tmp_path / "g.png").stat().st_size > 0


def test_bad_instance_one_line_no_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"problem": "coschedule", "data": {"kernels": [{"duration": -2}]}}))
    run = subprocess.run([sys.executable, "-m", "hpcsched.cli", "solve", str(bad)], capture_output=True, text=True)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr and "data.kernels[0].duration" in run.stderr
