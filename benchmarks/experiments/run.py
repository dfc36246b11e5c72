"""Throughput of the experiments engine on trivial runs.

Each run is the toy problem's ``first`` method on a 10-value instance: the
method itself takes microseconds, so the wall-clock time per run is the
engine's overhead: building the task, sending it to a runner child over a
pipe, rebuilding the instance there (cached per instance), `run_method` with
validation, sending the outcome back, and appending the row to a CSV file with
fsync. Runs are ``instances x seeds`` distinct tasks (distinct run keys).

Usage::

    PYTHONPATH=src python benchmarks/experiments/run.py --runs 10000 --jobs 2 \
        --executors local dask --out benchmarks/experiments/results

Writes ``throughput.csv`` and ``throughput.md`` in ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import tempfile
import time
import warnings
from pathlib import Path

import hpcsched
from hpcsched.experiments import OversubscriptionWarning, make_task, open_store, run_tasks
from hpcsched.experiments.runs import load_plugins

#: The engine's toy problem, a test fixture loaded as a plugin file.
TOY = str(Path(__file__).resolve().parents[2] / "tests" / "experiments" / "toy.py")


def generate_uniform(seed: int, n: int):
    """A toy instance (the plugin's own generator)."""
    load_plugins([TOY])
    return hpcsched.get_problem("toy").generators["uniform"](seed=seed, n=n)


def build_tasks(runs: int) -> tuple[list[dict], float]:
    instances = [generate_uniform(seed=i, n=10) for i in range(100)]
    seeds_per_instance = -(-runs // len(instances))
    started = time.perf_counter()
    tasks = [
        make_task(instance, "first", seed=seed, time_limit=10, plugins=[TOY])
        for seed in range(seeds_per_instance)
        for instance in instances
    ][:runs]
    return tasks, time.perf_counter() - started


def in_process_baseline(runs: int) -> float:
    """Seconds per run of calling hpcsched.solve directly (no engine)."""
    instance = generate_uniform(seed=0, n=10)
    started = time.perf_counter()
    for seed in range(runs):
        hpcsched.solve(instance, "first", time_limit=10, seed=seed)
    return (time.perf_counter() - started) / runs


def measure(tasks: list[dict], executor: str, jobs: int, folder: Path) -> dict:
    store = open_store(folder / f"{executor}-{jobs}.csv")
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OversubscriptionWarning)
        summary = run_tasks(tasks, store=store, executor=executor, jobs=jobs, progress=False)
    wall = time.perf_counter() - started
    assert summary.ran == len(tasks), (summary.ran, len(tasks))
    assert all(row["status"] == "FEASIBLE" for row in summary.rows)
    return {
        "executor": executor,
        "jobs": jobs,
        "runs": len(tasks),
        "wall_s": round(wall, 2),
        "runs_per_s": round(len(tasks) / wall, 1),
        "ms_per_run": round(1000 * wall / len(tasks), 3),
        "ms_per_run_per_worker": round(1000 * wall * jobs / len(tasks), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--executors", nargs="+", default=["local", "dask"], choices=["local", "dask"])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()

    load_plugins([TOY])
    tasks, build_s = build_tasks(args.runs)
    baseline = in_process_baseline(min(args.runs, 2000))
    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        for executor in args.executors:
            for jobs in args.jobs:
                line = measure(tasks, executor, jobs, Path(scratch))
                print(line, flush=True)
                lines.append(line)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "throughput.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(lines[0]))
        writer.writeheader()
        writer.writerows(lines)
    header = (
        "| executor | jobs | runs | wall (s) | runs/s | ms per run | ms per run per worker |\n"
        "|---|---|---|---|---|---|---|\n"
    )
    body = "".join(
        f"| {row['executor']} | {row['jobs']} | {row['runs']} | {row['wall_s']} | {row['runs_per_s']} | "
        f"{row['ms_per_run']} | {row['ms_per_run_per_worker']} |\n"
        for row in lines
    )
    context = (
        f"\nMachine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
        f"Building the {len(tasks)} tasks (instance documents + sha256): "
        f"{1000 * build_s / len(tasks):.3f} ms per task. "
        f"In-process run_method without the engine: {1000 * baseline:.3f} ms per run.\n"
    )
    (args.out / "throughput.md").write_text(header + body + context)
    print(header + body + context)


if __name__ == "__main__":
    main()
