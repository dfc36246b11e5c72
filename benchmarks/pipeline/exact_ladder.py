"""How large an instance each exact method of pipeline proves optimal within a time limit: a ladder over N and D.

For each family (uniform and vshape, memory limited to 1.5 x the peak of one
micro-batch alone), objective, device count D and method, the number of
micro-batches (N for a makespan, R for a period) doubles until the method no
longer proves its answer OPTIMAL within the limit. cpsat and milp run with
``stop_at_bound=false`` (their model must find the optimum; `bounds.best`
still bounds it), brute-force with its size limits lifted (it stops at a
schedule meeting the bound, as always). Prints a Markdown table: the largest
count proven, its time, and what the next size gave.

    .venv/bin/python benchmarks/pipeline/exact_ladder.py [--time-limit 60] [--devices 2,4,8] [--counts 1,2,4,...]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import hpcsched
from hpcsched.core.result import Status
from hpcsched.pipeline import generate_uniform, generate_vshape

FAMILIES = {"uniform": generate_uniform, "vshape": generate_vshape}
OPTIONS: dict[str, dict[str, Any]] = {
    "cpsat": {"stop_at_bound": False},
    "milp": {"stop_at_bound": False},
    "brute-force": {"max_jobs": 10**9, "max_period_jobs": 10**9},
}
MEMORY_FACTOR = 1.5


def ladder(family: str, objective: str, devices: int, method: str, counts: list[int], limit: float) -> str:
    """One table row: the largest count proven OPTIMAL, its wall/CPU time, and the first count that was not."""
    proven, stop = "-", "-"
    for count in counts:
        instance = FAMILIES[family](n=count, devices=devices, memory_factor=MEMORY_FACTOR, objective=objective)
        wall, cpu = time.perf_counter(), time.process_time()
        result = hpcsched.solve(instance, method, time_limit=limit, **OPTIONS[method])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        jobs = count * instance.n_blocks
        if result.status is Status.OPTIMAL:
            proven = f"{count} ({jobs} jobs): {result.objective:g} in {wall:.1f} s ({cpu:.1f} s CPU)"
            continue
        gap = ""
        if result.objective is not None and result.bound is not None:
            gap = f" {result.objective:g} / bound {result.bound:g}"
        stop = f"{count}: {result.status.name}{gap} ({wall:.0f} s)"
        break
    return f"| {family} | {objective} | {devices} | {method} | {proven} | {stop} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--devices", default="2,4,8")
    parser.add_argument("--counts", default="1,2,4,8,16,32,64,128")
    parser.add_argument("--families", default="uniform,vshape")
    parser.add_argument("--objectives", default="makespan,period")
    parser.add_argument("--methods", default="cpsat,milp,brute-force")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    print(f"| family | objective | D | method | largest N (R) proven in {args.time_limit:g} s | next size |")
    print("|---|---|---|---|---|---|")
    for family in args.families.split(","):
        for objective in args.objectives.split(","):
            for devices in (int(d) for d in args.devices.split(",")):
                for method in args.methods.split(","):
                    print(ladder(family, objective, devices, method, counts, args.time_limit), flush=True)


if __name__ == "__main__":
    main()
