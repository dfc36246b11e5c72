"""Benchmarks of treemem: best post-order versus optimal, Liu at 10^6 nodes, exact DAG methods.

Run from the repository root, e.g.
    .venv/bin/python benchmarks/treemem/run.py postorder --assembly 500 --random 1000
    .venv/bin/python benchmarks/treemem/run.py large --n 1000000
    .venv/bin/python benchmarks/treemem/run.py exact --sizes 10 14 18 22 --time-limit 60

Each part writes a CSV and a markdown table into --out (default
benchmarks/treemem/results/). Methods are called through `run_method`, so
every order is validated and every peak recomputed by the problem's own
`evaluate`.

postorder
    The lecture's claim: how often, and by how much, Liu's best post-order
    (``best-postorder``) is above the optimum (``liu-optimal``) on assembly
    trees and on random trees. Assembly trees: grid Laplacians, 2D sides 4..40
    and 3D sides 3..11, orderings nested dissection, minimum degree (2D sides
    <= 24 and 3D sides <= 7: the plain MD is quadratic) and RCM, amalgamation
    0, 4 or 16 explicit zeros, drawn with a seeded generator. Random trees: n
    uniform in 20..400, each node under a uniform earlier node (no fan-in cap
    for even seeds, cap 2..4 for odd ones), exec uniform 0..100, output 1..100.
large
    ``liu-optimal`` and ``best-postorder`` on one random tree of --n nodes
    (fan-in cap 4): instance construction, method and validation times.
parallel
    TOPC 2015 Table 1: on --assembly assembly trees (times = the multifrontal
    flop counts) and p in --processors, with unlimited memory, each
    heuristic's peak memory over the sequential optimum (Liu 1987) and its
    makespan over max(Σw/p, critical path), averaged over trees and p.
exact
    ``dp``, ``cpsat`` (1 worker) and ``milp`` on random DAGs (edge probability
    0.2, sizes 0..10) of each size in --sizes, 3 seeds each: how many are
    proven within --time-limit.
out-of-core
    MinIO: on --trees random in-trees (n uniform in 12..--max-n, exec 0..100,
    output 1..100) and small assembly trees, with M = max(max MemReq, 0.8 ×
    the in-core optimum), the bytes written by each eviction rule on Liu's
    optimal traversal and on the best post-order, over the ``milp-io``
    optimum (instances where the optimum needs no I/O are skipped and counted;
    instances where milp-io proves nothing within --time-limit are reported).
sp
    ``sp-ization`` versus the exact ``dp`` optimum on random DAGs (n uniform
    in 10..--max-n, edge probability uniform in 0.1..0.4) and on the
    shipped DNN graph, with ``local-search`` and ``greedy`` alongside.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import numpy as np

from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.treemem import generate_assembly, generate_random_dag, generate_random_tree

HERE = Path(__file__).resolve().parent


def solve(instance, method, **options):
    return run_method(instance, method, problem="treemem", **options)


def write(rows: list[dict], out: Path, name: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{name}.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def assembly_cases(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for k in range(count):
        three_d = rng.random() < 0.35
        ordering = ("nested-dissection", "minimum-degree", "rcm")[int(rng.integers(3))]
        if three_d:
            limit = 7 if ordering == "minimum-degree" else 11
            shape = tuple(int(rng.integers(3, limit + 1)) for _ in range(3))
        else:
            limit = 24 if ordering == "minimum-degree" else 40
            shape = tuple(int(rng.integers(4, limit + 1)) for _ in range(2))
        amalgamation = (0, 4, 16)[int(rng.integers(3))]
        yield generate_assembly(seed=k, shape=shape, ordering=ordering, amalgamation=amalgamation)


def random_tree_cases(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(20, 401))
        cap = None if k % 2 == 0 else int(rng.integers(2, 5))
        yield generate_random_tree(seed=k, n=n, max_children=cap, max_exec=100, max_output=100)


def summarize(label: str, rows: list[dict]) -> dict:
    excess = [row["excess"] for row in rows]
    worse = [e for e in excess if e > 0]
    return {
        "family": label,
        "trees": len(rows),
        "non-optimal %": round(100 * len(worse) / len(rows), 1),
        "max excess %": round(100 * max(excess), 1),
        "mean excess % (all)": round(100 * statistics.fmean(excess), 2),
        "mean excess % (non-optimal)": round(100 * statistics.fmean(worse), 1) if worse else 0.0,
        "median nodes": int(statistics.median(row["n"] for row in rows)),
    }


def postorder(args) -> None:
    summary = []
    for label, cases in (("assembly", assembly_cases(args.assembly)), ("random", random_tree_cases(args.random))):
        rows = []
        for instance in cases:
            optimal = solve(instance, "liu-optimal")
            post = solve(instance, "best-postorder")
            assert optimal.status is Status.OPTIMAL and post.objective >= optimal.objective
            rows.append(
                {
                    "instance": instance.name,
                    "n": instance.n,
                    "optimal": optimal.objective,
                    "postorder": post.objective,
                    "excess": post.objective / optimal.objective - 1,
                }
            )
        write(rows, args.out, f"postorder-{label}")
        summary.append(summarize(label, rows))
    print_table(summary, args.out / "postorder.md")


def large(args) -> None:
    """Wall-clock and CPU seconds of the large tree.

    This machine is shared (2 cores, several workers): CPU time is the steadier figure.
    """
    from hpcsched.treemem import special_cases

    started, cpu = time.perf_counter(), time.process_time()
    instance = generate_random_tree(seed=0, n=args.n, max_children=4, max_exec=100, max_output=100)
    built, built_cpu = time.perf_counter() - started, time.process_time() - cpu
    rows = []
    for method, function in (
        ("liu-optimal", special_cases.liu_optimal),
        ("best-postorder", special_cases.best_postorder),
    ):
        started, cpu = time.perf_counter(), time.process_time()
        function(instance, time_limit=600, seed=0, params=None)
        bare, bare_cpu = time.perf_counter() - started, time.process_time() - cpu
        started, cpu = time.perf_counter(), time.process_time()
        result = solve(instance, method, time_limit=600)
        total, total_cpu = time.perf_counter() - started, time.process_time() - cpu
        rows.append(
            {
                "method": method,
                "n": instance.n,
                "status": result.status.value,
                "peak": result.objective,
                "instance build s (cpu)": f"{built:.1f} ({built_cpu:.1f})",
                "method s (cpu)": f"{bare:.1f} ({bare_cpu:.1f})",
                "run_method incl. validation s (cpu)": f"{total:.1f} ({total_cpu:.1f})",
            }
        )
    print_table(rows, args.out / "large.md")


def parallel(args) -> None:
    """TOPC 2015 Table 1: memory / sequential optimum and makespan / lower bound, M unlimited, averaged."""
    from hpcsched.treemem import as_parallel
    from hpcsched.treemem.bounds import parallel_lower_bound

    methods = ("par-subtrees", "par-subtrees-optim", "par-inner-first", "par-deepest-first")
    trees = list(assembly_cases(args.assembly, seed=1))
    rows, records = [], []
    for tree in trees:
        optimum = solve(tree, "liu-optimal").objective
        unlimited = sum(v.exec + v.output for v in tree.nodes)
        for p in args.processors:
            instance = as_parallel(tree, processors=p, memory=unlimited)
            bound = max(
                -(-sum(v.time for v in tree.nodes) // p),
                parallel_lower_bound(as_parallel(tree, processors=p, memory=10**15)),
            )  # the memory term vanishes: Σw/p and critical path
            for method in methods:
                result = solve(instance, method, time_limit=120)
                assert result.status in (Status.OPTIMAL, Status.FEASIBLE), (method, result.notes)
                records.append(
                    {
                        "instance": tree.name,
                        "p": p,
                        "method": method,
                        "memory": result.kpis["peak_memory"] / optimum,
                        "makespan": result.objective / bound,
                    }
                )
    write(records, args.out, "parallel")
    for method in methods:
        mine = [r for r in records if r["method"] == method]
        rows.append(
            {
                "method": method,
                "trees": len(trees),
                "p": " ".join(map(str, args.processors)),
                "normalized memory": round(statistics.fmean(r["memory"] for r in mine), 2),
                "normalized makespan": round(statistics.fmean(r["makespan"] for r in mine), 2),
                "TOPC 2015 Table 1": {
                    "par-subtrees": "2.34 / 1.40",
                    "par-subtrees-optim": "2.46 / 1.33",
                    "par-inner-first": "3.79 / 1.07",
                    "par-deepest-first": "4.13 / 1.04",
                }[method],
            }
        )
    print_table(rows, args.out / "parallel.md")


def exact(args) -> None:
    rows = []
    for n in args.sizes:
        for method, options in (("dp", {}), ("cpsat", {"workers": 1}), ("milp", {})):
            if method not in args.methods:
                continue
            proven, times = 0, []
            for seed in range(args.seeds):
                instance = generate_random_dag(seed=seed, n=n, edge_probability=0.2)
                result = solve(instance, method, time_limit=args.time_limit, **options)
                if result.status is Status.OPTIMAL:
                    proven += 1
                    times.append(result.runtime_s)
            rows.append(
                {
                    "n": n,
                    "method": method,
                    "proven": f"{proven}/{args.seeds}",
                    "max time s (proven)": round(max(times), 1) if times else None,
                }
            )
            print(rows[-1], flush=True)
    print_table(rows, args.out / "exact.md")


def out_of_core(args) -> None:
    from hpcsched.treemem import as_out_of_core

    rng = np.random.default_rng(0)
    cases = [
        generate_random_tree(seed=k, n=int(rng.integers(12, args.max_n + 1)), max_exec=100, max_output=100)
        for k in range(args.trees)
    ]
    cases += [
        generate_assembly(seed=k, shape=shape, ordering=ordering)
        for k, (shape, ordering) in enumerate(
            [
                ((6, 6), "nested-dissection"),
                ((7, 7), "minimum-degree"),
                ((8, 8), "rcm"),
                ((3, 3, 3), "nested-dissection"),
            ]
        )
    ]
    rules = ("io-belady", "io-largest", "io-first-fit", "io-best-fit")
    records, skipped, unproven = [], 0, 0
    for tree in cases:
        instance = as_out_of_core(tree, fraction=0.8)
        optimum = solve(instance, "milp-io", time_limit=args.time_limit)
        if optimum.status is not Status.OPTIMAL:
            unproven += 1
            continue
        if optimum.objective == 0:
            skipped += 1
            continue
        for rule in rules:
            for traversal in ("liu-optimal", "best-postorder"):
                result = solve(instance, rule, traversal=traversal, time_limit=60)
                assert result.objective >= optimum.objective
                records.append(
                    {
                        "instance": instance.name,
                        "n": instance.n,
                        "rule": rule,
                        "traversal": traversal,
                        "optimum": optimum.objective,
                        "written": result.objective,
                        "excess": result.objective / optimum.objective - 1,
                        "milp s": round(optimum.runtime_s, 2),
                    }
                )
    write(records, args.out, "out-of-core")
    rows = []
    for rule in rules:
        for traversal in ("liu-optimal", "best-postorder"):
            mine = [r for r in records if r["rule"] == rule and r["traversal"] == traversal]
            rows.append(
                {
                    "rule": rule,
                    "traversal": traversal,
                    "instances": len(mine),
                    "optimal %": round(100 * sum(r["excess"] == 0 for r in mine) / len(mine), 1),
                    "mean excess %": round(100 * statistics.fmean(r["excess"] for r in mine), 1),
                    "max excess %": round(100 * max(r["excess"] for r in mine), 1),
                }
            )
    print(f"{len(cases)} instances: {skipped} need no I/O, {unproven} not proven by milp-io in {args.time_limit} s")
    print_table(rows, args.out / "out-of-core.md")


def sp(args) -> None:
    from hpcsched.core.io import read_instance

    rng = np.random.default_rng(0)
    methods = ("sp-ization", "local-search", "greedy", "forest-postorder")
    records = []
    for k in range(args.dags):
        instance = generate_random_dag(
            seed=k, n=int(rng.integers(10, args.max_n + 1)), edge_probability=float(rng.uniform(0.1, 0.4))
        )
        optimum = solve(instance, "dp", time_limit=args.time_limit)
        if optimum.status is not Status.OPTIMAL:
            continue
        for method in methods:
            result = solve(instance, method, time_limit=60)
            assert result.objective >= optimum.objective
            records.append(
                {
                    "instance": instance.name,
                    "n": instance.n,
                    "method": method,
                    "excess": result.objective / optimum.objective - 1,
                }
            )
    write(records, args.out, "sp")
    rows = []
    for method in methods:
        mine = [r for r in records if r["method"] == method]
        rows.append(
            {
                "method": method,
                "DAGs": len(mine),
                "optimal %": round(100 * sum(r["excess"] == 0 for r in mine) / len(mine), 1),
                "mean excess %": round(100 * statistics.fmean(r["excess"] for r in mine), 1),
                "max excess %": round(100 * max(r["excess"] for r in mine), 1),
            }
        )
    dnn = HERE.parents[1] / "instances" / "treemem" / "resnet50_inference.json"
    if dnn.exists():
        instance = read_instance(dnn)
        for method in methods:
            rows.append(
                {
                    "method": f"{method} on resnet50_inference",
                    "DAGs": 1,
                    "optimal %": "-",
                    "mean excess %": f"peak {solve(instance, method, time_limit=60).objective:.0f}",
                    "max excess %": "-",
                }
            )
    print_table(rows, args.out / "sp.md")


def print_table(rows: list[dict], path: Path) -> None:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("postorder", "large", "exact", "parallel", "out-of-core", "sp"))
    parser.add_argument("--trees", type=int, default=40)
    parser.add_argument("--dags", type=int, default=200)
    parser.add_argument("--max-n", type=int, default=20)
    parser.add_argument("--processors", type=int, nargs="+", default=[2, 4, 8, 16, 32])
    parser.add_argument("--assembly", type=int, default=500)
    parser.add_argument("--random", type=int, default=1000)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 14, 18, 22])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--methods", nargs="+", default=["dp", "cpsat", "milp"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    {
        "postorder": postorder,
        "large": large,
        "exact": exact,
        "parallel": parallel,
        "out-of-core": out_of_core,
        "sp": sp,
    }[args.part](args)


if __name__ == "__main__":
    main()
