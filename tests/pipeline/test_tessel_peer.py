"""Tessel's placements as our instances, and Tessel's schedules checked by our validator.

instances/pipeline/make_tessel.py restates the placements of Tessel's
cases_tessel.py; benchmarks/pipeline/tessel_peer.py converts what Tessel finds
into our solutions. The records under data/ were written by
benchmarks/pipeline/tessel_driver.py from Tessel (github zhiqi-0/Tessel,
HEAD 44f72c3, z3-solver 4.13.0): vshape D=4 N=4 M=4 (compose_n), mshape D=4
M=6 (compose_fast), xshape D=4 N=3 M=4 (compose_n). Tessel itself is not
needed here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from hpcsched.core.io import read_instance
from hpcsched.pipeline import Solution, validate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


maker = _load("make_tessel", ROOT / "instances" / "pipeline" / "make_tessel.py")
peer = _load("tessel_peer", ROOT / "benchmarks" / "pipeline" / "tessel_peer.py")

#: Busy steps per device of one micro-batch (docs: the period bound with one micro-batch per period).
WORK = {
    "vshape": 4,
    "xshape": 8,
    "mshape": 6,
    "nnshape": 8,
    "nnshape_eager": 8,
    "mllm": 8,
    "kshape": 6,
    "finetune": 4,
    "alphafold": 4,
}


@pytest.mark.parametrize("case", maker.CASES)
def test_every_device_of_a_case_does_the_same_work(case):
    instance = maker.tessel_instance(case, 4, None)
    assert instance.work() == (WORK[case],) * 4


@pytest.mark.parametrize("case", ["xshape", "kshape"])
def test_cases_with_two_branches_need_an_even_number_of_devices(case):
    with pytest.raises(ValueError, match="even"):
        maker.tessel_data(case, 5)


def test_the_shipped_files_are_what_the_script_writes():
    files = sorted((ROOT / "instances" / "pipeline" / "tessel").glob("*.json"))
    made = {instance.name: instance for instance in maker.instances()}
    assert sorted(made) == sorted(path.stem for path in files)
    for path in files:
        assert read_instance(path).to_data() == made[path.stem].to_data(), path.name


# case, devices, memory, record, period, steady-state peaks (Tessel's targets for vshape and mshape)
RECORDS = [
    ("vshape", 4, 4, "tessel-vshape-d4-m4-n4.json", 4, [4, 3, 2, 1]),
    ("mshape", 4, 6, "tessel-mshape-d4-m6-fast.json", 6, [6, 4, 3, 1]),
    ("xshape", 4, 4, "tessel-xshape-d4-m4-n3.json", 8, [4, 3, 3, 3]),
]


@pytest.mark.parametrize(("case", "devices", "memory", "file", "period", "peaks"), RECORDS)
def test_tessel_repetends_are_valid_periodic_schedules(case, devices, memory, file, period, peaks):
    record = json.loads((DATA / file).read_text())
    instance = maker.tessel_instance(case, devices, memory)
    assert peer.same_graph(instance, record["micro"]) == ""
    found = peer.check(instance, peer.periodic_solution(record))
    assert found["valid"], found["violations"]
    assert found["objective"] == period == max(instance.work())  # no bubble: the work bound
    assert found["peak_memory"] == peaks


@pytest.mark.parametrize(("case", "devices", "memory", "file", "period", "peaks"), RECORDS)
def test_tessel_whole_plans_are_valid_makespan_schedules(case, devices, memory, file, period, peaks):
    record = json.loads((DATA / file).read_text())
    instance = maker.tessel_instance(case, devices, memory, record["micro_batches"])
    found = peer.check(instance, peer.makespan_solution(record))
    assert found["valid"], found["violations"]
    assert found["peak_memory"] == record["peak_memory"]  # Tessel frees at a block's start, we at its end


def test_a_period_one_step_shorter_is_refused():
    record = json.loads((DATA / "tessel-vshape-d4-m4-n4.json").read_text())
    instance = maker.tessel_instance("vshape", 4, 4)
    solution = peer.periodic_solution(record)
    shorter = Solution.periodic(solution.period - 1, solution.offset)
    assert validate(instance, shorter)


def test_written_files_read_back_as_a_valid_solution(tmp_path):
    from hpcsched.core.io import read_solution

    record = json.loads((DATA / "tessel-mshape-d4-m6-fast.json").read_text())
    instance = maker.tessel_instance("mshape", 4, 6)
    peer.write_files(tmp_path, instance, peer.periodic_solution(record), 1.0)
    again = read_instance(tmp_path / "mshape-d4-m6.json")
    solution = read_solution(tmp_path / "mshape-d4-m6.tessel.json", again)
    assert solution.period == 6
    assert not validate(again, solution)


def _args(**given):
    import argparse

    base = {"devices": "4", "memory": "4", "micro_batches": None, "fast": True, "case": "vshape"}
    return argparse.Namespace(**{**base, **given})


def test_a_list_of_devices_pairs_with_lists_or_single_values():
    plan = peer.runs(_args(devices="2,4,6", memory="2,4,6", micro_batches="3", fast=False))
    assert [(one.devices, one.memory, one.micro_batches) for one in plan] == [(2, 2, 3), (4, 4, 3), (6, 6, 3)]
    assert [(one.devices, one.memory, one.micro_batches) for one in peer.runs(_args())] == [(4, 4, None)]


def test_a_list_of_another_length_than_devices_is_refused():
    with pytest.raises(SystemExit, match="one per D"):
        peer.runs(_args(devices="2,4,6", memory="2,4"))


def test_the_cpu_cap_stops_a_busy_child():
    import signal
    import subprocess

    busy = [sys.executable, "-c", "while True: pass"]
    done = subprocess.run(busy, preexec_fn=peer._cpu_cap(1), timeout=300, check=False)
    assert done.returncode == -signal.SIGXCPU
    assert peer._cpu_cap(None) is None


TESSEL = Path(os.environ.get("TESSEL_DIR", "/nonexistent"))


@pytest.mark.skipif(
    not (TESSEL / "tessel" / "schedule" / "composer.py").is_file(),
    reason="needs a Tessel checkout in TESSEL_DIR (and its Python in TESSEL_PYTHON); Tessel is not a dependency",
)
def test_tessel_on_vshape_d2_is_valid_under_our_validator(tmp_path):
    import subprocess

    command = [sys.executable, str(ROOT / "benchmarks" / "pipeline" / "tessel_peer.py"), "--tessel", str(TESSEL)]
    command += ["--python", os.environ.get("TESSEL_PYTHON", sys.executable), "--case", "vshape", "--devices", "2"]
    command += ["--memory", "2", "--micro-batches", "2", "--json", str(tmp_path / "out.json")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((tmp_path / "out.json").read_text())
    assert record["same_graph"] == "yes" and record["period"]["valid"] and record["makespan"]["valid"]


def test_ours_only_runs_our_methods_without_tessel():
    args = _args(ours_only=True, ours="brute-force", time_limit=30.0, solutions=None, timeout=1.0, cpu_limit=None)
    summary, code = peer.compare(peer.runs(args)[0])
    assert code == 0 and summary["tessel"].startswith("not run")
    assert [(row["method"], row["objective"]) for row in summary["ours"]] == [("brute-force", 4.0)]


def test_the_table_puts_tessel_and_ours_side_by_side():
    table = _load("tessel_table", ROOT / "benchmarks" / "pipeline" / "tessel_table.py")
    ours = [{"method": "cpsat", "status": "OPTIMAL", "objective": 4.0, "cpu_s": 0.5, "runtime_s": 1.0}]
    found = {
        "case": "vshape", "devices": 4, "memory": 4, "search": "compose_n(N=4)", "tessel_caps": {"cpu_s": 150.0},
        "tessel_search_cpu_s": 2.0, "tessel_search_wall_s": 3.0, "tessel_wall_s": 3.5, "tessel_cpu_s": 2.2,
        "period": {"valid": True, "objective": 4.0}, "makespan": {"valid": False, "violations": ["x"], "micro_batches": 4},
        "ours": ours,
    }  # fmt: skip
    killed = {**found, "tessel": "killed at the CPU limit of 150 s", "tessel_wall_s": 900.0}
    for key in ("tessel_search_cpu_s", "period", "makespan"):
        del killed[key]
    rows = table.table([found, killed]).splitlines()[2:]
    assert rows[0].split(" | ")[4:] == [
        "2.00 (3.00)",
        "4",
        "valid / INVALID: ['x'] (N=4)",
        "cpsat 0.50 (1.00): 4",
        "4× |",
    ]
    assert rows[1].split(" | ")[4:6] == ["> 150 (killed; 900)", "–"] and rows[1].endswith("> 300× |")


def test_a_tessel_child_past_the_cpu_cap_is_reported_as_killed(tmp_path, monkeypatch):
    busy = tmp_path / "busy.py"
    busy.write_text("while True: pass\n")
    monkeypatch.setattr(peer, "DRIVER", busy)
    args = _args(python=sys.executable, tessel=tmp_path, timeout=300.0, cpu_limit=1.0)
    record, reason, _, _ = peer.run_tessel(peer.runs(args)[0])
    assert record is None and reason == "killed at the CPU limit of 1 s"
