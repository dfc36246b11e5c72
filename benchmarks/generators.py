"""How large an instance can each generator family make? Time and memory of generate, write, read back.

Run from the repository root:

    python benchmarks/generators.py                               # every family, 10^3 .. 10^6
    python benchmarks/generators.py --sizes 1000,10000 --problems treemem,hetero

For each problem, generator family and size, a child process generates the instance
(seed 0), writes it with ``write_instance`` and reads it back with ``read_instance``
(the schema check and the Instance built again, as ``hpcsched solve`` does). It records
the CPU and wall seconds of each step, the file size and the child's peak resident
memory. A child gets at most ``--timeout`` seconds and ``--memory`` GiB of address
space (a larger allocation fails in the child, not on the machine); a family whose
size failed, or was refused by the generator, is not tried at the next size.

``SIZES`` maps a size (tasks, nodes, layers, kernels, applications) to the family's
parameters; the families without ``n`` get the parameter that makes about that many
tasks. A family is not tried at the next size once generate + write + read took
``--stop-cpu`` CPU seconds. These measurements set the documented maximum of each family
(the ``size`` ranges the generators declare with `hpcsched.core.generation.checked`; the
table in docs/architecture.md, "Generator sizes"). Times depend on the machine's load: the
CPU seconds are the measure to compare. Output: one CSV row per run (``--csv``, default
benchmarks/results/generators.csv) and one line per run on stdout.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: (problem, family) -> the generator's parameters for about ``n`` tasks (nodes, layers, ...).
SIZES: dict[tuple[str, str], Callable[[int], dict[str, Any]]] = {
    ("transfers", "uniform"): lambda n: {"n": n},
    ("transfers", "correlated"): lambda n: {"n": n},
    ("transfers", "hf-like"): lambda n: {"n": n},
    ("transfers", "ccsd-like"): lambda n: {"n": n},
    ("offload", "homogeneous"): lambda n: {"n": n},
    ("offload", "random"): lambda n: {"n": n},
    ("offload", "cnn"): lambda n: {"n": n},
    ("offload", "transformer"): lambda n: {"n": n},
    ("coschedule", "uniform"): lambda n: {"n": n},
    ("coschedule", "all-ones"): lambda n: {"n": n},
    ("coschedule", "sm-model"): lambda n: {"n": n},
    ("burstbuffer", "mix"): lambda n: {"n": n},
    ("burstbuffer", "periodic"): lambda n: {"n": n},
    ("locality", "uniform"): lambda n: {"n": n},
    ("locality", "rack-aware"): lambda n: {"n": n},
    ("checkpoint", "homogeneous"): lambda n: {"n": n},
    ("checkpoint", "random"): lambda n: {"n": n},
    ("checkpoint", "transformer"): lambda n: {"n": n},
    ("treemem", "random-tree"): lambda n: {"n": n},
    ("treemem", "random-dag"): lambda n: {"n": n},
    ("treemem", "harpoon"): lambda n: {"k": max(1, n // 2), "big": 100 * max(1, n // 2)},
    ("treemem", "assembly"): lambda n: {"shape": [max(2, round(math.sqrt(n)))] * 2},
    ("treemem", "parallel-tree"): lambda n: {"n": n},
    ("hetero", "layered"): lambda n: {"n": n},
    ("hetero", "fork-join"): lambda n: {"phases": max(1, n // 100), "width": min(n, 100)},
    ("hetero", "cholesky"): lambda n: {"tiles": max(1, round((6 * n) ** (1 / 3)))},
    ("hetero", "heteroprio-trap"): lambda n: {"chain": max(1, n // 3)},
    ("partition", "training"): lambda n: {"nodes": n},
    ("partition", "random"): lambda n: {"nodes": n},
    ("partition", "chain"): lambda n: {"nodes": n},
}

FIELDS = [
    "problem",
    "family",
    "size",
    "params",
    "status",
    "generate_s",
    "generate_cpu_s",
    "write_s",
    "write_cpu_s",
    "read_s",
    "read_cpu_s",
    "file_mb",
    "peak_mb",
    "note",
]

#: The child: generate, write, read back; prints one JSON line.
CHILD = r"""
import json, os, resource, sys, tempfile, time
from hpcsched.core.errors import HpcschedError
from hpcsched.core.io import read_instance, write_instance
from hpcsched.core.registry import get_problem

problem, family, params, memory = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4])
limit = int(memory * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
row = {}
def clocks():
    return time.perf_counter(), time.process_time()
try:
    wall, cpu = clocks()
    instance = get_problem(problem).generators[family](seed=0, **params)
    row["generate_s"], row["generate_cpu_s"] = time.perf_counter() - wall, time.process_time() - cpu
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "instance.json")
        wall, cpu = clocks()
        write_instance(instance, path)
        row["write_s"], row["write_cpu_s"] = time.perf_counter() - wall, time.process_time() - cpu
        row["file_mb"] = os.path.getsize(path) / 1e6
        del instance
        wall, cpu = clocks()
        read_instance(path)
        row["read_s"], row["read_cpu_s"] = time.perf_counter() - wall, time.process_time() - cpu
    row["status"] = "OK"
except HpcschedError as error:
    row["status"], row["note"] = "REFUSED", str(error)[:200]
except MemoryError:
    row["status"], row["note"] = "MEMORY", f"over {memory:g} GiB"
row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(row))
"""


def measure(problem: str, family: str, size: int, timeout: float, memory: float) -> dict[str, Any]:
    """One child run of ``family`` at ``size``: its JSON row, or KILLED at ``timeout``."""
    params = SIZES[(problem, family)](size)
    row: dict[str, Any] = {"problem": problem, "family": family, "size": size, "params": json.dumps(params)}
    command = [sys.executable, "-c", CHILD, problem, family, json.dumps(params), str(memory)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {**row, "status": "KILLED", "note": f"past {timeout:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return {**row, "status": "FAILED", "note": done.stderr.strip().splitlines()[-1:]}
    return {**row, **json.loads(lines[-1])}


def _cpu(row: dict[str, Any]) -> float:
    """CPU seconds of generate + write + read (the machine's load inflates the wall clock, not these)."""
    return sum(float(row.get(key) or 0.0) for key in ("generate_cpu_s", "write_cpu_s", "read_cpu_s"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--problems", default="", help="comma-separated (default: all)")
    parser.add_argument("--families", default="", help="comma-separated (default: all)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per child")
    parser.add_argument("--memory", type=float, default=8.0, help="GiB of address space per child")
    parser.add_argument(
        "--stop-cpu",
        type=float,
        default=30.0,
        help="do not try the next size once generate + write + read took this many CPU seconds",
    )
    parser.add_argument("--csv", type=Path, default=ROOT / "benchmarks" / "results" / "generators.csv")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    problems = set(filter(None, args.problems.split(",")))
    families = set(filter(None, args.families.split(",")))
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with args.csv.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS, extrasaction="ignore")
        writer.writeheader()
        for problem, family in SIZES:
            if (problems and problem not in problems) or (families and family not in families):
                continue
            for size in sizes:
                row = measure(problem, family, size, args.timeout, args.memory)
                writer.writerow(row)
                handle.flush()
                shown = {k: (f"{v:.2f}" if isinstance(v, float) else v) for k, v in row.items() if k != "params"}
                print(" ".join(f"{k}={v}" for k, v in shown.items()), flush=True)
                if row["status"] != "OK" or _cpu(row) > args.stop_cpu:
                    break


if __name__ == "__main__":
    main()
