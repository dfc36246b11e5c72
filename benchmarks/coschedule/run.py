"""coschedule benchmarks: LP scaling, exact non-preemptive reach, heuristic gaps.

    .venv/bin/python benchmarks/coschedule/run.py lp      [--sizes 100,200,500,1000,2000]
    .venv/bin/python benchmarks/coschedule/run.py exact   [--sizes 4,6,8,10,12] [--time-limit 60]
    .venv/bin/python benchmarks/coschedule/run.py gaps    [--time-limit 1]

Each writes ``results/<name>.csv`` and ``results/<name>.md`` next to this file.
Every method is called through ``hpcsched.solve`` (so every schedule is validated).
"""

from __future__ import annotations

import argparse
import csv
import platform
import time
from pathlib import Path

from hpcsched import read_instance, solve
from hpcsched.coschedule import generate_sm_model, generate_uniform
from hpcsched.coschedule.bounds import bound_reference, solve_preemptive_lp

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
INSTANCES = HERE.parents[1] / "instances" / "coschedule"
HEURISTICS = [
    "serial",
    "fifo",
    "spt",
    "lpt",
    "greedy-partner",
    "matching-paired",
    "matching-list",
    "lp-merge",
    "local-search",
]


def write(name: str, rows: list[dict], title: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{name}.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    keys = list(rows[0])
    lines = [
        f"### {title}",
        "",
        f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}",
        "",
    ]
    lines.append("| " + " | ".join(keys) + " |")
    lines.append("|" + "---|" * len(keys))
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def bench_lp(sizes: list[int]) -> None:
    rows = []
    for n in sizes:
        for family, build in (
            ("sm-model (all pairs)", lambda n: generate_sm_model(n=n, seed=1)),
            ("uniform, density 20/n", lambda n: generate_uniform(n=n, seed=1, density=min(1.0, 20 / n), r_min=0.3)),
        ):
            instance = build(n)
            started = time.perf_counter()
            solved = solve_preemptive_lp(instance)
            lp_time = time.perf_counter() - started
            result = solve(instance, "lp-preemptive")
            rows.append(
                {
                    "family": family,
                    "n": n,
                    "pairs": len(instance.pairs),
                    "lp_solve_s": round(lp_time, 3),
                    "lp_preemptive_total_s": round(result.runtime_s, 3),
                    "status": result.status.value,
                    "preempted_pct": round(100 * result.kpis["preempted_fraction"], 2),
                    "co_run_phases": len(solved.pairs),
                }
            )
            print(rows[-1], flush=True)
    write(
        "lp_scaling",
        rows,
        "Preemptive LP solve time (scipy linprog HiGHS, 1 thread) and lp-preemptive total "
        "(LP + phase order + validation)",
    )


def bench_exact(sizes: list[int], time_limit: float) -> None:
    rows = []
    failed = {"milp": set(), "cpsat": set()}
    for n in sizes:
        for family, build in (
            ("uniform r in [0.3,1]", lambda n: generate_uniform(n=n, seed=2, r_min=0.3)),
            ("sm-model", lambda n: generate_sm_model(n=n, seed=2)),
        ):
            instance = build(n)
            lp = solve(instance, "lp-preemptive").objective
            for method in ("milp", "cpsat"):
                if family in failed[method]:
                    continue
                result = solve(instance, method, time_limit=time_limit)
                grid_proven = any("CP-SAT OPTIMAL" in note for note in result.notes)
                proven = result.status.value == "OPTIMAL" if method == "milp" else grid_proven
                rows.append(
                    {
                        "family": family,
                        "n": n,
                        "method": method,
                        "status": result.status.value,
                        "proven": proven if method == "milp" else f"grid: {grid_proven}",
                        "runtime_s": round(result.runtime_s, 2),
                        "ratio_to_lp": round(result.objective / lp, 5),
                        "gap": round(result.gap or 0.0, 5),
                    }
                )
                print(rows[-1], flush=True)
                if not proven:
                    failed[method].add(family)
    write(
        "exact_reach",
        rows,
        f"Non-preemptive exact methods, {time_limit:g} s limit, 2 threads (stop a family at its first unproven n)",
    )


def bench_gaps(time_limit: float) -> None:
    rows, per_method = [], {}
    names = sorted(p.name for p in INSTANCES.glob("*.json") if not p.name.startswith("solved"))
    for name in names:
        instance = read_instance(INSTANCES / name)
        lp = solve(instance, "lp-preemptive")
        # With streams the LP is NOT_APPLICABLE: the reference is the proven bound (LP relaxation or longest stream).
        reference = lp.objective if lp.objective is not None else bound_reference(instance)
        preempted = "-" if lp.objective is None else round(100 * lp.kpis["preempted_fraction"], 1)
        row = {"instance": name[:-5], "n": instance.n, "streams": len(instance.streams), "lp_preempted_pct": preempted}
        methods = HEURISTICS + (["milp"] if instance.n <= 10 else [])
        row["milp"], row["milp_status"] = "-", "-"
        for method in methods:
            options = {"max_iterations": 300} if method == "local-search" else {}
            result = solve(instance, method, time_limit=60 if method == "milp" else time_limit, **options)
            if result.objective is None:  # NOT_APPLICABLE (stream-blind methods on stream instances)
                row[method] = "-"
                continue
            ratio = result.objective / reference
            row[method] = round(100 * (ratio - 1), 3)
            if method == "milp":
                row["milp_status"] = result.status.value
            per_method.setdefault(method, []).append(100 * (ratio - 1))
        rows.append(row)
        print(row, flush=True)
    write(
        "gaps", rows, "% above the preemptive optimum (LP), or the proven bound with streams, on the shipped instances"
    )
    summary = [
        {"method": m, "instances": len(v), "mean_pct": round(sum(v) / len(v), 3), "max_pct": round(max(v), 3)}
        for m, v in per_method.items()
    ]
    write("gaps_summary", summary, "Heuristic gap to the preemptive optimum: mean and max over the shipped instances")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["lp", "exact", "gaps"])
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--time-limit", type=float, default=None)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    if args.what == "lp":
        bench_lp(sizes or [100, 200, 500, 1000, 2000])
    elif args.what == "exact":
        bench_exact(sizes or [4, 6, 8, 10, 12], args.time_limit or 60)
    else:
        bench_gaps(args.time_limit or 1)


if __name__ == "__main__":
    main()
