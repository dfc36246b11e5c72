"""partition benchmarks: ParDNN-style speed at 10^4 and 10^5 nodes, heuristic gaps on the real graphs, spec claims.

Usage::

    .venv/bin/python benchmarks/partition/run.py speed  [--sizes 10001 100001] [--gpus 4]
    .venv/bin/python benchmarks/partition/run.py gaps   [--gpus 2 4 8] [--fractions 1.0 0.15] [--cpsat-limit 0]
                                                        [--cpsat-max-nodes 400] [--max-nodes 2100]
                                                        [--cpsat-min-nodes 0 --cpsat-reuse CSV]
                                                        [--cpsat-max-size 1000000] [--output gaps.csv]
    .venv/bin/python benchmarks/partition/run.py claims [--cpsat-limit 60]

``speed``: `generate_training` graphs (forward/backward, colocated pairs,
M = 1.3 x Σ(w + s) / K), each heuristic's wall time and makespan next to
bounds.best (ParDNN reports 18-117 s on 10^4 - 2·10^5-node graphs).
``gaps``: every graph of ../shared/data/dnn_partitioning on each K and
memory cap (a fraction of the file's maxSizePerFPGA): every heuristic's
makespan and its gap (value - bound) / value to bounds.best, or, where
CP-SAT runs (``--cpsat-limit`` > 0, graphs of at most
``--cpsat-max-nodes``), to the better of its bound and bounds.best, and to
its optimum when proven. Below ``--cpsat-min-nodes`` CP-SAT is not run:
its status, value and bound are copied from the earlier CSV
``--cpsat-reuse`` (so a longer run extends an earlier one without
recomputing it; the heuristics are always run). CP-SAT is skipped, with the
reason in the row, when n K + |E| K exceeds ``--cpsat-max-size`` (memory:
see `cpsat_model_size`). Writes results/<--output> (default gaps.csv) and
prints the table.
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
from typing import Any

from hpcsched.core.errors import InfeasibleError
from hpcsched.core.registry import run_method
from hpcsched.partition import bounds, generate_training, import_dnn

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"
HEURISTICS = ("pardnn", "heft", "etf", "kl-partition", "metis", "round-robin", "one-gpu")


def data_folder() -> Path | None:
    folder = Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data")) / "dnn_partitioning"
    return folder if folder.is_dir() else None


def method_options(label: str) -> tuple[str, dict[str, Any]]:
    """``"pardnn:path_swaps=false"`` -> ``("pardnn", {"path_swaps": False})`` (values read as JSON, else strings)."""
    method, _, rest = label.partition(":")
    options: dict[str, Any] = {}
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


CPSAT_COLUMNS = ("cpsat", "cpsat_status", "cpsat_bound", "cpsat_s", "cpsat_note", "cpsat_source")


def cpsat_model_size(instance) -> int:
    """n K + |E| K: the (node, GPU) and (edge, GPU) pairs, each a literal or a few rows of the CP-SAT model.

    Peak memory of a 10 s `cpsat` run grew by 131 MB at size 9526 and by 201 MB at 38104 (bert_L-12_training,
    K = 2 and 8; about 100 MB fixed + 2.4 KB per unit), so ``--cpsat-max-size`` 10^6 keeps a run near 2.5 GB.
    """
    return instance.n * instance.gpus + len(instance.edges) * instance.gpus


def earlier_cpsat_rows(path: str | None) -> dict[tuple[str, int, int, float], dict[str, str]]:
    """CP-SAT columns of an earlier gaps CSV, by (graph, n, K, memory fraction); empty without a file.

    The node count is in the key because a layer graph and an operator graph can share a name
    (resnet50_inference: 177 and 604 nodes).
    """
    if not path:
        return {}
    with open(path, newline="") as handle:
        return {
            (row["graph"], int(row["n"]), int(row["K"]), float(row["memory_fraction"])): row
            for row in csv.DictReader(handle)
            if row.get("cpsat_status")
        }


def number(text: str | None) -> float | None:
    """A CSV cell as a number (None when empty)."""
    return float(text) if text not in (None, "") else None


def cpsat_columns(instance, row: dict, args, earlier: dict) -> None:
    """CP-SAT's status, value, bound and seconds for ``row``: run here when the instance is in the node range and
    below the size threshold, else copied from the earlier CSV when it has the configuration."""
    key = (row["graph"], instance.n, row["K"], row["memory_fraction"])
    size = cpsat_model_size(instance)
    row["cpsat_size"] = size
    if args.cpsat_limit <= 0 or instance.n > args.cpsat_max_nodes:
        return
    if instance.n < args.cpsat_min_nodes:
        if key in earlier:
            old = earlier[key]
            row.update(
                cpsat=number(old["cpsat"]),
                cpsat_status=old["cpsat_status"],
                cpsat_bound=number(old["cpsat_bound"]),
                cpsat_source=args.cpsat_reuse,
            )
        return
    if size > args.cpsat_max_size:
        row.update(cpsat_status="SKIPPED", cpsat_note=f"model size {size} > --cpsat-max-size {args.cpsat_max_size}")
        return
    exact = run_method(instance, "cpsat", time_limit=args.cpsat_limit)
    row.update(
        cpsat=exact.objective,
        cpsat_status=exact.status.value,
        cpsat_bound=exact.bound,
        cpsat_s=round(exact.runtime_s, 2),
        cpsat_note="; ".join(exact.notes),
        cpsat_source="this run",
    )


def heuristic_columns(instance, row: dict, args) -> None:
    """Every heuristic's makespan, seconds, gap to the row's bound and, where CP-SAT proved it, to the optimum."""
    optimum = row["optimum"]
    for method in HEURISTICS:
        result = run_method(instance, method, time_limit=args.heuristic_limit)
        value = result.objective
        row[method] = value
        row[f"{method}_s"] = round(result.runtime_s, 4)
        row[f"{method}_gap"] = (value - row["bound"]) / value if value else None
        row[f"{method}_gap_opt"] = (value - optimum) / value if value and optimum is not None else None
        if value is not None and value < row["bound"]:
            print(f"CONTRADICTION: {row['graph']} K={row['K']} {method} {value} below the bound {row['bound']}")


def gap_row(path: Path, gpus: int, fraction: float, args, earlier: dict) -> dict | None:
    """One configuration's row (None when it has more than ``--max-nodes`` nodes)."""
    instance = import_dnn(path, gpus=gpus, memory_fraction=fraction)
    if instance.n > args.max_nodes:
        return None
    row: dict = {
        "graph": f"{path.parent.parent.name.split('-')[0]}/{path.stem}",
        "n": instance.n,
        "K": gpus,
        "memory_fraction": fraction,
    }
    try:
        bounds.require_feasible(instance)
    except InfeasibleError as error:
        row.update(status="INFEASIBLE", note=str(error))
        return row
    row["bounds_best"] = lower = bounds.best(instance)
    cpsat_columns(instance, row, args, earlier)
    optimum = None
    if row.get("cpsat_bound") is not None:
        lower = max(lower, row["cpsat_bound"])
    if row.get("cpsat_status") == "OPTIMAL":
        optimum = row["cpsat"]
    row.update(bound=lower, optimum=optimum)
    heuristic_columns(instance, row, args)
    return row


def gaps(args) -> None:
    folder = data_folder()
    if folder is None:
        sys.exit("dnn_partitioning not found (set HPCSCHED_SHARED_DATA)")
    RESULTS.mkdir(exist_ok=True)
    earlier = earlier_cpsat_rows(args.cpsat_reuse)
    rows = []
    for path in sorted(folder.glob("*-inputs/*/*.json")):
        for gpus in args.gpus:
            for fraction in args.fractions:
                row = gap_row(path, gpus, fraction, args, earlier)
                if row is None:
                    continue
                rows.append(row)
                if row.get("status") != "INFEASIBLE":
                    print(
                        row["graph"],
                        row["n"],
                        gpus,
                        fraction,
                        {k: row.get(k) for k in ("cpsat_status", "cpsat", "cpsat_bound", "bounds_best", "cpsat_s")},
                        flush=True,
                    )
    keys = sorted(
        {key for row in rows for key in row}, key=lambda k: (k not in ("graph", "n", "K", "memory_fraction"), k)
    )
    with open(RESULTS / args.output, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    summarize(rows, args.cpsat_min_nodes)


def summarize(rows: list[dict], cpsat_min_nodes: int) -> None:
    """Print the gap table (to the best bound and to the optimum where proven) and CP-SAT's status counts."""
    solved = [row for row in rows if row.get("status") != "INFEASIBLE"]
    proven = [row for row in solved if row.get("optimum") is not None]
    print(f"\n{len(rows)} configurations, {len(rows) - len(solved)} proven infeasible by bounds.require_feasible")
    for label, part in (
        ("all", solved),
        (f">= {cpsat_min_nodes} nodes", [r for r in solved if r["n"] >= cpsat_min_nodes]),
    ):
        statuses = [str(row.get("cpsat_status")) for row in part]
        counts = ", ".join(f"{status} {statuses.count(status)}" for status in sorted(set(statuses)))
        print(f"CP-SAT on {label}: {len(part)} configurations, {counts}")
    print(
        f"\n| method | schedules found | mean gap to best bound | median | worst | best of the {len(HEURISTICS)} on "
        f"| mean gap to optimum ({len(proven)} proven) | median | worst |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for method in HEURISTICS:
        print(summary_line(method, solved, proven))


def spread(values: list[float]) -> str:
    """``mean | median | worst`` as percentages (empty cells without values)."""
    if not values:
        return " | | "
    return f"{statistics.mean(values):.1%} | {statistics.median(values):.1%} | {max(values):.1%}"


def summary_line(method: str, solved: list[dict], proven: list[dict]) -> str:
    """One method's row of the gap table."""
    found = [row[f"{method}_gap"] for row in solved if row.get(f"{method}_gap") is not None]
    to_optimum = [row[f"{method}_gap_opt"] for row in proven if row.get(f"{method}_gap_opt") is not None]
    wins = sum(
        1
        for row in solved
        if row.get(method) is not None and row[method] == min(row[m] for m in HEURISTICS if row.get(m) is not None)
    )
    return (
        f"| {method} | {len(found)}/{len(solved)} | {spread(found)} | {wins} | "
        f"{spread(to_optimum)} ({len(to_optimum)} found) |"
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
    gaps_parser.add_argument(
        "--cpsat-min-nodes", type=int, default=0, help="below this, CP-SAT's columns come from --cpsat-reuse"
    )
    gaps_parser.add_argument("--cpsat-reuse", default=None, help="an earlier gaps CSV whose CP-SAT columns are kept")
    gaps_parser.add_argument("--cpsat-max-size", type=int, default=1_000_000, help="skip CP-SAT above n K + |E| K")
    gaps_parser.add_argument("--output", default="gaps.csv", help="file name under results/")
    gaps_parser.add_argument("--max-nodes", type=int, default=2100)
    gaps_parser.add_argument("--heuristic-limit", type=float, default=120.0)
    claims_parser = commands.add_parser("claims")
    claims_parser.add_argument("--cpsat-limit", type=float, default=60.0)
    args = parser.parse_args()
    {"speed": speed, "gaps": gaps, "claims": claims}[args.command](args)


if __name__ == "__main__":
    main()
