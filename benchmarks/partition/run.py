"""partition benchmarks: ParDNN-style speed at 10^4 and 10^5 nodes, heuristic gaps on the real graphs, spec claims.

Usage::

    .venv/bin/python benchmarks/partition/run.py speed  [--sizes 10001 100001] [--gpus 4]
    .venv/bin/python benchmarks/partition/run.py gaps   [--gpus 2 4 8] [--fractions 1.0 0.15] [--cpsat-limit 0]
                                                        [--cpsat-max-nodes 400] [--max-nodes 2100]
    .venv/bin/python benchmarks/partition/run.py claims [--cpsat-limit 60]

``speed``: `generate_training` graphs (forward/backward, colocated pairs,
M = 1.3 x Σ(w + s) / K), each heuristic's wall time and makespan next to
bounds.best (ParDNN reports 18-117 s on 10^4 - 2·10^5-node graphs).
``gaps``: every graph of ../shared/data/dnn_partitioning on each K and
memory cap (a fraction of the file's maxSizePerFPGA): every heuristic's
makespan and its gap (value - bound) / value to bounds.best, or, where
CP-SAT runs (``--cpsat-limit`` > 0, graphs of at most
``--cpsat-max-nodes``), to the better of its bound and bounds.best, and to
its optimum when proven. Writes results/gaps.csv and prints a summary.
``claims``: bert24_training (K = 2, 15 % of 17.2 GB) and
resnet50_training (K = 4, full memory) with CP-SAT.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from pathlib import Path

from hpcsched.core.errors import InfeasibleError
from hpcsched.core.registry import run_method
from hpcsched.partition import bounds, generate_training, import_dnn

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"
HEURISTICS = ("pardnn", "heft", "etf", "kl-partition", "metis", "round-robin", "one-gpu")


def data_folder() -> Path | None:
    folder = Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data")) / "dnn_partitioning"
    return folder if folder.is_dir() else None


def method_options(label: str) -> tuple[str, dict[str, object]]:
    """``"pardnn:path_swaps=false"`` -> ``("pardnn", {"path_swaps": False})`` (values read as JSON, else strings)."""
    method, _, rest = label.partition(":")
    options: dict[str, object] = {}
    for item in filter(None, rest.split(",")):
        key, _, text = item.partition("=")
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    return method, options


def speed(args) -> None:
    print("| nodes | edges | method | seconds | makespan | bounds.best | gap to bound |")
    print("|---|---|---|---|---|---|---|")
    for size in args.sizes:
        instance = generate_training(seed=1, nodes=size, gpus=args.gpus)
        lower = bounds.best(instance)
        for label in args.methods:
            method, options = method_options(label)
            started = time.perf_counter()
            result = run_method(instance, method, time_limit=600, **options)
            elapsed = time.perf_counter() - started  # includes the registry's validation
            gap = (result.objective - lower) / result.objective if result.objective else None
            print(
                f"| {instance.n} | {len(instance.edges)} | {label} | {elapsed:.1f} | "
                f"{result.objective:.0f} | {lower} | {gap:.1%} |"
                if gap is not None
                else f"| {instance.n} | | {label} | {elapsed:.1f} | {result.status} | | |",
                flush=True,
            )


def gaps(args) -> None:
    folder = data_folder()
    if folder is None:
        sys.exit("dnn_partitioning not found (set HPCSCHED_SHARED_DATA)")
    RESULTS.mkdir(exist_ok=True)
    rows = []
    for path in sorted(folder.glob("*-inputs/*/*.json")):
        for gpus in args.gpus:
            for fraction in args.fractions:
                instance = import_dnn(path, gpus=gpus, memory_fraction=fraction)
                if instance.n > args.max_nodes:
                    continue
                row = {
                    "graph": f"{path.parent.parent.name.split('-')[0]}/{path.stem}",
                    "n": instance.n,
                    "K": gpus,
                    "memory_fraction": fraction,
                }
                try:
                    bounds.require_feasible(instance)
                except InfeasibleError as error:
                    row.update(status="INFEASIBLE", note=str(error))
                    rows.append(row)
                    continue
                lower = bounds.best(instance)
                optimum = None
                if args.cpsat_limit > 0 and instance.n <= args.cpsat_max_nodes:
                    exact = run_method(instance, "cpsat", time_limit=args.cpsat_limit)
                    row.update(cpsat=exact.objective, cpsat_status=exact.status.value, cpsat_bound=exact.bound)
                    if exact.bound is not None:
                        lower = max(lower, exact.bound)
                    if exact.status.value == "OPTIMAL":
                        optimum = exact.objective
                row.update(bound=lower, optimum=optimum)
                for method in HEURISTICS:
                    result = run_method(instance, method, time_limit=args.heuristic_limit)
                    value = result.objective
                    row[method] = value
                    row[f"{method}_s"] = round(result.runtime_s, 4)
                    row[f"{method}_gap"] = (value - lower) / value if value else None
                rows.append(row)
                print(row["graph"], gpus, fraction, {m: row.get(f"{m}_gap") for m in HEURISTICS}, flush=True)
    keys = sorted(
        {key for row in rows for key in row}, key=lambda k: (k not in ("graph", "n", "K", "memory_fraction"), k)
    )
    with open(RESULTS / "gaps.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    solved = [row for row in rows if row.get("status") != "INFEASIBLE"]
    print(f"\n{len(rows)} configurations, {len(rows) - len(solved)} proven infeasible by bounds.require_feasible\n")
    print("| method | schedules found | mean gap to best bound | median | worst | best on |")
    print("|---|---|---|---|---|---|")
    for method in HEURISTICS:
        found = [row[f"{method}_gap"] for row in solved if row.get(f"{method}_gap") is not None]
        wins = sum(
            1
            for row in solved
            if row.get(method) is not None and row[method] == min(row[m] for m in HEURISTICS if row.get(m) is not None)
        )
        if found:
            print(
                f"| {method} | {len(found)}/{len(solved)} | {statistics.mean(found):.1%} | "
                f"{statistics.median(found):.1%} | {max(found):.1%} | {wins} |"
            )


def claims(args) -> None:
    folder = data_folder()
    if folder is None:
        sys.exit("dnn_partitioning not found (set HPCSCHED_SHARED_DATA)")
    cases = [("bert24_training", 2, 0.15), ("resnet50_training", 4, 1.0)]
    for stem, gpus, fraction in cases:
        instance = import_dnn(
            folder / "throughput-inputs" / "LayerGraphs" / f"{stem}.json", gpus=gpus, memory_fraction=fraction
        )
        exact = run_method(instance, "cpsat", time_limit=args.cpsat_limit)
        heft = run_method(instance, "heft", time_limit=60)
        print(
            f"{stem} K={gpus} memory {fraction:.0%}: CP-SAT {exact.status} {exact.objective} bound {exact.bound} "
            f"in {exact.runtime_s:.0f} s ({'; '.join(exact.notes)}); HEFT {heft.objective}; "
            f"bounds.best {bounds.best(instance)}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    speed_parser = commands.add_parser("speed")
    speed_parser.add_argument("--sizes", type=int, nargs="+", default=[10001, 100001])
    speed_parser.add_argument("--gpus", type=int, default=4)
    speed_parser.add_argument(
        "--methods",
        nargs="+",
        default=["pardnn", "pardnn:path_swaps=false", "heft", "round-robin"],
        help="method[:option=value,...]",
    )
    gaps_parser = commands.add_parser("gaps")
    gaps_parser.add_argument("--gpus", type=int, nargs="+", default=[2, 4, 8])
    gaps_parser.add_argument("--fractions", type=float, nargs="+", default=[1.0, 0.15])
    gaps_parser.add_argument("--cpsat-limit", type=float, default=0.0)
    gaps_parser.add_argument("--cpsat-max-nodes", type=int, default=400)
    gaps_parser.add_argument("--max-nodes", type=int, default=2100)
    gaps_parser.add_argument("--heuristic-limit", type=float, default=120.0)
    claims_parser = commands.add_parser("claims")
    claims_parser.add_argument("--cpsat-limit", type=float, default=60.0)
    args = parser.parse_args()
    {"speed": speed, "gaps": gaps, "claims": claims}[args.command](args)


if __name__ == "__main__":
    main()
