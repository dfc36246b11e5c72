"""CLI conventions of issue 22: --version, exit codes, '-' for stdin/stdout,
outputs written through (symlink, FIFO, device) or atomically, --json,
--plugin, entry-point discovery, the methods cache."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path

import pytest
from clirunner import CliRunner

from hpcsched import __version__
from hpcsched.cli import app
from hpcsched.core import registration, registry
from hpcsched.core.io import atomic_output, atomic_write_text, check_output_path

from . import test_core  # noqa: F401  (registers the toy problem "pick")

runner = CliRunner()
EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
SQUARE = str(EXPERIMENTS / "plugin_square.py")


@pytest.fixture
def toy_file(tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"problem": "pick", "format": 1, "name": "toy", "data": {"costs": [5, 3, 8]}}))
    return path


def invoke(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


# --- 1. version and completion


def test_version_prints_the_package_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"hpcsched {__version__}"


def test_shell_completion_options_are_offered():
    result = invoke("--help")
    assert result.exit_code == 0
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout


# --- 2. exit codes


def test_help_documents_the_exit_codes():
    text = " ".join(invoke("--help").stdout.split())
    for fragment in ("0 success", "1 bad input", "2 usage error", "3 internal error"):
        assert fragment in text


def test_a_result_whose_status_is_error_exits_1(toy_file):
    result = invoke("solve", toy_file, "-m", "first", "--opt", "index=9")  # an invalid solution: ERROR
    assert "ERROR" in result.stdout
    assert result.exit_code == 1


@pytest.fixture
def square_file(tmp_path):
    """An instance of the plugin problem "square" (compare runs methods in child processes: plugins reach them)."""
    path = tmp_path / "square.json"
    path.write_text(json.dumps({"problem": "square", "name": "sq", "data": {"target": 4, "limit": 9}}))
    return path


def test_unknown_method_exits_1_from_solve_and_compare(toy_file, square_file):
    assert invoke("solve", toy_file, "-m", "nope").exit_code == 1
    compared = invoke("compare", square_file, "-m", "nope", "--plugin", SQUARE)
    assert compared.exit_code == 1 and "method 'nope'" in compared.stderr  # solve's wording, or compare's own


def test_usage_error_exits_2(toy_file):
    assert invoke("solve", toy_file, "--no-such-option").exit_code == 2
    assert invoke("solve").exit_code == 2


def test_internal_error_exits_3(toy_file, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("hpcsched.cli.solving.run_method", broken)
    monkeypatch.delenv("HPCSCHED_DEBUG", raising=False)
    result = invoke("solve", toy_file)
    assert result.exit_code == 3 and "internal error" in result.stderr


# --- 3. '-' and outputs that are not regular files


def test_solve_reads_stdin_and_writes_the_solution_to_stdout(toy_file):
    result = invoke("solve", "-", "--out", "-", input=toy_file.read_text())
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)  # only the solution on stdout: the table went to stderr
    assert document["solution"] == {"index": 1}
    assert "OPTIMAL" in result.stderr


def test_validate_reads_the_solution_from_stdin(toy_file, tmp_path):
    solution = invoke("solve", toy_file, "--out", "-").stdout
    checked = invoke("validate", toy_file, "-", input=solution)
    assert checked.exit_code == 0, checked.output
    assert "objective = 3" in checked.stdout
    assert invoke("validate", "-", "-", input="{}").exit_code == 1


def test_generate_to_stdout(tmp_path):
    result = invoke("generate", "square", "-o", "-", "--plugin", SQUARE)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["problem"] == "square"
    assert "wrote -" in result.stderr


def test_compare_csv_to_stdout(square_file):
    result = invoke("compare", square_file, "-m", "clamp", "--csv", "-", "--plugin", SQUARE)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))  # only the CSV on stdout: the table went to stderr
    assert [(row["method"], row["status"]) for row in rows] == [("clamp", "OPTIMAL")]


def test_symlink_stays_a_symlink_and_its_target_gets_the_content(toy_file, tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = invoke("solve", toy_file, "--out", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["solution"] == {"index": 1}


def test_dangling_symlink_creates_its_target(tmp_path):
    target = tmp_path / "new.csv"
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    atomic_write_text(link, "a,b\n")
    assert link.is_symlink() and target.read_text() == "a,b\n"


def test_compare_csv_through_a_symlink(square_file, tmp_path):
    target = tmp_path / "target.csv"
    target.write_text("")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert invoke("compare", square_file, "-m", "clamp", "--csv", link, "--plugin", SQUARE).exit_code == 0
    assert link.is_symlink() and "clamp" in target.read_text()


def _read_fifo(path: Path, into: list) -> threading.Thread:
    def reader():
        with open(path) as handle:
            into.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_written_through_not_replaced(toy_file, tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    received: list[str] = []
    thread = _read_fifo(fifo, received)
    result = invoke("solve", toy_file, "--out", fifo)
    thread.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert fifo.is_fifo()
    assert json.loads(received[0])["solution"] == {"index": 1}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_atomic_output_writes_a_file_writer_through_a_fifo(tmp_path):
    fifo = tmp_path / "plot.png"
    os.mkfifo(fifo)
    received: list[str] = []
    thread = _read_fifo(fifo, received)
    with atomic_output(fifo) as temporary:
        temporary.write_text("image")
    thread.join(timeout=30)
    assert fifo.is_fifo() and received == ["image"]


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_dev_null_is_written_through_not_replaced(toy_file):
    before = os.stat("/dev/null")
    check_output_path("/dev/null", "--out")
    result = invoke("solve", toy_file, "--out", "/dev/null")
    assert result.exit_code == 0, result.output
    after = os.stat("/dev/null")
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_regular_file_is_still_replaced_atomically(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("old")
    inode = path.stat().st_ino
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and path.stat().st_ino != inode  # a rename, not an in-place write


# --- 4. --json and --plugin


def test_methods_json():
    result = invoke("methods", "pick", "--json")
    assert result.exit_code == 0, result.output
    [entry] = json.loads(result.stdout)
    assert entry["name"] == "pick" and entry["default_method"] == "cheapest"
    first = {"name": "first", "kind": "heuristic", "summary": ""}
    assert any({key: method[key] for key in first} == first for method in entry["methods"])


def test_compare_json(square_file):
    result = invoke("compare", square_file, "-m", "clamp", "--json", "--plugin", SQUARE)
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert row["method"] == "clamp" and row["status"] == "OPTIMAL" and row["objective"] == 0.0


def test_compare_json_options_are_objects(square_file):
    result = invoke("compare", square_file, "-m", "clamp", "--json", "--plugin", SQUARE)
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert row["options"] == {}


def test_compare_table_prints_numbers_without_exponent(tmp_path):
    far = tmp_path / "far.json"  # clamp picks x = 0: objective 20000**2 = 400,000,000
    far.write_text(json.dumps({"problem": "square", "name": "far", "data": {"target": 20000, "limit": 0}}))
    result = invoke("compare", far, "-m", "clamp", "--plugin", SQUARE)
    assert result.exit_code == 0, result.output
    assert "400,000,000" in result.stdout and "e+08" not in result.stdout


def test_compare_exits_1_when_a_run_ends_in_error(square_file, tmp_path):
    broken = tmp_path / "broken_square.py"
    broken.write_text(
        Path(SQUARE).read_text()
        + (
            "\ndef solve_wrong(instance, /, *, time_limit, seed, params):\n"
            "    return Result('square', 'wrong', Status.FEASIBLE, solution=Solution(instance.limit + 1))\n"
            "PROBLEM.add_method('wrong', solve_wrong, kind='heuristic')\n"
        )
    )
    result = invoke("compare", square_file, "-m", "wrong", "--plugin", broken)
    assert "ERROR" in result.stdout
    assert result.exit_code == 1


def test_solve_takes_a_plugin(square_file):
    result = invoke("solve", square_file, "--plugin", SQUARE, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["objective"] == 0.0


def test_entry_point_problems_are_discovered(tmp_path, monkeypatch):
    module = tmp_path / "hpcsched_thirdparty_cube.py"
    module.write_text(Path(SQUARE).read_text().replace('"square"', '"cube"'))
    monkeypatch.syspath_prepend(str(tmp_path))
    point = metadata.EntryPoint(name="cube", value="hpcsched_thirdparty_cube", group=registry.ENTRY_POINT_GROUP)
    real = metadata.entry_points

    def fake(**selection):
        if selection.get("group") == registry.ENTRY_POINT_GROUP:
            return metadata.EntryPoints([point])
        return real(**selection)

    monkeypatch.setattr(metadata, "entry_points", fake)
    monkeypatch.setattr(registration, "_LOADED_ENTRY_POINTS", set())
    monkeypatch.setattr(registration, "_PROBLEMS", dict(registration._PROBLEMS))
    assert not registration.is_registered("cube")
    assert "cube" in registry.problem_names()
    assert registry.get_problem("cube").default_method == "clamp"
    instance = tmp_path / "cube.json"
    instance.write_text(json.dumps({"problem": "cube", "data": {"target": 2, "limit": 9}}))
    assert invoke("solve", instance).exit_code == 0


def test_a_broken_entry_point_is_one_error_naming_it(monkeypatch):
    point = metadata.EntryPoint(name="ghost", value="no_such_module_hpcsched", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata, "entry_points", lambda **s: metadata.EntryPoints([point]))
    monkeypatch.setattr(registration, "_LOADED_ENTRY_POINTS", set())
    result = invoke("generate", "ghost", "-o", "x.json")
    assert result.exit_code == 1 and "entry point 'ghost" in result.stderr


# --- 5. the methods table is cached


def test_methods_are_listed_from_the_cache_without_importing_the_packages(tmp_path):
    environment = {**os.environ, "HPCSCHED_CACHE_DIR": str(tmp_path)}
    environment.pop("HPCSCHED_NO_CACHE", None)
    script = (
        "import sys; from hpcsched.core.registry import problem_summaries;"
        "[s] = problem_summaries(['locality']); print(s.default_method, 'hpcsched.locality' in sys.modules)"
    )
    first = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, check=True)
    default = first.stdout.split()[0]
    assert first.stdout.split() == [default, "True"]
    assert second.stdout.split() == [default, "False"]  # read from the cache


def test_the_console_script_turns_a_usage_error_into_one_line(tmp_path):
    """`main` (the installed `hpcsched`) prints click's usage errors as one line, exit 2."""
    import subprocess
    import sys

    script = "import sys; from hpcsched.cli import main; sys.argv = ['hpcsched', *sys.argv[1:]]; main()"
    done = subprocess.run(
        [sys.executable, "-c", script, "solve", "x.json", "--time-limt", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    # click words it "No such option: --time-limt" or "No such option '--time-limt'"
    # depending on its version; the contract is one line naming the option.
    assert len(lines) == 1 and "No such option" in lines[0] and "--time-limt" in lines[0]
    version = subprocess.run([sys.executable, "-c", script, "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("hpcsched ")
