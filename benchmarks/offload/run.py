"""Benchmarks of offload: the protocol and the current tables are in README.md (this folder).

    python benchmarks/offload/run.py vgg16 --time-limit 30              # methods on one VGG16 instance
    python benchmarks/offload/run.py scaling --time-limit 60            # largest L proven optimal
    python benchmarks/offload/run.py runtime --n 1000 --time-limit 2    # heuristics on a long chain
    python benchmarks/offload/run.py gaps --time-limit 2                # heuristic gaps to solved.json
    python benchmarks/offload/run.py proofs --branch-units 1.0          # what the VGG16 proofs cost

Each writes a CSV and a Markdown table into benchmarks/offload/results/ (``proofs`` prints its table).
Every method runs through ``hpcsched.solve``: every schedule passed the independent validator.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import time
from pathlib import Path

import hpcsched
from hpcsched.core.io import read_instance
from hpcsched.core.solved import SOLVED_FILE, read_solved
from hpcsched.offload import generate_random, memory_floors, no_offload_peak
from hpcsched.offload.formulations import BRANCH_DETERMINISTIC_TIME

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
INSTANCES = ROOT / "instances" / "offload"
RESULTS = HERE / "results"
HEURISTICS = ["offload-all", "vdnn-conv", "greedy-size", "greedy-hideability", "dp", "lp-rounding", "local-search"]


def _write(name: str, header: list[str], rows: list[list]) -> None:
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{name}.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(f"{x:.4g}" if isinstance(x, float) else str(x) for x in row) + " |")
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _shipped() -> list[Path]:
    return sorted(p for p in INSTANCES.glob("*.json") if p.name != SOLVED_FILE)


def gaps(args) -> None:
    """Heuristic gaps per network and budget against solved.json (best known, proven bound)."""
    solved = read_solved(INSTANCES / SOLVED_FILE)
    methods = args.methods.split(",") if args.methods else [*HEURISTICS, "milp-fixed-order"]
    header = ["instance", "L", "best", "bound", "best gap %"] + [f"{m} %" for m in methods]
    rows = []
    for path in _shipped():
        if args.only and args.only not in path.name:
            continue
        instance = read_instance(path)
        entry = solved[path.name]
        row = [
            path.stem,
            instance.n_layers,
            entry.objective,
            entry.bound,
            round(100 * (entry.objective - entry.bound) / entry.objective, 2),
        ]
        for method in methods:
            if method == "milp-fixed-order" and instance.n_layers > args.milp_max_layers:
                row.append("skipped")  # O(L^2) binaries: PuLP model building alone takes minutes
                continue
            result = hpcsched.solve(instance, method, time_limit=args.time_limit, seed=0)
            # Gap of the method's value to the best proven lower bound, in %.
            gap = None if result.objective is None else 100 * (result.objective - entry.bound) / result.objective
            row.append("-" if gap is None else round(gap, 2))
        rows.append(row)
        print(row, flush=True)
    _write("gaps", header, rows)


def scaling(args) -> None:
    """Largest L each exact method proves optimal within the time limit (random chains)."""
    header = ["method", "L", "seed", "status", "objective", "bound", "runtime_s"]
    rows = []
    for method in args.methods.split(",") if args.methods else ["cpsat", "cpsat-plain", "brute-force"]:
        for n in [int(x) for x in args.sizes.split(",")]:
            proven = 0
            for seed in range(args.seeds):
                instance = generate_random(seed=seed, n=n, budget=1.0, max_time=200, max_activation=2000, bandwidth=5.0)
                # Budget 30 % of the way from the largest memory floor to the no-offload peak:
                # always feasible, always needs offloading.
                floor = max(need for _, need in memory_floors(instance))
                peak = no_offload_peak(instance)
                instance = instance.with_memory(floor + int(0.3 * (peak - floor)))
                result = hpcsched.solve(instance, method, time_limit=args.time_limit, seed=0)
                rows.append(
                    [method, n, seed, result.status.value, result.objective, result.bound, round(result.runtime_s, 2)]
                )
                print(rows[-1], flush=True)
                proven += result.status.value == "OPTIMAL"
            if proven < args.seeds:
                break
    _write("scaling", header, rows)


def runtime(args) -> None:
    """Runtime of every heuristic on an n-layer random chain."""
    instance = generate_random(seed=0, n=args.n, budget=0.4)
    header = ["method", "L", "status", "objective", "runtime_s"]
    rows = []
    for method in args.methods.split(",") if args.methods else HEURISTICS:
        started = time.perf_counter()
        result = hpcsched.solve(instance, method, time_limit=args.time_limit, seed=0)
        rows.append([method, args.n, result.status.value, result.objective, round(time.perf_counter() - started, 2)])
        print(rows[-1], flush=True)
    _write(f"runtime_{args.n}", header, rows)


def vgg16(args) -> None:
    """Plain CP-SAT (1 us and 1 ms), local search, the fixed-order MILP and the default cpsat on one instance."""
    instance = read_instance(INSTANCES / f"{args.instance}.json")
    header = ["method", "options", "status", "objective", "bound", "gap %", "runtime_s"]
    rows = []
    for method, options in [
        ("cpsat-plain", {"resolution": 1}),
        ("cpsat-plain", {"resolution": 1000}),
        ("local-search", {}),
        ("milp-fixed-order", {}),
        ("cpsat", {}),
    ]:
        result = hpcsched.solve(instance, method, time_limit=args.time_limit, seed=0, **options)
        gap = None if result.gap is None else round(100 * result.gap, 2)
        rows.append(
            [
                method,
                json.dumps(options),
                result.status.value,
                result.objective,
                result.bound,
                gap,
                round(result.runtime_s, 2),
            ]
        )
        print(rows[-1], flush=True)
    _write(args.instance.replace("-", "_"), header, rows)


def proofs(args) -> None:
    """What the default cpsat's proofs cost: branches and deterministic units of its offload-set search.

    ``--branch-units``: CP-SAT deterministic time per branch (the method's ``branch_node_limit``);
    ``--time-limit``: the wall clock, a safety net only (the search's verdict does not depend on it
    unless it is reached).
    """
    paths = (
        [INSTANCES / f"{name}.json" for name in args.only.split(",")]
        if args.only
        else [p for p in _shipped() if p.name.startswith("vgg16")]
    )
    print("| instance | status | makespan | bound | branches | deterministic units | search CPU s | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        instance = read_instance(path)
        started = time.perf_counter()
        result = hpcsched.solve(instance, "cpsat", time_limit=args.time_limit, branch_node_limit=args.branch_units)
        elapsed = time.perf_counter() - started
        search = next((note for note in result.notes if note.startswith("offload-set search")), "")
        branches = re.search(r"after (\d+) branches", search)
        units = re.search(r"([\d.]+) deterministic units,", search)
        cpu = re.search(r"([\d.]+) CPU s", search)
        print(
            f"| {path.stem} | {result.status.value} | {result.objective} | {result.bound} | "
            f"{branches.group(1) if branches else '-'} | {units.group(1) if units else '-'} | "
            f"{cpu.group(1) if cpu else '-'} | {elapsed:.1f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["gaps", "scaling", "runtime", "vgg16", "proofs"])
    parser.add_argument(
        "--time-limit", type=float, default=None, help="seconds per method run (default: 5; proofs: 600, a safety net)"
    )
    parser.add_argument("--methods", default="")
    parser.add_argument("--only", default="", help="gaps: substring of the file names; proofs: instance names")
    parser.add_argument("--sizes", default="4,6,8,10,12,16,20,24,32,48,64")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--milp-max-layers", type=int, default=60)
    parser.add_argument("--instance", default="vgg16-pcie3-70", help="vgg16: a shipped instance name")
    parser.add_argument("--branch-units", type=float, default=BRANCH_DETERMINISTIC_TIME)
    args = parser.parse_args()
    if args.time_limit is None:
        args.time_limit = 600.0 if args.what == "proofs" else 5.0
    {"gaps": gaps, "scaling": scaling, "runtime": runtime, "vgg16": vgg16, "proofs": proofs}[args.what](args)


if __name__ == "__main__":
    main()
