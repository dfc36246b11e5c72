"""Solve the shipped instances with the exact methods and write solved.json.

    PYTHONPATH=src python instances/locality/make_solved.py [--time-limit 30]

For each instance the exact methods that apply run through `run_method`
(validated); the best objective, the best proven bound and the method that
reached them are recorded with the backend version and the date.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

from hpcsched.core.io import atomic_write_text, read_instance
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status

HERE = Path(__file__).resolve().parent
EXACT = ("auto", "semi-matching", "unit-flow", "quota-flow", "cpsat", "milp", "milp-communication")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0)
    args = parser.parse_args()
    solved = {}
    for path in sorted(HERE.glob("*.json")):
        if path.name == "solved.json":
            continue
        instance = read_instance(path)
        best = None
        for method in EXACT:
            result = run_method(instance, method, time_limit=args.time_limit)
            if not result.status.has_solution:
                continue
            key = (result.status is not Status.OPTIMAL, result.objective, result.runtime_s)
            if best is None or key < best[0]:
                best = (key, result)
            print(f"{path.name:34s} {method:20s} {result.status.value:9s} {result.objective} {result.bound} {result.runtime_s:.2f}s")
        result = best[1]
        solved[path.name] = {
            "objective": result.objective,
            "bound": result.bound,
            "status": result.status.value,
            "method": result.method,
            "solver": result.solver,
            "date": datetime.date.today().isoformat(),
            "runtime_s": round(result.runtime_s, 3),
        }
    atomic_write_text(HERE / "solved.json", json.dumps(solved, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
