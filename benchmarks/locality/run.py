"""Benchmarks of the locality problem (README.md is the protocol and holds the current tables).

    .venv/bin/python benchmarks/locality/run.py scale --sizes 10000 100000 1000000 [10000000]
    .venv/bin/python benchmarks/locality/run.py heuristics --n 1000000
    .venv/bin/python benchmarks/locality/run.py exact --time-limit 60

Every measurement runs in a fresh subprocess, so its peak resident memory
(``ru_maxrss`` of that process) belongs to that measurement only. All methods
are called through ``hpcsched.solve`` (the solution is validated). Results are
written as CSV rows and markdown tables under ``--results`` (default ``results/``).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
params = json.loads(sys.argv[1])
import hpcsched
from hpcsched.locality import generate_uniform
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
t = time.perf_counter()
instance = generate_uniform(**params["generator"])
generate_s = time.perf_counter() - t
rss_instance = rss_mb()
t = time.perf_counter()
result = hpcsched.solve(instance, params["method"], time_limit=params.get("time_limit"), seed=0,
                        **params.get("options", {}))
total_s = time.perf_counter() - t
from hpcsched.locality.bounds import trivial_bound
print(json.dumps({"trivial_bound": trivial_bound(instance) if instance.objective == "makespan" else None,
                  "status": result.status.value, "objective": result.objective, "bound": result.bound,
                  "method_s": result.runtime_s, "with_validation_s": total_s, "generate_s": generate_s,
                  "rss_after_instance_mb": rss_instance, "peak_rss_mb": rss_mb(), "solver": result.solver,
                  "notes": list(result.notes)}))
"""


def measure(
    generator: dict, method: str, *, time_limit: float | None = None, options: dict | None = None, timeout: float = 600
) -> dict:
    """Run one method on one generated instance in a fresh Python process."""
    params = {"generator": generator, "method": method, "time_limit": time_limit, "options": options or {}}
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", CHILD, json.dumps(params)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if completed.returncode != 0:
        return {
            "status": "CRASH",
            "error": completed.stderr.strip().splitlines()[-1:],
            "wall_s": time.perf_counter() - started,
        }
    row = json.loads(completed.stdout.strip().splitlines()[-1])
    row["wall_s"] = time.perf_counter() - started
    return row


def write(folder: Path, name: str, rows: list[dict], columns: list[str]) -> None:
    """``folder/name.csv`` and ``folder/name.md`` (the table also printed)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = []
        for column in columns:
            value = row.get(column)
            cells.append(f"{value:.3f}" if isinstance(value, float) else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    (folder / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def scale(args: argparse.Namespace) -> None:
    rows = []
    for n in args.sizes:
        for method in args.methods:
            generator = {"seed": args.seed, "n": n, "m": max(1, n // 100), "r": 3}
            row = measure(generator, method)
            row.update(n=n, m=generator["m"], r=3, method=method)
            rows.append(row)
            print(row, flush=True)
    write(
        args.results,
        "scale",
        rows,
        [
            "n",
            "m",
            "r",
            "method",
            "status",
            "objective",
            "generate_s",
            "method_s",
            "with_validation_s",
            "rss_after_instance_mb",
            "peak_rss_mb",
        ],
    )


HEURISTIC_CASES = [
    (
        "makespan",
        "unit",
        ["random-local", "least-loaded", "lpt", "fewest-choices", "plan-then-execute", "semi-matching"],
    ),
    ("makespan", "lognormal", ["random-local", "least-loaded", "lpt", "fewest-choices", "plan-then-execute"]),
    ("communication", "unit", ["hadoop-greedy", "delay-scheduling", "plan-then-execute", "quota-flow"]),
]


def heuristics(args: argparse.Namespace) -> None:
    rows = []
    for objective, durations, names in HEURISTIC_CASES:
        for method in names:
            generator = {
                "seed": args.seed,
                "n": args.n,
                "m": max(1, args.n // 100),
                "r": 3,
                "durations": durations,
                "objective": objective,
            }
            row = measure(generator, method)
            row.update(n=args.n, goal=objective, durations=durations, method=method)
            rows.append(row)
            print(row, flush=True)
    write(
        args.results,
        "heuristics",
        rows,
        [
            "n",
            "goal",
            "durations",
            "method",
            "status",
            "objective",
            "bound",
            "method_s",
            "with_validation_s",
            "peak_rss_mb",
        ],
    )


def exact(args: argparse.Namespace) -> None:
    """Largest heterogeneous instance proven within the time limit (sizes doubling)."""
    rows = []
    for method in args.methods:
        objective = "communication" if method == "milp-communication" else "makespan"
        n = args.start
        while n <= args.max_n:
            m = max(2, n // args.tasks_per_server)
            generator = {
                "seed": args.seed,
                "n": n,
                "m": m,
                "r": 2,
                "durations": "lognormal",
                "sigma": args.sigma,
                "objective": objective,
                "remote_cost": 1 if objective == "communication" else 0,
            }
            options = {"max_pairs": 10**9} if method == "milp-communication" else {}
            row = measure(generator, method, time_limit=args.time_limit, options=options)
            row.update(n=n, m=m, r=2, method=method)
            rows.append(row)
            print(
                {
                    k: row.get(k)
                    for k in ("method", "n", "m", "status", "objective", "bound", "trivial_bound", "method_s")
                },
                flush=True,
            )
            if row.get("status") != "OPTIMAL":
                break
            n *= 2
    write(
        args.results,
        args.output,
        rows,
        ["method", "n", "m", "r", "status", "objective", "bound", "trivial_bound", "method_s", "peak_rss_mb"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="locality benchmarks")
    parser.add_argument("--results", type=Path, default=HERE / "results", help="folder of the CSV and markdown tables")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("scale", help="optimal unit assignment, n = 10^4 ... 10^7, m = n/100, r = 3")
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--methods", nargs="+", default=["semi-matching", "unit-flow"])
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=scale)
    p = sub.add_parser("heuristics", help="every heuristic's runtime at n = 10^6")
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=heuristics)
    p = sub.add_parser("exact", help="largest heterogeneous instance proven in the time limit")
    p.add_argument("--time-limit", type=float, default=60.0)
    p.add_argument("--start", type=int, default=50)
    p.add_argument("--max-n", type=int, default=1_000_000)
    p.add_argument("--tasks-per-server", type=int, default=20)
    p.add_argument("--sigma", type=float, default=0.5)
    p.add_argument("--methods", nargs="+", default=["cpsat", "milp", "milp-communication"])
    p.add_argument("--output", default="exact")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=exact)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
