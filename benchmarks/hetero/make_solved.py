"""Write instances/hetero/*.json and solved.json (best value and best bound of each shipped instance).

Usage::

    .venv/bin/python benchmarks/hetero/make_solved.py [--time-limit 60] [--data ../shared/data]

Each instance is solved by every heuristic, then by CP-SAT (``--time-limit``
seconds, hinted with the best of HEFT, HeteroPrio and HLP rounding) and, on
small horizons, the MILP; the entry keeps the best value, the best proven
bound (`bounds.best` or a backend's) and who found them. OPTIMAL iff
bound >= value. Real graphs are imported from hetero_swf when the data
folder is there, otherwise skipped.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path

from hpcsched.core.io import read_instance, write_instance
from hpcsched.core.registry import run_method
from hpcsched.hetero import (
    BASELINE_METHODS,
    HEURISTIC_METHODS,
    bounds,
    generate_cholesky,
    generate_fork_join,
    generate_heteroprio_trap,
    generate_layered,
    import_swf,
)

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "instances" / "hetero"

#: (file stem, application folder, platform m, k)
REAL = [
    ("spotrf-960-5", "spotrf", 8, 2),
    ("spotrf-960-5", "spotrf", 10, 4),
    ("spotrs-960-5", "spotrs", 10, 4),
    ("sgetrf_nopiv-320-5", "sgetrf_nopiv", 10, 4),
    ("sposv-512-5", "sposv", 8, 2),
    ("spotri-128-5", "spotri", 10, 4),
    ("spotrf-960-10", "spotrf", 8, 2),
    ("forkJoin-2-100", "forkJoin", 10, 4),
]


def generated():
    yield generate_cholesky(tiles=5, cpus=8, gpus=2)
    yield generate_layered(seed=1, n=8, layers=3, cpus=1, gpus=1)
    yield generate_layered(seed=2, n=12, layers=4, cpus=2, gpus=1)
    yield generate_layered(seed=3, n=30, layers=5, cpus=4, gpus=2)
    yield generate_fork_join(seed=4, phases=2, width=6, cpus=2, gpus=1)
    yield generate_heteroprio_trap(chain=10, acceleration=4, cpus=4, gpus=2)
    independent = generate_layered(seed=5, n=10, layers=1, cpus=1, gpus=1)
    yield independent.__class__(
        "independent-n10-s5", independent.tasks, (), 1, 1, None, {**independent.source, "layers": 1})


def instances(data: Path | None):
    for instance in generated():
        yield f"{instance.name}.json", instance
    if data is None:
        print("hetero_swf not found: real graphs skipped", file=sys.stderr)
        return
    for stem, application, cpus, gpus in REAL:
        path = data / "hetero_swf" / "formatedTasks_2" / application / f"{stem}.txt"
        if path.exists():
            instance = import_swf(path, cpus=cpus, gpus=gpus)
            yield f"{stem}-m{cpus}-k{gpus}.json", instance


def solve(instance, time_limit: float) -> dict:
    best = {"objective": float("inf")}
    bound, bound_method, bound_solver = bounds.best(instance), "bounds.best", None
    runs = [(name, {}) for name in HEURISTIC_METHODS + BASELINE_METHODS]
    runs += [("brute-force", {})] if instance.n <= 7 else []
    runs += [("independent-dp", {})] if not instance.edges and instance.cpus <= 1 and instance.gpus <= 1 else []
    runs += [("cpsat", {}), ("milp", {})]
    for name, options in runs:
        result = run_method(instance, name, time_limit=time_limit, **options)
        if not result.status.has_solution:
            continue
        if result.objective < best["objective"]:
            best = {"objective": result.objective, "method": name, "solver": result.solver,
                    "runtime_s": round(result.runtime_s, 2)}
        if result.bound is not None and result.bound > bound:
            bound, bound_method, bound_solver = result.bound, name, result.solver
    status = "OPTIMAL" if bound >= best["objective"] else "FEASIBLE"
    return {"n": instance.n, "edges": len(instance.edges), "cpus": instance.cpus, "gpus": instance.gpus,
            "objective": best["objective"], "bound": bound, "status": status, "method": best["method"],
            "seed": 0, "solver": best["solver"], "bound_method": bound_method, "bound_solver": bound_solver,
            "time_limit_s": time_limit, "date": datetime.date.today().isoformat(), "runtime_s": best["runtime_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data")))
    parser.add_argument("--only", nargs="*", help="file names to (re-)solve; the others keep their entries")
    args = parser.parse_args()
    data = args.data if args.data.is_dir() else None
    solved_path = FOLDER / "solved.json"
    solved = json.loads(solved_path.read_text()) if solved_path.exists() else {}
    FOLDER.mkdir(parents=True, exist_ok=True)
    for file_name, instance in instances(data):
        if args.only and file_name not in args.only:
            continue
        write_instance(instance, FOLDER / file_name)
        instance = read_instance(FOLDER / file_name)
        solved[file_name] = solve(instance, args.time_limit)
        print(file_name, solved[file_name], flush=True)
    solved_path.write_text(json.dumps(dict(sorted(solved.items())), indent=1) + "\n")


if __name__ == "__main__":
    main()
