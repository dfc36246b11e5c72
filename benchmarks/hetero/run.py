"""hetero benchmarks: heuristic gaps on the real Chameleon graphs, HeteroPrio on its trap family, speed.

Usage::

    .venv/bin/python benchmarks/hetero/run.py gaps  [--min-tasks 0] [--max-tasks 700] [--cpsat-limit 20]
        [--platforms 10x4 8x2] [--merge] [--output gaps.csv]
    .venv/bin/python benchmarks/hetero/run.py trap
    .venv/bin/python benchmarks/hetero/run.py dnn
    .venv/bin/python benchmarks/hetero/run.py speed [--n 100000] [--time-limit 600] [--reference-minmin]

``gaps``: every hetero_swf graph with at most ``--max-tasks`` tasks, on each
platform: every heuristic's makespan, its gap to bounds.best ((value -
bound) / value) and to the CP-SAT optimum where CP-SAT proves one within
``--cpsat-limit`` seconds (CP-SAT is skipped above ``--cpsat-max-tasks``).
Writes results/gaps.csv (or ``--output``) and prints a summary table; ``--merge`` keeps the
rows of the existing file outside ``[--min-tasks, --max-tasks]``. The 31
graphs above 1,500 tasks (heuristics and bounds only, each heuristic bounded
by ``--heuristic-limit`` seconds)::

    .venv/bin/python benchmarks/hetero/run.py gaps --min-tasks 1501 --max-tasks 100000 --cpsat-max-tasks 0 \
        --platforms 10x4 --heuristic-limit 60 --output gaps-large.csv

and CP-SAT at 60 s on a few of them (``--graphs`` picks them by file stem)::

    .venv/bin/python benchmarks/hetero/run.py gaps --min-tasks 1501 --max-tasks 100000 --cpsat-max-tasks 100000 \
        --cpsat-limit 60 --platforms 10x4 --graphs forkJoin-5-300 spotrf-960-20 sposv-960-20 \
        --output gaps-large-cpsat.csv
``trap``: HeteroPrio (three spoliation rules) on `generate_heteroprio_trap`
for several (m, k); the true ratio HP / OPT lies between HP / best known
(best of HEFT-insertion and HLP rounding) and HP / bounds.best, printed
next to 1 + max(m/k, k/m) and 2 + max(m/k, k/m).
``dnn``: the dnn_partitioning latency graphs (uniform acceleration, with
communication), gap of each heuristic to bounds.best.
``speed``: HEFT (both variants), HeteroPrio (with and without spoliation) and
MinMin, one after the other in one run, on the same random layered graph of
``--n`` tasks (each bounded by ``--time-limit`` seconds). ``--reference-minmin``
then times, in the same run, the MinMin before the heaps per class
(tests/hetero/reference_minmin.py) against ``minmin_placements`` (placements only,
no validator) and checks that they place every task identically.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

from hpcsched.core.registry import run_method
from hpcsched.hetero import bounds, generate_heteroprio_trap, generate_layered, import_swf
from hpcsched.hetero.heuristics import minmin_placements

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"
HEURISTICS = ("heft", "heft-insertion", "heteroprio", "heteroprio-nospol", "hlp-rounding", "minmin", "all-cpu")


def data_folder() -> Path | None:
    folder = (
        Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data")) / "hetero_swf" / "formatedTasks_2"
    )
    return folder if folder.is_dir() else None


def gaps(args) -> None:
    folder = data_folder()
    if folder is None:
        sys.exit("hetero_swf not found (set HPCSCHED_SHARED_DATA)")
    RESULTS.mkdir(exist_ok=True)
    rows = []
    output = RESULTS / args.output
    if args.merge and output.exists():
        # keep the rows of an earlier run (other size range); rows measured now replace theirs
        rows = read_rows(output)
    for path in sorted(folder.glob("*/*.txt")):
        if args.graphs and path.stem not in args.graphs:
            continue
        for platform in args.platforms:
            cpus, gpus = (int(x) for x in platform.split("x"))
            instance = import_swf(path, cpus=cpus, gpus=gpus)
            if not args.min_tasks <= instance.n <= args.max_tasks:
                continue
            rows = [r for r in rows if (r["graph"], r["m"], r["k"]) != (path.stem, cpus, gpus)]
            lower = bounds.best(instance)
            row = {"graph": path.stem, "n": instance.n, "m": cpus, "k": gpus, "bound": lower}
            for method in HEURISTICS:
                result = run_method(instance, method, time_limit=args.heuristic_limit)
                row[method] = result.objective if result.status.has_solution else None
                row[f"{method}_s"] = round(result.runtime_s, 3)
            if instance.n <= args.cpsat_max_tasks:
                result = run_method(instance, "cpsat", time_limit=args.cpsat_limit)
                row["cpsat"] = result.objective
                row["cpsat_status"] = result.status.value
                row["cpsat_bound"] = result.bound
                row["bound"] = max(lower, result.bound or 0)
            rows.append(row)
            print(row, flush=True)
    fields = sorted({key for row in rows for key in row}, key=lambda k: (k not in ("graph", "n", "m", "k", "bound"), k))
    with open(output, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    summarize(rows)


def read_rows(path: Path) -> list[dict]:
    """The rows of a gaps.csv, numbers as numbers and empty cells dropped."""
    rows = []
    with open(path, newline="") as handle:
        for raw in csv.DictReader(handle):
            row = {}
            for key, text in raw.items():
                if text in ("", None):
                    continue
                if key in ("graph", "cpsat_status"):
                    row[key] = text
                else:
                    number = float(text)
                    row[key] = int(number) if number.is_integer() and not key.endswith("_s") else number
            rows.append(row)
    return rows


def summarize(rows) -> None:
    print("\n| platform | method | graphs | mean gap to bound | max gap to bound | mean gap to optimum (proven) |")
    print("|---|---|---|---|---|---|")
    for platform in sorted({(r["m"], r["k"]) for r in rows}, reverse=True):
        subset = [r for r in rows if (r["m"], r["k"]) == platform]
        proven = [r for r in subset if r.get("cpsat_status") == "OPTIMAL"]
        for method in (*HEURISTICS, "cpsat"):
            values = [r for r in subset if r.get(method) is not None]
            if not values:
                continue
            to_bound = [(r[method] - r["bound"]) / r[method] for r in values]
            to_optimum = [(r[method] - r["cpsat"]) / r[method] for r in proven if r.get(method) is not None]
            optimum_text = f"{100 * statistics.mean(to_optimum):.1f} % ({len(to_optimum)})" if to_optimum else "-"
            print(
                f"| m={platform[0]}, k={platform[1]} | {method} | {len(values)} | "
                f"{100 * statistics.mean(to_bound):.1f} % | {100 * max(to_bound):.1f} % | {optimum_text} |"
            )
        print(
            f"| m={platform[0]}, k={platform[1]} | proven optimal by CP-SAT | {len(proven)} of "
            f"{sum(1 for r in subset if 'cpsat' in r)} | | | |"
        )


def trap(args) -> None:
    print(
        "| m | k | acceleration | n | bound | best known | HP earliest-finish | HP latest-end | HP no spoliation | "
        "HP / best known (<= true ratio) | HP / bound (>= true ratio) | 1 + max(m/k, k/m) | 2 + max(m/k, k/m) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cpus, gpus in ((1, 1), (2, 1), (4, 1), (1, 2), (1, 4), (4, 2), (8, 2), (10, 4)):
        for acceleration in (2, 4, 16):
            instance = generate_heteroprio_trap(chain=args.chain, acceleration=acceleration, cpus=cpus, gpus=gpus)
            lower = bounds.best(instance)
            runs = [run_method(instance, method, time_limit=120) for method in ("heft-insertion", "hlp-rounding")]
            best = min(r.objective for r in runs if r.objective is not None)
            values = [
                run_method(instance, "heteroprio", time_limit=60, spoliation=rule).objective
                for rule in ("earliest-finish", "latest-end", "none")
            ]
            worst = max(values[:2])
            extra = max(cpus / gpus, gpus / cpus)
            print(
                f"| {cpus} | {gpus} | {acceleration} | {instance.n} | {lower} | {best:g} | {values[0]:g} | "
                f"{values[1]:g} | {values[2]:g} | {worst / best:.3f} | {worst / lower:.3f} | {1 + extra:.2f} | "
                f"{2 + extra:.2f} |",
                flush=True,
            )


def dnn(args) -> None:
    folder = data_folder()
    if folder is None:
        sys.exit("shared data not found (set HPCSCHED_SHARED_DATA)")
    from hpcsched.hetero import import_dnn

    methods = ("heft", "heft-insertion", "heteroprio", "heteroprio-nospol", "hlp-rounding")
    print("| graph | n | m | k | bound | " + " | ".join(methods) + " |")
    print("|---|---|---|---|---|" + "---|" * len(methods))
    for path in sorted((folder.parents[1] / "dnn_partitioning" / "latency-inputs").glob("*/*.json")):
        instance = import_dnn(path)
        lower = bounds.best(instance)
        values = [run_method(instance, method, time_limit=120).objective for method in methods]
        gaps = [f"{100 * (v - lower) / v:.1f} %" for v in values]
        print(
            f"| {path.parent.name}/{path.stem} | {instance.n} | {instance.cpus} | {instance.gpus} | {lower} | "
            + " | ".join(gaps)
            + " |",
            flush=True,
        )


def speed(args) -> None:
    started = time.perf_counter()
    instance = generate_layered(seed=0, n=args.n, layers=args.n // 100, edge_probability=0.03, cpus=10, gpus=4)
    print(f"generated n = {instance.n}, {len(instance.edges)} edges in {time.perf_counter() - started:.1f} s")
    print("| method | n | edges | time | makespan | status |")
    print("|---|---|---|---|---|---|")
    for method in ("heft", "heft-insertion", "heteroprio", "heteroprio-nospol", "minmin"):
        result = run_method(instance, method, time_limit=args.time_limit)
        makespan = "-" if result.objective is None else f"{result.objective:,.0f}"
        print(
            f"| {method} | {instance.n} | {len(instance.edges)} | {result.runtime_s:.1f} s | {makespan} | "
            f"{result.status} |",
            flush=True,
        )
    if args.reference_minmin:
        compare_minmin(instance)


def compare_minmin(instance) -> None:
    """Old (tests/hetero/reference_minmin.py) against new MinMin on one instance, side by side."""
    spec = importlib.util.spec_from_file_location("reference_minmin", ROOT / "tests" / "hetero" / "reference_minmin.py")
    assert spec is not None and spec.loader is not None
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    timed = {}
    for name, function in (("minmin (heaps)", minmin_placements), ("reference", reference.reference_minmin_placements)):
        started = time.perf_counter()
        timed[name] = (function(instance), time.perf_counter() - started)
    (new, new_s), (old, old_s) = timed.values()
    print(
        f"| MinMin placements, n = {instance.n} | reference {old_s:.1f} s | heaps {new_s:.2f} s | "
        f"identical: {new == old} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = parser.add_subparsers(dest="part", required=True)
    gap_parser = parts.add_parser("gaps")
    gap_parser.add_argument("--min-tasks", type=int, default=0)
    gap_parser.add_argument("--max-tasks", type=int, default=700)
    gap_parser.add_argument("--merge", action="store_true", help="keep the rows of results/gaps.csv not re-measured")
    gap_parser.add_argument("--cpsat-max-tasks", type=int, default=700)
    gap_parser.add_argument("--cpsat-limit", type=float, default=20.0)
    gap_parser.add_argument("--heuristic-limit", type=float, default=60.0)
    gap_parser.add_argument("--platforms", nargs="+", default=["10x4", "8x2"])
    gap_parser.add_argument("--output", default="gaps.csv", help="file under results/")
    gap_parser.add_argument("--graphs", nargs="+", help="only these graphs (file stems, e.g. spotrf-960-20)")
    trap_parser = parts.add_parser("trap")
    trap_parser.add_argument("--chain", type=int, default=20)
    parts.add_parser("dnn")
    speed_parser = parts.add_parser("speed")
    speed_parser.add_argument("--n", type=int, default=100_000)
    speed_parser.add_argument("--time-limit", type=float, default=600.0, help="per method, seconds")
    speed_parser.add_argument(
        "--reference-minmin", action="store_true", help="also time the MinMin of tests/hetero/reference_minmin.py"
    )
    args = parser.parse_args()
    {"gaps": gaps, "trap": trap, "dnn": dnn, "speed": speed}[args.part](args)


if __name__ == "__main__":
    main()
