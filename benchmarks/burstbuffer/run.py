"""burstbuffer benchmarks: sizing speed, exact sharing scaling, heuristic gaps.

    python benchmarks/burstbuffer/run.py [--part sizing|sharing|gaps|all] [--out DIR]

Every method goes through ``hpcsched.solve`` (so every solution is validated by
the event simulator); ``method_s`` is the method's own time, ``wall_s``
includes the validation. Results are written as CSV and markdown tables.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

from hpcsched import solve
from hpcsched.burstbuffer import generate_periodic

HEURISTICS = [
    ("greedy-marginal", {}),
    ("greedy-marginal", {"drain_policy": "even"}),
    ("equal-split", {}),
    ("equal-split", {"drain_policy": "even"}),
    ("proportional-volume", {}),
    ("proportional-rate", {}),
    ("proportional-rate", {"drain_policy": "even"}),
    ("no-burst-buffer", {}),
    ("dynamic-reference", {}),
]


def timed(instance, method, **options):
    started = time.perf_counter()
    result = solve(instance, method, **options)
    return result, time.perf_counter() - started


def write(rows, out: Path, name: str) -> None:
    if not rows:
        return
    with open(out / f"{name}.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def sizing(out: Path, sizes, lp_sizes, time_limit) -> None:
    rows = []
    for count in sizes:
        # bursty applications (1-5 % of the time writing) so that bursts collide even among many
        instance = generate_periodic(
            seed=count,
            n=count,
            load=0.9,
            bandwidth=10e9 * count / 10,
            iterations=(2, 6),
            io_fraction=(0.01, 0.05),
            granules=256,
            capacity_fraction=1.0,
        )
        bursts = sum(app.iterations for app in instance.applications)
        methods = [("sizing-dynamic", "sizing-dynamic-sweep"), ("sizing-static", "sizing-static-constant")]
        if count in lp_sizes:
            methods.append(("sizing-static", "sizing-static-lp"))
        for objective, method in methods:
            result, wall = timed(instance.with_objective(objective), method, time_limit=time_limit)
            rows.append(
                dict(
                    applications=count,
                    bursts=bursts,
                    method=method,
                    status=str(result.status),
                    size_GB=float("nan") if result.objective is None else result.objective / 1e9,
                    method_s=result.runtime_s,
                    wall_s=wall,
                )
            )
            print(rows[-1], flush=True)
    write(rows, out, "sizing")


def sharing(out: Path, sizes, time_limit, methods=("sharing-dp", "sharing-milp"), name="sharing") -> None:
    rows = []
    for count, granules in sizes:
        instance = generate_periodic(
            seed=100 + count, n=count, load=0.8, iterations=(2, 6), granules=granules, capacity_fraction=0.5
        )
        for method in methods:
            result, wall = timed(instance, method, time_limit=time_limit)
            rows.append(
                dict(
                    applications=count,
                    granules=granules,
                    method=method,
                    status=str(result.status),
                    max_dilation=result.objective,
                    bound=result.bound,
                    method_s=result.runtime_s,
                    wall_s=wall,
                )
            )
            print(rows[-1], flush=True)
    write(rows, out, name)


def gaps(out: Path, seeds, fractions, time_limit) -> None:
    gap_table: dict[tuple[str, float], list[float]] = {}
    for seed in seeds:
        base = generate_periodic(seed=200 + seed, n=6, load=0.8, iterations=(2, 5), granules=24, capacity_fraction=1.0)
        s_dyn = base.platform.capacity
        for fraction in fractions:
            instance = base.with_capacity(fraction * s_dyn, fraction * s_dyn / 24)
            exact = solve(instance, "sharing-dp", time_limit=time_limit)
            for method, options in HEURISTICS:
                label = method + ("/" + options["drain_policy"] if options else "")
                result = solve(instance, method, **options)
                gap_table.setdefault((label, fraction), []).append(
                    (result.objective - exact.objective) / exact.objective
                )
    rows = []
    for method, options in HEURISTICS:
        label = method + ("/" + options["drain_policy"] if options else "")
        row = {"method": label}
        for fraction in fractions:
            values = gap_table[(label, fraction)]
            row[f"mean gap S={fraction}S*dyn"] = statistics.mean(values)
            row[f"max gap S={fraction}S*dyn"] = max(values)
        rows.append(row)
    write(rows, out, "gaps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["sizing", "sharing", "gaps", "all"], default="all")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sizing-sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--lp-sizes", type=int, nargs="+", default=[10, 25, 50])
    parser.add_argument("--sharing-sizes", type=str, nargs="+", default=["4x16", "8x32", "16x64", "32x128", "64x256"])
    parser.add_argument("--sharing-methods", type=str, nargs="+", default=["sharing-dp", "sharing-milp"])
    parser.add_argument("--gap-seeds", type=int, default=10)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.part in ("sizing", "all"):
        sizes = sorted(set(args.sizing_sizes) | set(args.lp_sizes))
        sizing(args.out, sizes, set(args.lp_sizes), args.time_limit)
    if args.part in ("sharing", "all"):
        pairs = [tuple(int(x) for x in text.split("x")) for text in args.sharing_sizes]
        name = (
            "sharing"
            if args.sharing_methods == ["sharing-dp", "sharing-milp"]
            else "sharing-" + "-".join(m.removeprefix("sharing-") for m in args.sharing_methods)
        )
        sharing(args.out, pairs, args.time_limit, tuple(args.sharing_methods), name)
    if args.part in ("gaps", "all"):
        gaps(args.out, range(args.gap_seeds), [0.25, 0.5, 1.0], args.time_limit)


if __name__ == "__main__":
    main()
