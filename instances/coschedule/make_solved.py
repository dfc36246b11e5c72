"""Solve the shipped instances and write solved.json (run it; never edit by hand).

    PYTHONPATH=src python instances/coschedule/make_solved.py

For each instance: the preemptive optimum (``lp-preemptive``, OPTIMAL: the
primary problem and default method) with the preempted fraction of the
caterpillar order, and under ``nonpreemptive`` the best non-preemptive
schedule found (exact methods with a 20 s limit for n <= 10, heuristics for
all) with its proven bound (the preemptive LP, or the MILP bound), and the
hardware FIFO / leftover replay (``fifo``). Instances with streams (the
Orion mixes: one stream per application) have no preemptive entry
(``lp-preemptive`` is NOT_APPLICABLE there); their reference is the proven
lower bound (the LP relaxation or the longest stream).
"""

from __future__ import annotations

import json
from pathlib import Path

from hpcsched.core.io import atomic_write_text, read_instance
from hpcsched.core.registry import run_method
from hpcsched.coschedule import bounds

HERE = Path(__file__).resolve().parent
DATE = "2026-11-21"


def record(result) -> dict:
    return {
        "objective": result.objective,
        "bound": result.bound,
        "status": result.status.value,
        "method": result.method,
        "solver": result.solver,
        "date": DATE,
        "runtime_s": round(result.runtime_s, 3),
    }


def main() -> None:
    solved = {}
    for path in sorted(HERE.glob("*.json")):
        if path.name == "solved.json":
            continue
        instance = read_instance(path)
        if instance.streams:
            entry = {"streams": len(instance.streams), "preemptive": "NOT_APPLICABLE: the preemptive LP ignores the stream order"}
            reference = bounds.best(instance)
        else:
            lp = run_method(instance, "lp-preemptive")
            entry = record(lp)
            entry["preemptions"] = lp.kpis["preemptions"]
            entry["preempted_fraction"] = lp.kpis["preempted_fraction"]
            reference = lp.objective
        fifo = run_method(instance, "fifo")
        entry["fifo"] = {"objective": fifo.objective, "status": fifo.status.value}
        methods = ["lp-merge", "matching-list", "greedy-partner", "lpt", "local-search"]
        if instance.n <= 10:
            methods = ["milp", "cpsat"] + methods
        # local search is run by move count (300), not by time, so the file is reproducible.
        results = [
            run_method(instance, m, time_limit=20 if m in ("milp", "cpsat") else 120, **({"max_moves": 300} if m == "local-search" else {}))
            for m in methods
        ]
        results = [r for r in results if r.status.has_solution]
        best = min(results, key=lambda r: (r.objective, r.status.value != "OPTIMAL"))
        bound = max(r.bound for r in results if r.bound is not None)
        entry["nonpreemptive"] = record(best) | {"bound": min(bound, best.objective), "status": "OPTIMAL" if best.status.value == "OPTIMAL" or best.objective <= bound * (1 + 1e-9) else "FEASIBLE"}
        solved[path.name] = entry
        print(
            path.name, instance.n, len(instance.streams), entry.get("preempted_fraction"), best.method,
            f"best/reference {best.objective / reference:.6f}", f"fifo/reference {fifo.objective / reference:.6f}", entry["nonpreemptive"]["status"],
        )
    atomic_write_text(HERE / "solved.json", json.dumps(solved, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
