"""Out-of-core: the proven I/O lower bound (``treemem.io_bounds``) against the best eviction heuristic.

Three sets: the shipped ``*-io-*`` instances; the 154 trees of ``run.py
out-of-core`` (same generator and seeds) against the ``milp-io`` optima
recorded in ``results/out-of-core.csv``; larger assembly and random trees at
M = 0.8 × the in-core optimum. Prints markdown tables (also written to
``results/io-bound.md``).

    python benchmarks/treemem/io_bound.py
"""

from __future__ import annotations

import csv
import statistics
import time
from pathlib import Path

import numpy as np

import hpcsched
from hpcsched.core.io.instances import read_instance
from hpcsched.treemem import OUT_OF_CORE_HEURISTICS, as_out_of_core, generate_assembly, generate_random_tree
from hpcsched.treemem.io_bounds import io_bound
from hpcsched.treemem.special_cases import tree_optimum

HERE = Path(__file__).resolve().parent
INSTANCES = HERE.parents[1] / "instances" / "treemem"


def best_heuristic(instance) -> float:
    traversals = ("liu-optimal", "best-postorder") if instance.is_in_forest else ("greedy",)
    return min(
        hpcsched.solve(instance, rule, problem="treemem", time_limit=60, traversal=traversal).objective
        for rule in OUT_OF_CORE_HEURISTICS
        for traversal in traversals
    )


def row(name: str, instance) -> dict:
    started = time.perf_counter()
    found = io_bound(instance)
    seconds = time.perf_counter() - started
    in_core = tree_optimum(instance)
    best = best_heuristic(instance)
    bound = None if found is None else found.bound
    return {
        "instance": name,
        "n": instance.n,
        "M": instance.memory,
        "P* - M": "-" if in_core is None else max(0, in_core - instance.memory),
        "bound": "-" if bound is None else bound,
        "closed": "-" if found is None else ("yes" if found.optimal else f"no ({found.nodes} nodes)"),
        "bound s": round(seconds, 2),
        "best heuristic": int(best),
        "gap %": "-" if bound is None else (0.0 if best == 0 else round(100 * (best - bound) / best, 1)),
    }


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def run_py_cases() -> str:
    """run.py out-of-core's 154 instances, bound against the recorded milp-io optimum."""
    rng = np.random.default_rng(0)
    trees = [
        generate_random_tree(seed=k, n=int(rng.integers(12, 21)), max_exec=100, max_output=100) for k in range(150)
    ]
    shapes = [
        ((6, 6), "nested-dissection"),
        ((7, 7), "minimum-degree"),
        ((8, 8), "rcm"),
        ((3, 3, 3), "nested-dissection"),
    ]
    trees += [generate_assembly(seed=k, shape=s, ordering=o) for k, (s, o) in enumerate(shapes)]
    with open(HERE / "results" / "out-of-core.csv") as handle:
        optimum = {r["instance"]: float(r["optimum"]) for r in csv.DictReader(handle)}
    closed, single, ratios, single_ratios = 0, 0, [], []
    for tree in trees:
        instance = as_out_of_core(tree, fraction=0.8)
        if instance.name not in optimum:
            continue  # no I/O needed at this M (or not in the csv)
        found = io_bound(instance)
        assert found is not None and found.bound <= optimum[instance.name]
        peak_bound = max(0, tree_optimum(instance) - instance.memory)
        closed += found.bound == optimum[instance.name]
        single += peak_bound == optimum[instance.name]
        ratios.append(found.bound / optimum[instance.name])
        single_ratios.append(peak_bound / optimum[instance.name])
    count = len(ratios)
    return (
        f"{count} instances needing I/O: the bound equals the milp-io optimum on {closed} "
        f"(P* − M alone: {single}); mean bound / optimum {statistics.fmean(ratios):.3f} "
        f"(P* − M: {statistics.fmean(single_ratios):.3f}), min {min(ratios):.3f} (P* − M: {min(single_ratios):.3f})"
    )


def main() -> None:
    shipped = [row(p.name, read_instance(p)) for p in sorted(INSTANCES.glob("*-io-*.json"))]
    larger = []
    for shape in ((12, 12), (16, 16), (20, 20), (5, 5, 5), (6, 6, 6)):
        larger.append(row(f"assembly {shape}", as_out_of_core(generate_assembly(shape=shape), fraction=0.8)))
    for n in (100, 200, 500, 1000):
        for seed in range(2):
            tree = generate_random_tree(seed=seed, n=n, max_exec=100, max_output=100)
            larger.append(row(f"random-tree n{n} s{seed}", as_out_of_core(tree, fraction=0.8)))
    text = "\n\n".join(
        [
            "Shipped out-of-core instances:",
            table(shipped),
            "run.py out-of-core instances: " + run_py_cases(),
            "Larger trees at M = 0.8 × in-core optimum:",
            table(larger),
        ]
    )
    print(text)
    (HERE / "results" / "io-bound.md").write_text(text + "\n")


if __name__ == "__main__":
    main()
