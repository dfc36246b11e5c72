"""Pipeline benchmarks. Prints Markdown tables (see benchmarks/pipeline/README.md).

    .venv/bin/python benchmarks/pipeline/run.py --part gaps [--quick] [--time-limit S]

Parts:

* ``gaps`` — every heuristic on real layer profiles (PipeDream's V100 graphs
  from ../shared/data when present, the H100 chains of instances/checkpoint),
  cut into D stages by PipeDream's DP, at several D, N, memory limits and
  with/without the B/W split, against cpsat's optimum (or its best bound
  when the limit stops it first).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hpcsched
from hpcsched.core.result import Status
from hpcsched.pipeline.importers import import_checkpoint_chain, import_pipedream

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data"))
#: (label, importer, path) of the layer chains.
CHAINS = (
    ("resnet50-v100", "pipedream", SHARED / "pipedream" / "resnet50.graph.txt"),
    ("vgg16-v100", "pipedream", SHARED / "pipedream" / "vgg16.graph.txt"),
    ("gnmt-v100", "pipedream", SHARED / "pipedream" / "gnmt.graph.txt"),
    ("resnet50-h100", "checkpoint-chain", ROOT / "instances" / "checkpoint" / "resnet50-h100-b50.json"),
    ("vgg16-h100", "checkpoint-chain", ROOT / "instances" / "checkpoint" / "vgg16-h100-link-b30.json"),
    ("transformer12-h100", "checkpoint-chain", ROOT / "instances" / "checkpoint" / "transformer12-h100-b50.json"),
)
MAKESPAN_HEURISTICS = (
    "sequential",
    "gpipe",
    "1f1b",
    "interleaved-1f1b",
    "zb-h1",
    "zb-h2",
    "greedy-backward-first",
    "greedy-critical-path",
    "greedy-memory-tight",
    "local-search",
)
PERIOD_HEURISTICS = ("sequential", "1f1b", "zb-h2", "greedy-backward-first", "greedy-critical-path")


def _instances(quick: bool, objective: str) -> Iterator[tuple[str, Any]]:
    """(label, instance) of the grid (module docstring)."""
    if objective == "makespan":
        grid = [(d, n) for d in (4, 8) for n in ((8,) if quick else (8, 16))]
        memories: tuple[float | None, ...] = (None, 2)
    else:
        grid = [(d, 1) for d in (2, 4)]
        memories = (None, 1.5)
    for label, importer, path in CHAINS:
        if not path.exists():
            print(f"<!-- skipped {label}: {path} is absent -->")
            continue
        read = import_pipedream if importer == "pipedream" else import_checkpoint_chain
        for devices, n in grid:
            for memory in memories:
                for split in (False, True):
                    options: dict[str, Any] = {"devices": devices, "micro_batches": n, "split": split}
                    options["objective"] = objective
                    if memory is not None:
                        options["memory_factor"] = memory
                    tag = f"{label} D={devices} N={n} {'unl' if memory is None else f'x{memory}'}"
                    yield tag + (" split" if split else ""), read(path, **options)


def _cell(value: float | None, reference: float, proven: bool) -> str:
    if value is None:
        return "–"
    gap = 100 * (value - reference) / reference
    return f"{gap:.1f}" if proven else f"≤{gap:.1f}"


def gaps(quick: bool, time_limit: float, objective: str) -> None:
    """One table row per instance: each heuristic's gap (%) to cpsat's optimum, then a summary per heuristic."""
    methods = MAKESPAN_HEURISTICS if objective == "makespan" else PERIOD_HEURISTICS
    print(f"\n### Gaps (%) to the optimum, {objective} (cpsat -t {time_limit:g}; ≤: to cpsat's bound, unproven)\n")
    print("| instance | jobs | cpsat | optimum or bound | " + " | ".join(methods) + " |")
    print("|---|---|---|---|" + "---|" * len(methods))
    summary: dict[str, list[float]] = {m: [] for m in methods}
    optimal: dict[str, int] = dict.fromkeys(methods, 0)
    for tag, instance in _instances(quick, objective):
        started = time.perf_counter()
        exact = hpcsched.solve(instance, "cpsat", time_limit=time_limit)
        cp_time = time.perf_counter() - started
        results = {m: hpcsched.solve(instance, m, time_limit=time_limit) for m in methods}
        values = [r.objective for r in (*results.values(), exact) if r.objective is not None]
        proven = exact.status is Status.OPTIMAL
        reference = exact.objective if proven else (exact.bound or min(values))
        cells = []
        for m in methods:
            value = results[m].objective
            cells.append(_cell(value, reference, proven))
            if value is not None and proven:
                summary[m].append(100 * (value - reference) / reference)
                optimal[m] += value <= reference
        status = f"{exact.status.name.lower()} {cp_time:.1f}s"
        jobs = instance.micro_batches * instance.n_blocks
        print(f"| {tag} | {jobs} | {status} | {reference:.0f} | " + " | ".join(cells) + " |", flush=True)
    print("\nSummary over the instances cpsat solved to optimality (gap %; applicable = returned a schedule):\n")
    print("| heuristic | applicable | optimal | mean gap | median gap | max gap |")
    print("|---|---|---|---|---|---|")
    for m in methods:
        found = summary[m]
        if not found:
            print(f"| {m} | 0 | 0 | – | – | – |")
            continue
        mean, median, worst = statistics.mean(found), statistics.median(found), max(found)
        print(f"| {m} | {len(found)} | {optimal[m]} | {mean:.1f} | {median:.1f} | {worst:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("gaps", "all"), default="all")
    parser.add_argument("--quick", action="store_true", help="fewer configurations")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds per method and instance")
    parser.add_argument("--objective", choices=("makespan", "period", "both"), default="both")
    args = parser.parse_args()
    if args.part in ("gaps", "all"):
        for objective in ("makespan", "period") if args.objective == "both" else (args.objective,):
            gaps(args.quick, args.time_limit, objective)


if __name__ == "__main__":
    main()
