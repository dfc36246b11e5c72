"""Benchmarks of offload (see README.md in this folder for the protocol and results).

    PYTHONPATH=src python benchmarks/offload/run.py gaps --time-limit 5
    PYTHONPATH=src python benchmarks/offload/run.py scaling --time-limit 60
    PYTHONPATH=src python benchmarks/offload/run.py runtime --n 1000
    PYTHONPATH=src python benchmarks/offload/run.py target --time-limit 30

Each writes a CSV and a markdown table into benchmarks/offload/results/.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.offload import generate_random, import_pipedream, memory_floors, no_offload_peak

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


def gaps(args) -> None:
    """Heuristic gaps per network and budget against solved.json (best known, proven bound)."""
    solved = json.loads((INSTANCES / "solved.json").read_text())
    methods = args.methods.split(",") if args.methods else HEURISTICS + ["milp-fixed-order"]
    header = ["instance", "L", "best", "bound", "best gap %"] + [f"{m} %" for m in methods]
    rows = []
    for path in sorted(INSTANCES.glob("*.json")):
        if path.name == "solved.json" or (args.only and args.only not in path.name):
            continue
        instance = read_instance(path)
        entry = solved[path.name]
        row = [path.stem, instance.n_layers, entry["objective"], entry["bound"],
               round(100 * (entry["objective"] - entry["bound"]) / entry["objective"], 2)]
        for method in methods:
            if method == "milp-fixed-order" and instance.n_layers > args.milp_max_layers:
                row.append("skipped")  # O(L^2) binaries: PuLP model building alone takes minutes
                continue
            result = run_method(instance, method, time_limit=args.time_limit, seed=0)
            # Gap of the method's value to the best proven lower bound, in %.
            row.append("-" if result.objective is None else round(100 * (result.objective - entry["bound"]) / result.objective, 2))
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
                result = run_method(instance, method, time_limit=args.time_limit, seed=0)
                rows.append([method, n, seed, result.status.value, result.objective, result.bound, round(result.runtime_s, 2)])
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
        result = run_method(instance, method, time_limit=args.time_limit, seed=0)
        rows.append([method, args.n, result.status.value, result.objective, round(time.perf_counter() - started, 2)])
        print(rows[-1], flush=True)
    _write(f"runtime_{args.n}", header, rows)


def target(args) -> None:
    """The issue's target: VGG16, PCIe 3, 60 % budget: plain CP-SAT vs the warm-started method."""
    data = Path(args.data) / "pipedream" / "vgg16.graph.txt"
    instance = import_pipedream(data, budget=0.6, link="pcie3") if data.exists() else read_instance(INSTANCES / "vgg16-pcie3-60.json")
    header = ["method", "options", "status", "objective", "bound", "gap %", "runtime_s"]
    rows = []
    for method, options in [("cpsat-plain", {"resolution": 1}), ("cpsat-plain", {"resolution": 1000}),
                            ("local-search", {}), ("milp-fixed-order", {}), ("cpsat", {})]:
        result = run_method(instance, method, time_limit=args.time_limit, seed=0, **options)
        gap = None if result.gap is None else round(100 * result.gap, 2)
        rows.append([method, json.dumps(options), result.status.value, result.objective, result.bound, gap,
                     round(result.runtime_s, 2)])
        print(rows[-1], flush=True)
    _write("target_vgg16_pcie3_60", header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["gaps", "scaling", "runtime", "target"])
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--methods", default="")
    parser.add_argument("--only", default="")
    parser.add_argument("--sizes", default="4,6,8,10,12,16,20,24,32,48,64")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--milp-max-layers", type=int, default=60)
    parser.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    args = parser.parse_args()
    {"gaps": gaps, "scaling": scaling, "runtime": runtime, "target": target}[args.what](args)


if __name__ == "__main__":
    main()
