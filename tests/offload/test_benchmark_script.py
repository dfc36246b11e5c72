"""The maintained benchmark script runs on the shipped instances (benchmarks/offload/run.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from .offload_helpers import INSTANCES

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "offload" / "run.py"


def _load():
    spec = importlib.util.spec_from_file_location("offload_benchmarks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vgg16_benchmark_reads_a_shipped_instance(tmp_path, monkeypatch, capsys):
    # It fell back to instances/offload/vgg16-pcie3-60.json, which the regenerated instances no longer ship.
    bench = _load()
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    # What is checked is the instance it reads and the table it writes, not the methods' values: 0.1 s each.
    monkeypatch.setattr(sys, "argv", ["run.py", "vgg16", "--time-limit", "0.1"])
    bench.main()
    assert (INSTANCES / "vgg16-pcie3-70.json").exists()
    table = (tmp_path / "vgg16_pcie3_70.md").read_text()
    assert table.count("\n") == 2 + 5 and "local-search" in table and "ERROR" not in table


def test_proofs_table_of_an_instance_proven_by_its_bound(monkeypatch, capsys):
    bench = _load()
    # The proof is the problem's bound, met by cpsat's first greedy start: a 1 s limit (was 20 s, whose
    # 15 % heuristic share, ~3 s of local search, was run for nothing) proves the same.
    monkeypatch.setattr(sys, "argv", ["run.py", "proofs", "--only", "gnmt-pcie3-90", "--time-limit", "1"])
    bench.main()
    assert "| gnmt-pcie3-90 | OPTIMAL | 89416.0 | 89416 |" in capsys.readouterr().out
