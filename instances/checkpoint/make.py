"""Write the shipped checkpoint instances and solved.json (run from the repository root).

    .venv/bin/python instances/checkpoint/make.py [--shared ../shared/data]

Generated chains, PipeDream chains and the Kineto ResNet-50 layer table at budgets 0.3-0.9 of the store-all
peak (a budget below the smallest feasible one is raised to it and the file
says so; duplicates after raising are skipped). solved.json: the best
objective found by the methods below and the best proven bound; OPTIMAL only
when the exhaustive search (L <= 6) or CP-SAT proved it, or a bound meets it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

import hpcsched
from hpcsched.checkpoint import (
    bounds,
    generate_homogeneous,
    generate_random,
    generate_transformer,
    import_kineto,
    import_pipedream,
)
from hpcsched.core.io import write_instance
from hpcsched.solvers.cpsat import version as cpsat_version

FOLDER = Path(__file__).resolve().parent
NETWORKS = ("alexnet", "vgg16", "resnet18", "gnmt", "squeezenet1_0", "resnet50")
BUDGETS = (0.3, 0.5, 0.7, 0.9)
METHODS = ("dp", "greedy", "checkpoint-sequential", "chen", "revolve-repaired", "recompute-all", "store-all")


def instances(shared: Path | None):
    yield generate_homogeneous(n=4, budget=0.6)
    yield generate_homogeneous(n=10, budget=0.5)
    yield generate_random(n=4, budget=0.6, seed=1)
    yield generate_random(n=6, budget=0.5, seed=2)
    yield generate_random(n=12, budget=0.5, seed=3)
    yield generate_transformer(n=3, budget=0.5)
    if shared is None:
        return
    for network in NETWORKS:
        seen = set()
        for budget in BUDGETS:
            instance = import_pipedream(shared / "pipedream" / f"{network}.graph.txt", budget=budget)
            if instance.memory in seen:
                continue
            seen.add(instance.memory)
            yield instance
    for budget in (0.3, 0.5, 0.9):  # the Kineto ResNet-50 layer table (V100)
        yield import_kineto(shared / "kineto" / "resnet50_v100_workers0.pt.trace.json.gz", budget=budget)


def solve(instance) -> dict:
    today = datetime.date.today().isoformat()
    bound, bound_method = float(bounds.best(instance)), "bounds.best"
    best = None
    if instance.length <= 6:
        started = time.perf_counter()
        result = hpcsched.solve(instance, "brute-force", time_limit=600)
        best = (result, time.perf_counter() - started)
        bound, bound_method = result.objective, "brute-force"
    for method in METHODS:
        started = time.perf_counter()
        result = hpcsched.solve(instance, method, time_limit=300)
        if result.status.has_solution and (best is None or result.objective < best[0].objective):
            best = (result, time.perf_counter() - started)
    result, runtime = best
    return {
        "L": instance.length,
        "memory": instance.memory,
        "objective": result.objective,
        "bound": bound,
        "status": "OPTIMAL" if bound >= result.objective else "FEASIBLE",
        "method": result.method,
        "seed": 0,
        "solver": result.solver,
        "bound_method": bound_method,
        "bound_solver": None,
        "date": today,
        "runtime_s": round(runtime, 2),
        "overhead": round((result.objective - instance.compute_time) / instance.compute_time, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=FOLDER.parents[2] / "shared" / "data")
    args = parser.parse_args()
    shared = args.shared if args.shared.is_dir() else None
    solved = {}
    for instance in instances(shared):
        file = f"{instance.name}.json"
        write_instance(instance, FOLDER / file)
        solved[file] = solve(instance)
        print(file, solved[file]["status"], solved[file]["objective"], solved[file]["bound"], flush=True)
    (FOLDER / "solved.json").write_text(json.dumps(solved, indent=1, sort_keys=True) + "\n")
    print("cpsat", cpsat_version())


if __name__ == "__main__":
    main()
