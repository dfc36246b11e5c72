"""Study files: schema errors, expansion, and a study killed mid-way then resumed."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from hpcsched.core.io import write_instance
from hpcsched.experiments import StudyFileError, load_study, read_rows, run_study

from .experiments_helpers import PYTHON, TOY, stable, subprocess_env, toy_instance

HERE = Path(__file__).resolve().parent
SQUARE = HERE / "plugin_square.py"


def write_study(folder: Path, body: str, name: str = "study.toml") -> Path:
    path = folder / name
    path.write_text(body)
    return path


GENERATED = f"""
name = "toy-gen"
results = "results.csv"
time_limits = [5]
seeds = [0, 1]
grace = 1
plugins = ["{TOY}"]

[[instances]]
problem = "toy"
family = "uniform"
seeds = [0, 1]
sweep = {{ n = [4, 9] }}

[[methods]]
name = "exact"

[[methods]]
name = "seeded"
"""


def test_a_study_expands_instances_methods_limits_and_seeds(tmp_path):
    study = load_study(write_study(tmp_path, GENERATED))
    tasks = study.tasks()
    assert len(tasks) == 2 * 2 * 2 * 1 * 2  # n values x instance seeds x methods x limits x seeds
    assert study.results == tmp_path / "results.csv"
    assert {task["size"] for task in tasks} == {4, 9}
    assert [task["method"] for task in tasks[:4]] == ["exact", "exact", "seeded", "seeded"]
    summary = run_study(study, progress=False)
    rows = read_rows(tmp_path / "results.csv")
    assert summary.ran == len(rows) == 16
    for row in rows:
        if row["method"] == "exact":
            assert row["status"] == "OPTIMAL" and row["objective"] == row["bound"]
    assert run_study(study, progress=False).skipped == 16


def test_files_plugins_given_as_paths_and_per_method_settings(tmp_path):
    for seed in range(3):
        write_instance(toy_instance(seed), tmp_path / "inst" / f"toy{seed}.json")
    body = f"""
results = "out/results.csv"
time_limits = [5]
plugins = ["{TOY}", "{HERE / "plugin_square.py"}"]

[[instances]]
files = ["inst/*.json"]

[[instances]]
problem = "square"
family = "fixed"
params = {{ target = 12, limit = 10 }}

[[methods]]
name = "exact"
problem = "toy"
time_limits = [1, 2]

[[methods]]
name = "clamp"
problem = "square"
seeds = [3]
"""
    study = load_study(write_study(tmp_path, body))
    summary = run_study(study, progress=False)
    rows = read_rows(tmp_path / "out" / "results.csv")
    assert summary.ran == len(rows) == 3 * 2 + 1
    square = next(row for row in rows if row["problem"] == "square")
    assert square["objective"] == (10 - 12) ** 2 and square["seed"] == 3 and square["status"] == "OPTIMAL"
    assert sorted({row["time_limit"] for row in rows if row["problem"] == "toy"}) == [1.0, 2.0]
    assert [row["instance"] for row in rows if row["problem"] == "toy"].count("toy-uniform-n6-s0") == 2


BAD_STUDIES = [
    ("", "results", "is missing"),
    ('results = "r.csv"\n', "time_limits", "is missing"),
    ('results = "r.csv"\ntime_limits = [0]\n', "time_limits[0]", "positive number of seconds"),
    ('results = "r.csv"\ntime_limits = [1]\ncolour = "red"\n', "colour", "unknown key"),
    ('results = "r.csv"\ntime_limits = [1]\njobs = "two"\n', "jobs", "must be an integer"),
    ('results = "r.csv"\ntime_limits = [1]\nexecutor = "slurm"\n', "executor", "must be one of local, dask"),
    ('results = "r.csv"\ntime_limits = [1]\nplugins = ["no_such_module_xyz"]\n', "plugins", "cannot be imported"),
    ('results = "r.csv"\ntime_limits = [1]\n[[methods]]\nname="exact"\n', "instances", "must not be empty"),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nproblem = "nope"\nfamily = "x"\n',
        "instances[0].problem",
        "unknown problem 'nope'",
    ),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nproblem = "toy"\nfamily = "x"\n',
        "instances[0].family",
        "no generator family 'x'",
    ),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nproblem = "toy"\nfamily = "uniform"\nparams = {{ colour = 1 }}\n[[methods]]\nname = "exact"\n',
        "instances[0].params",
        "does not accept",
    ),
    (
        'results = "r.csv"\ntime_limits = [1]\n[[instances]]\nfiles = ["nothing-here-*.json"]\n[[methods]]\nname = "exact"\n',
        "instances[0].files[0]",
        "matches no file",
    ),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nproblem = "toy"\nfamily = "uniform"\n[[methods]]\nname = "simplex"\n',
        "methods[0].name",
        "has no method 'simplex'",
    ),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nproblem = "toy"\nfamily = "uniform"\n[[methods]]\noptions = {{}}\n',
        "methods[0].name",
        "is missing",
    ),
    ('results = "r.csv"\ntime_limits = [1\n', "", "malformed TOML"),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nproblem = "toy"\nfamily = "uniform"\n[[methods]]\nname = "exact"\nproblem = "nope"\n',
        "methods[0].problem",
        "unknown problem 'nope'",
    ),
    (
        f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}", "{SQUARE}"]\n[[instances]]\nproblem = "toy"\nfamily = "uniform"\n[[methods]]\nname = "clamp"\nproblem = "square"\n',
        "instances[0]",
        "no method applies to problem 'toy'",
    ),
]


@pytest.mark.parametrize("body, key, reason", BAD_STUDIES)
def test_a_bad_study_file_is_one_error_naming_file_and_key(tmp_path, body, key, reason):
    path = write_study(tmp_path, body, "bad.toml")
    with pytest.raises(StudyFileError) as caught:
        load_study(path).tasks()
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}: " if key else f"{path}: "), message
    assert reason in message and "\n" not in message


def test_a_malformed_instance_file_is_named(tmp_path):
    (tmp_path / "broken.json").write_text('{"problem": "toy", "data": {"values": [1, "x"]}}')
    body = f'results = "r.csv"\ntime_limits = [1]\nplugins = ["{TOY}"]\n[[instances]]\nfiles = ["broken.json"]\n[[methods]]\nname = "exact"\n'
    with pytest.raises(
        StudyFileError, match=r"instances\[0\].files\[0\]: .*broken.json: data.values\[1\]: must be an integer"
    ):
        load_study(write_study(tmp_path, body)).tasks()


def test_a_missing_study_file():
    with pytest.raises(StudyFileError, match="no such file"):
        load_study("/nonexistent/study.toml")


# ------------------------------------------------------------ kill and resume

SLOW = f"""
name = "slow"
results = "results.csv"
time_limits = [10]
seeds = [0, 1, 2, 3]
plugins = ["{TOY}"]

[[instances]]
problem = "toy"
family = "uniform"
seeds = [0, 1, 2, 3, 4]
params = {{ n = 7 }}

[[methods]]
name = "sleep"
options = {{ seconds = 0.04 }}

[[methods]]
name = "seeded"
"""


def data_rows(path: Path) -> int:
    if not path.exists():
        return 0
    return max(0, path.read_bytes().count(b"\n") - 1)


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory) -> list[dict]:
    """The rows of the slow study run to its end without interruption (one run for both signals)."""
    reference = run_study(load_study(write_study(tmp_path_factory.mktemp("reference"), SLOW)), progress=False)
    return reference.rows


@pytest.mark.parametrize("kill_signal", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_study_resumes_without_losing_or_duplicating_a_row(tmp_path, kill_signal, slow_reference):
    total = len(slow_reference)
    assert total == 5 * 2 * 4

    folder = tmp_path / "killed"
    folder.mkdir()
    study_file = write_study(folder, SLOW)
    results = folder / "results.csv"
    command = [PYTHON, "-m", "hpcsched.experiments", "study", "run", str(study_file), "--no-progress"]
    process = subprocess.Popen(command, env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while data_rows(results) < 6 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    process.send_signal(kill_signal)
    process.wait(timeout=30)
    process.stdout.close()
    process.stderr.close()
    recorded = len(read_rows(results))
    assert 6 <= recorded < total, "the study was not interrupted mid-way"

    resumed = subprocess.run(command, env=subprocess_env(), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"skipped {recorded} already recorded" in resumed.stdout
    rows = read_rows(results)
    assert len(rows) == total
    assert stable(rows) == stable(slow_reference)  # row for row, runtimes and hosts aside
