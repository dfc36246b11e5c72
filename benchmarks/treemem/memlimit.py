"""TOPC 2015 MemLimit heuristics against the list schedules and their capped variants, under a hard M.

Trees: the shipped assembly instances of ``instances/treemem`` and --trees
generated grid assembly trees (``run.py``'s generator, seed 2), times = the
multifrontal flop counts. For p in --processors and M = factor × the best
post-order's sequential peak (factor in --factors), every method runs through
`hpcsched.solve` (validated); a run *succeeds* when it returns a schedule
(FEASIBLE/OPTIMAL). Normalized memory = peak / post-order peak, normalized
makespan = makespan / max(⌈Σw/p⌉, critical path), both averaged over the
successes. For the MemLimit rules the raw run (`memlimit_schedule`) also
gives the share of runs that complete (no deadlock) and the largest
peak / limit seen (Theorem 5: ≤ 2 when the limit ≥ the reference peak).

    .venv/bin/python benchmarks/treemem/memlimit.py --trees 30
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from run import assembly_cases, print_table

import hpcsched
from hpcsched.core.io.instances import read_instance
from hpcsched.treemem import as_parallel
from hpcsched.treemem.bounds import parallel_lower_bound
from hpcsched.treemem.heuristics.memlimit import memlimit_schedule
from hpcsched.treemem.model import memory_levels
from hpcsched.treemem.simulate import Graph
from hpcsched.treemem.special_cases import best_postorder_order, forest_parent

HERE = Path(__file__).resolve().parent
INSTANCES = HERE.parents[1] / "instances" / "treemem"
METHODS = (
    ("par-inner-first", {}),
    ("par-deepest-first", {}),
    ("par-inner-first-capped", {}),
    ("par-deepest-first-capped", {}),
    ("par-inner-first-memlimit", {}),
    ("par-deepest-first-memlimit", {}),
    ("par-inner-first-memlimit", {"memory_fraction": 0.5}),
    ("par-deepest-first-memlimit", {"memory_fraction": 0.5}),
)


def trees(count: int) -> list:
    shipped = [read_instance(path) for path in sorted(INSTANCES.glob("assembly-*.json")) if "-M" not in path.name]
    return shipped + list(assembly_cases(count, seed=2))


def label(method: str, options: dict) -> str:
    return method + (" (fraction 0.5)" if options else "")


def measure(tree, p: int, factor: int, postorder_peak: int, records: list[dict]) -> None:
    memory = factor * postorder_peak
    instance = as_parallel(tree, processors=p, memory=memory)
    bound = max(
        -(-sum(v.time for v in tree.nodes) // p), parallel_lower_bound(as_parallel(tree, processors=p, memory=10**15))
    )
    for method, options in METHODS:
        result = hpcsched.solve(instance, method, problem="treemem", time_limit=120, **options)
        record = {"method": label(method, options), "factor": factor, "ok": result.status.has_solution}
        if record["ok"]:
            record.update(memory=result.kpis["peak_memory"] / postorder_peak, makespan=result.objective / bound)
        if method.endswith("memlimit"):
            limit = int(options.get("memory_fraction", 1.0) * memory)
            rule = "inner-first" if "inner" in method else "deepest-first"
            run, completed, reference = memlimit_schedule(instance, rule, limit)
            record.update(completed=completed, reference_ok=limit >= reference)
            if completed:
                peak = max(held for _, held in memory_levels(instance, run.start[: tree.n]))
                record.update(over_limit=peak / limit)
        records.append(record)


def mean(rows: list[dict], key: str) -> float | str:
    return round(statistics.fmean(r[key] for r in rows), 2) if rows else "-"


def summary_row(factor: int, name: str, mine: list[dict]) -> dict:
    good = [r for r in mine if r["ok"]]
    runs = [r for r in mine if "completed" in r]
    completed = [r for r in runs if "over_limit" in r]
    return {
        "M / post-order peak": factor,
        "method": name,
        "success %": round(100 * len(good) / len(mine), 1),
        "memory": mean(good, "memory"),
        "makespan": mean(good, "makespan"),
        "completed % (limit ≥ reference %)": (
            f"{100 * len(completed) / len(mine):.1f} ({100 * sum(r['reference_ok'] for r in runs) / len(mine):.1f})"
            if runs
            else "-"
        ),
        "max peak / limit": round(max(r["over_limit"] for r in completed), 2) if completed else "-",
    }


def summary(records: list[dict], factors: list[int]) -> list[dict]:
    rows = []
    for factor in factors:
        for method, options in METHODS:
            name = label(method, options)
            rows.append(
                summary_row(factor, name, [r for r in records if r["method"] == name and r["factor"] == factor])
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trees", type=int, default=30)
    parser.add_argument("--processors", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--factors", type=int, nargs="+", default=[1, 2, 5])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    began = time.perf_counter()
    records: list[dict] = []
    cases = trees(args.trees)
    for tree in cases:
        graph = Graph.of(tree)
        postorder_peak = best_postorder_order(graph, forest_parent(graph))[1]
        for p in args.processors:
            for factor in args.factors:
                measure(tree, p, factor, postorder_peak, records)
    sizes = sorted(tree.n for tree in cases)
    print(f"{len(cases)} trees (n {sizes[0]}-{sizes[-1]}, median {sizes[len(sizes) // 2]}), p {args.processors}")
    print_table(summary(records, args.factors), args.out / "memlimit.md")
    print(f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
