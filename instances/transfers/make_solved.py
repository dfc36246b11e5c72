"""Solve the shipped instances and write solved.json (best value, best proven bound).

Run from the repository root (about 15 minutes on 2 cores):
    PYTHONPATH=src python instances/transfers/make_solved.py [--cpsat-limit 20] [--milp-limit 10] [--dp-limit 300] \
        [--search-limit 30] [--search-seeds 0]
    PYTHONPATH=src python instances/transfers/make_solved.py --only NAME [NAME ...]   # re-solve these entries only

For each instance: the lower bounds, the special cases, every heuristic
(ILS 5 s, iterated greedy --search-limit s per seed of --search-seeds, the
others 30 s at most), brute force when n <= 6, CP-SAT, (for n <= 50) the
MILP and (for n <= 15) the dynamic program `dp`, all through `run_method`
(so every solution is validated), stopping once a bound meets the best value. The entry
keeps the best objective, the best proven bound, OPTIMAL when they meet, the
method (and seed) that found the best value and the one that gave the bound.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

from hpcsched.core.io import atomic_write_text, read_instance
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.transfers import HEURISTIC_METHODS, bounds

HERE = Path(__file__).resolve().parent
DP_MAX_N = 15  # the dynamic program takes minutes at n = 15


def solve_one(path: Path, cpsat_limit: float, milp_limit: float, dp_limit: float, search_limit: float,
              search_seeds: list[int]) -> dict:
    instance = read_instance(path)
    started = time.perf_counter()
    best_bound, bound_method, bound_solver = bounds.best(instance), "bounds.best", None
    best = None  # (objective, method, solver, seed)
    plan = [("johnson", None, 0), ("sequential", None, 0)]  # (method, time limit, seed)
    for method in HEURISTIC_METHODS:
        if method == "iterated-greedy":
            plan += [(method, search_limit, seed) for seed in search_seeds]
        else:
            plan.append((method, 5.0 if method == "ils" else 30.0, 0))
    if instance.n <= 6:
        plan.append(("brute-force", None, 0))
    plan.append(("cpsat", cpsat_limit, 0))
    if instance.n <= 50:
        plan.append(("milp", milp_limit, 0))
    if instance.n <= DP_MAX_N:
        plan.append(("dp", dp_limit, 0))
    for method, limit, seed in plan:
        result = run_method(instance, method, time_limit=limit, seed=seed)
        if result.status is Status.ERROR:
            raise RuntimeError(f"{path.name}: {method}: {result.notes}")
        if result.objective is not None and (best is None or result.objective < best[0]):
            best = (result.objective, method, result.solver, seed)
        if result.bound is not None and result.bound > best_bound and method in ("cpsat", "milp", "dp", "brute-force", "johnson", "sequential"):
            best_bound, bound_method, bound_solver = result.bound, method, result.solver
        if best is not None and best[0] <= best_bound:
            break  # proven: no need to run the rest
    assert best is not None
    status = "OPTIMAL" if best[0] <= best_bound else "FEASIBLE"
    return {
        "n": instance.n,
        "objective": best[0],
        "bound": best_bound,
        "status": status,
        "method": best[1],
        "seed": best[3],
        "solver": best[2],
        "bound_method": bound_method,
        "bound_solver": bound_solver,
        "date": datetime.date.today().isoformat(),
        "runtime_s": round(time.perf_counter() - started, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpsat-limit", type=float, default=20.0)
    parser.add_argument("--milp-limit", type=float, default=10.0)
    parser.add_argument("--dp-limit", type=float, default=300.0)
    parser.add_argument("--search-limit", type=float, default=30.0, help="seconds of iterated greedy, per seed")
    parser.add_argument("--search-seeds", type=int, nargs="+", default=[0], help="seeds of iterated greedy")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="re-solve these instances, keep the other entries")
    args = parser.parse_args()
    paths = sorted(path for path in HERE.glob("*.json") if path.name != "solved.json")
    solved = {}
    if args.only:
        unknown = sorted(set(args.only) - {path.name for path in paths})
        if unknown:
            parser.error(f"no shipped instance named {', '.join(unknown)}")
        solved = json.loads((HERE / "solved.json").read_text())
        paths = [path for path in paths if path.name in args.only]
    for path in paths:
        solved[path.name] = solve_one(path, args.cpsat_limit, args.milp_limit, args.dp_limit, args.search_limit, args.search_seeds)
        print(path.name, solved[path.name], flush=True)
    solved = dict(sorted(solved.items()))
    atomic_write_text(HERE / "solved.json", json.dumps(solved, indent=1) + "\n")


if __name__ == "__main__":
    main()
