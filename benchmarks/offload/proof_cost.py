"""What the default method's proofs cost, in deterministic units and CPU seconds (README, "What the proofs cost").

Usage: python benchmarks/offload/proof_cost.py [BRANCH_UNITS] [WALL_LIMIT] [INSTANCE ...]

Each instance is solved by the default ``cpsat`` with ``branch_node_limit`` = BRANCH_UNITS (CP-SAT
deterministic time per branch of the offload-set search, default: the method's default) and a wall-clock
limit WALL_LIMIT (default 600 s, a safety net: the verdict of the search does not depend on it unless it
is reached).  Prints one Markdown row per instance.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.offload.formulations import BRANCH_DETERMINISTIC_TIME

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> None:
    units = float(argv[0]) if argv else BRANCH_DETERMINISTIC_TIME
    wall = float(argv[1]) if len(argv) > 1 else 600.0
    paths = argv[2:] or sorted(str(p) for p in (ROOT / "instances" / "offload").glob("vgg16-*.json"))
    print("| instance | status | makespan | bound | branches | deterministic units | search CPU s | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        instance = read_instance(path)
        started, cpu = time.perf_counter(), time.process_time()
        result = run_method(instance, "cpsat", time_limit=wall, branch_node_limit=units)
        elapsed, cpu_used = time.perf_counter() - started, time.process_time() - cpu
        search = next((note for note in result.notes if note.startswith("offload-set search")), "")
        branches = re.search(r"after (\d+) branches", search)
        dtime = re.search(r"([\d.]+) deterministic units,", search)
        cpu_s = re.search(r"([\d.]+) CPU s", search)
        print(f"| {Path(path).stem} | {result.status.value} | {result.objective} | {result.bound} | "
              f"{branches.group(1) if branches else '-'} | {dtime.group(1) if dtime else '-'} | "
              f"{cpu_s.group(1) if cpu_s else f'({cpu_used:.1f} total)'} | {elapsed:.1f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
