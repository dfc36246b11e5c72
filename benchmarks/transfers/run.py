"""Benchmarks of the transfers methods: proven size ladder, heuristic gaps, dynamic-rule scaling, local searches.

Run from the repository root, e.g.
    python benchmarks/transfers/run.py ladder --time-limit 20 --seeds 0
    python benchmarks/transfers/run.py gaps
    python benchmarks/transfers/run.py scaling --n 100000
    python benchmarks/transfers/run.py frontier --factors 1.5 --ladder 8 10 12 --seeds 0 1 2 3 4
    python benchmarks/transfers/run.py search --factors 1.5 2 --ladder 15 30 50 100 --ils-time 6

Each part writes a CSV and a markdown table into --out (default
benchmarks/transfers/results/). Every method is called through `hpcsched.solve`,
so every solution is validated and every objective recomputed. The protocol
and the current tables are in README.md next to this script.

ladder
    Uniform instances (c, p, m uniform in 1..100), memory 1.5x, 2x and 5x
    max m. For each exact-method variant and memory factor, n climbs the
    ladder until no seed is proven optimal within the time limit; the
    largest proven n is reported. CP-SAT variants isolate each idea:
    ``plain`` (horizon Σ(c+p), no bound, no hint, no symmetry breaking),
    ``+bound`` (C ≥ bounds.best), ``+conflicts`` (NoOverlap on cliques of
    never-coexisting tasks), ``+symmetry`` (identical tasks ordered),
    ``+warm`` (best heuristic as hint and horizon), ``all``, ``default``
    (all but conflicts); and the MILP on
    HiGHS plain and with everything (big-M from the best heuristic in both).
gaps
    Every heuristic on the four families x memory 1, 1.5, 2, 5 x seeds, n =
    15; the reference is the optimum proven by CP-SAT or, when CP-SAT does
    not prove it within the limit, by `dp` (or, when neither does, the best
    bound of the two, so the gap shown is an upper bound).
scaling
    The four dynamic rules at large n (uniform and HF-like, memory 2x),
    wall-clock through hpcsched.solve (validation included).
frontier
    How often, and by how much, the optimum lies above every lower bound
    (`bounds.best`): uniform instances at each memory of --factors (the
    protocol uses 1.5x max m) for each n of --ladder and each seed, solved by `dp` (the exact
    method that proves such optima) within --time-limit; an instance not
    proven in time counts as unknown, never as "at the bound".
search
    NEH, ILS and iterated greedy side by side, the two searches with the same
    --ils-time and seed, on uniform instances (--factors x --ladder x
    --seeds): excess over `bounds.best`, how many meet it (proven optimal),
    and iterated greedy against ILS instance by instance.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import hpcsched
from hpcsched.core.result import Status
from hpcsched.transfers import HEURISTIC_METHODS, bounds
from hpcsched.transfers.generate import GENERATORS
from hpcsched.transfers.heuristics import DYNAMIC_METHODS

HERE = Path(__file__).resolve().parent

VARIANTS = {
    "cpsat plain": ("cpsat", dict(lower_bound=False, conflicts=False, symmetry=False, warm_start=False)),
    "cpsat +bound": ("cpsat", dict(lower_bound=True, conflicts=False, symmetry=False, warm_start=False)),
    "cpsat +conflicts": ("cpsat", dict(lower_bound=False, conflicts=True, symmetry=False, warm_start=False)),
    "cpsat +symmetry": ("cpsat", dict(lower_bound=False, conflicts=False, symmetry=True, warm_start=False)),
    "cpsat +warm": ("cpsat", dict(lower_bound=False, conflicts=False, symmetry=False, warm_start=True)),
    "cpsat all": ("cpsat", dict(lower_bound=True, conflicts=True, symmetry=True, warm_start=True)),
    "cpsat default": ("cpsat", dict()),
    "milp plain": ("milp", dict(lower_bound=False, conflicts=False, symmetry=False)),
    "milp all": ("milp", dict(lower_bound=True, conflicts=True, symmetry=True)),
    "dp": ("dp", dict()),
}


def write(rows: list[dict], out: Path, stem: str, table: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    if rows:
        with open(out / f"{stem}.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    (out / f"{stem}.md").write_text(table)
    print(table)


def ladder(args) -> None:
    rows, summary = [], {}
    for factor in args.factors:
        for variant in args.variants:
            method, options = VARIANTS[variant]
            largest, climbing = 0, True
            for n in args.ladder:
                if method == "milp" and n > args.milp_max_n:
                    break
                proven = 0
                for seed in args.seeds:
                    instance = GENERATORS["uniform"](seed=seed, n=n, memory_factor=factor)
                    result = hpcsched.solve(instance, method, time_limit=args.time_limit, **options)
                    rows.append(
                        dict(
                            variant=variant,
                            factor=factor,
                            n=n,
                            seed=seed,
                            status=result.status.value,
                            objective=result.objective,
                            bound=result.bound,
                            runtime_s=round(result.runtime_s, 2),
                        )
                    )
                    print(rows[-1], flush=True)
                    proven += result.status is Status.OPTIMAL
                climbing = climbing and proven > 0
                if climbing:
                    largest = n
                elif not args.every_rung:
                    break
            summary[(variant, factor)] = largest
    lines = [
        f"Largest n proven optimal within {args.time_limit:g} s (seeds {args.seeds}; ladder {args.ladder}; "
        "a rung counts when at least one seed is proven)\n",
        "| variant | " + " | ".join(f"{f:g}x max m" for f in args.factors) + " |",
        "|---|" + "---|" * len(args.factors),
    ]
    for variant in args.variants:
        lines.append(f"| {variant} | " + " | ".join(str(summary[(variant, f)]) for f in args.factors) + " |")
    lines += [
        "",
        f"Seeds proven optimal per rung (of {len(args.seeds)})\n",
        "| variant | memory | " + " | ".join(f"n = {n}" for n in args.ladder) + " |",
        "|---|---|" + "---|" * len(args.ladder),
    ]
    for factor in args.factors:
        for variant in args.variants:
            cells = []
            for n in args.ladder:
                runs = [r for r in rows if r["variant"] == variant and r["factor"] == factor and r["n"] == n]
                cells.append(f"{sum(r['status'] == Status.OPTIMAL.value for r in runs)}" if runs else "–")
            lines.append(f"| {variant} | {factor:g}x | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Per rung: objective / bound (status, seconds) of each run\n",
        "| variant | memory | n | seed | objective | bound | status | time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['factor']:g}x | {r['n']} | {r['seed']} | {r['objective']} | {r['bound']} | "
            f"{r['status']} | {r['runtime_s']} |"
        )
    write(rows, args.out, "ladder", "\n".join(lines) + "\n")


def gaps(args) -> None:
    rows = []
    for family in GENERATORS:
        for factor in (1, 1.5, 2, 5):
            for seed in args.seeds:
                instance = GENERATORS[family](seed=seed, n=args.n, memory_factor=factor)
                # the reference is a proven optimum when CP-SAT or, failing it, the dynamic program
                # proves one within the limit; otherwise the best proven bound of the two
                references = [hpcsched.solve(instance, "cpsat", time_limit=args.time_limit)]
                if references[0].status is not Status.OPTIMAL:
                    references.append(hpcsched.solve(instance, "dp", time_limit=args.time_limit))
                optimal = [r for r in references if r.status is Status.OPTIMAL]
                proven = bool(optimal)
                value = optimal[0].objective if proven else max(r.bound for r in references if r.bound is not None)
                reference_by = optimal[0].method if proven else "bound"
                for method in HEURISTIC_METHODS:
                    result = hpcsched.solve(instance, method, time_limit=args.ils_time)
                    rows.append(
                        dict(
                            family=family,
                            factor=factor,
                            seed=seed,
                            method=method,
                            proven=proven,
                            reference=value,
                            reference_by=reference_by,
                            objective=result.objective,
                            gap=(result.objective - value) / value,
                            runtime_s=round(result.runtime_s, 3),
                        )
                    )
                print(family, factor, seed, reference_by, value, flush=True)
    lines = [
        f"Heuristic gap to the optimum (CP-SAT, else dp; n = {args.n}, four families x memory 1, 1.5, 2, 5 x seeds "
        f"{args.seeds}: {len(rows) // len(HEURISTIC_METHODS)} instances, "
        f"{sum(r['proven'] for r in rows) // len(HEURISTIC_METHODS)} proven within {args.time_limit:g} s; "
        "unproven ones use the best bound, so their gap is an upper bound)\n",
        "| heuristic | mean gap | worst gap | optimal (gap 0) | mean time (s) |",
        "|---|---|---|---|---|",
    ]
    for method in HEURISTIC_METHODS:
        mine = [r for r in rows if r["method"] == method]
        values = [r["gap"] for r in mine]
        lines.append(
            f"| {method} | {100 * statistics.mean(values):.2f}% | {100 * max(values):.2f}% | "
            f"{sum(v <= 1e-12 for v in values)}/{len(values)} | {statistics.mean(r['runtime_s'] for r in mine):.3f} |"
        )
    write(rows, args.out, "gaps", "\n".join(lines) + "\n")


def scaling(args) -> None:
    rows = []
    for family in ("uniform", "hf-like"):
        instance = GENERATORS[family](seed=0, n=args.n, memory_factor=2)
        for method in DYNAMIC_METHODS:
            started = time.perf_counter()
            result = hpcsched.solve(instance, method)
            rows.append(
                dict(
                    family=family,
                    n=args.n,
                    method=method,
                    status=result.status.value,
                    objective=result.objective,
                    gap_to_bound=result.gap,
                    method_s=round(result.runtime_s, 2),
                    total_s=round(time.perf_counter() - started, 2),
                )
            )
            print(rows[-1], flush=True)
    lines = [
        f"Dynamic rules at n = {args.n} (memory 2x max m), seconds on this machine\n",
        "| family | rule | makespan / bound | method (s) | with validation (s) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = 1 / (1 - r["gap_to_bound"]) if r["gap_to_bound"] is not None else float("nan")
        lines.append(f"| {r['family']} | {r['method']} | {ratio:.4f} | {r['method_s']} | {r['total_s']} |")
    write(rows, args.out, "scaling", "\n".join(lines) + "\n")


def uniform_instances(args):
    """``(factor, n, seed, instance)`` for every uniform instance of --factors x --ladder x --seeds."""
    for factor in args.factors:
        for n in args.ladder:
            for seed in args.seeds:
                yield factor, n, seed, GENERATORS["uniform"](seed=seed, n=n, memory_factor=factor)


def frontier(args) -> None:
    rows = []
    for factor, n, seed, instance in uniform_instances(args):
        lower = bounds.best(instance)
        result = hpcsched.solve(instance, "dp", time_limit=args.time_limit)
        proven = result.status is Status.OPTIMAL
        rows.append(
            dict(
                factor=factor,
                n=n,
                seed=seed,
                bound=lower,
                status=result.status.value,
                objective=result.objective,
                dp_bound=result.bound,
                above=(result.objective - lower) / lower if proven else None,
                runtime_s=round(result.runtime_s, 2),
            )
        )
        print(rows[-1], flush=True)
    lines = [
        f"Optimum against bounds.best (uniform, dp within {args.time_limit:g} s, seeds {args.seeds})\n",
        "| memory | n | proven | optimum = bound | optimum above bound | mean / max excess of those above | unproven |",
        "|---|---|---|---|---|---|---|",
    ]
    for factor in args.factors:
        for n in args.ladder:
            mine = [r for r in rows if r["factor"] == factor and r["n"] == n]
            proven = [r for r in mine if r["above"] is not None]
            above = [r["above"] for r in proven if r["above"] > 0]
            excess = f"{100 * statistics.mean(above):.1f}% / {100 * max(above):.1f}%" if above else "–"
            lines.append(
                f"| {factor:g}x | {n} | {len(proven)}/{len(mine)} | {len(proven) - len(above)} | {len(above)} | "
                f"{excess} | {len(mine) - len(proven)} |"
            )
    lines += [
        "",
        "| memory | n | seed | bounds.best | objective | dp bound | status | time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['factor']:g}x | {r['n']} | {r['seed']} | {r['bound']} | {r['objective']} | {r['dp_bound']} | "
            f"{r['status']} | {r['runtime_s']} |"
        )
    write(rows, args.out, "frontier", "\n".join(lines) + "\n")


def search(args) -> None:
    """The local searches side by side at equal time: gap of each to `bounds.best` on the same instances."""
    methods = ("neh", "ils", "iterated-greedy")
    rows = []
    for factor, n, seed, instance in uniform_instances(args):
        lower = bounds.best(instance)
        for method in methods:
            result = hpcsched.solve(instance, method, time_limit=args.ils_time, seed=seed)
            rows.append(
                dict(
                    factor=factor,
                    n=n,
                    seed=seed,
                    method=method,
                    bound=lower,
                    objective=result.objective,
                    status=result.status.value,
                    above=(result.objective - lower) / lower,
                    runtime_s=round(result.runtime_s, 2),
                )
            )
            print(rows[-1], flush=True)
    lines = [
        f"Local searches at {args.ils_time:g} s each (uniform, seeds {args.seeds}): mean / worst excess over "
        "bounds.best, instances where the schedule meets the bound (proven optimal), and how often iterated "
        "greedy is better / equal / worse than ILS\n",
        "| memory | n | " + " | ".join(methods) + " | meets the bound (" + " / ".join(methods) + ") | IG vs ILS |",
        "|---|---|" + "---|" * len(methods) + "---|---|",
    ]
    for factor in args.factors:
        for n in args.ladder:
            mine = {m: [r for r in rows if r["factor"] == factor and r["n"] == n and r["method"] == m] for m in methods}
            cells = [
                f"{100 * statistics.mean(r['above'] for r in mine[m]):.2f}% / "
                f"{100 * max(r['above'] for r in mine[m]):.2f}%"
                for m in methods
            ]
            met = " / ".join(str(sum(r["status"] == Status.OPTIMAL.value for r in mine[m])) for m in methods)
            pairs = list(zip(mine["iterated-greedy"], mine["ils"], strict=True))
            duel = (
                f"{sum(a['objective'] < b['objective'] for a, b in pairs)} / "
                f"{sum(a['objective'] == b['objective'] for a, b in pairs)} / "
                f"{sum(a['objective'] > b['objective'] for a, b in pairs)}"
            )
            lines.append(f"| {factor:g}x | {n} | " + " | ".join(cells) + f" | {met} | {duel} |")
    write(rows, args.out, "search", "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("ladder", "gaps", "scaling", "frontier", "search"))
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--factors", type=float, nargs="+", default=[1.5, 2, 5])
    parser.add_argument("--ladder", type=int, nargs="+", default=[10, 15, 20, 30, 50, 75, 100, 150, 200])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--milp-max-n", type=int, default=100)
    parser.add_argument(
        "--every-rung",
        action="store_true",
        help="run every rung even after a failure (the largest proven n still stops at the first failure)",
    )
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--ils-time", type=float, default=2.0)
    args = parser.parse_args()
    if args.part == "ladder":
        ladder(args)
    elif args.part == "frontier":
        frontier(args)
    elif args.part == "search":
        search(args)
    elif args.part == "gaps":
        args.n = args.n or 15
        gaps(args)
    else:
        args.n = args.n or 100_000
        scaling(args)


if __name__ == "__main__":
    main()
