"""Tessel, the peer: run its search on one of its placements and check what it finds with our validator.

Tessel (MIT licence, github zhiqi-0/Tessel) searches "repetend" schedules of
pipeline blocks with Z3. It is not part of hpcsched and is never vendored: give
the path of your own checkout (``--tessel``) and a Python that has its
dependencies (``--python``, default this one; Tessel needs z3-solver,
more-itertools and numpy).

    .venv/bin/python benchmarks/pipeline/tessel_peer.py --tessel ~/Tessel --python ~/tessel-venv/bin/python \
        --case vshape --devices 4 --memory 4 --micro-batches 4 [--ours cpsat] [--json out.json]
    ... --case mshape --devices 4 --memory 6 --fast
    ... --case vshape --devices 2,4,6,8 --memory 2,4,6,8 --micro-batches 2,4,6,8 --cpu-limit 300 --ours cpsat

What it does: tessel_driver.py runs Tessel's ``Composer.compose_n`` (or
``compose_fast`` with ``--fast``) in a child process under ``--timeout``
(wall) and ``--cpu-limit`` (CPU seconds, the fair cap on a shared machine);
a list of D runs one comparison per D (``--memory`` and ``--micro-batches``
give one value or one per D); the
block graph Tessel built must equal our instance of the case
(instances/pipeline/make_tessel.py); Tessel's repetend becomes a periodic
solution (period P = Tessel's shift between repetitions, one micro-batch per
period: block g of micro-batch mid_g sits at step s_g, so its offset is
s_g + (max mid - mid_g) P) and its whole warm-up + repetend + cool-down plan a
makespan solution of its N micro-batches (start[mid][gid] = step); both go
through ``hpcsched.pipeline.validate``; ``--solutions DIR`` also writes them
with their instances as files (``<instance>.json`` and
``<instance>.tessel.json``) for ``hpcsched validate``. ``--ours`` solves the same period
instance with our methods for the side-by-side time. Prints one line per
check; ``--json`` writes the record. Exit 1 if a Tessel schedule fails our
validator, 2 if Tessel found nothing or failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hpcsched.core.io import write_instance, write_solution
from hpcsched.core.registry import run_method
from hpcsched.core.result import Result, Status
from hpcsched.pipeline import Instance, Solution, evaluate, validate

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "tessel_driver.py"
MAKER = HERE.parents[1] / "instances" / "pipeline" / "make_tessel.py"


def _maker() -> Any:
    spec = importlib.util.spec_from_file_location("make_tessel", MAKER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cpu_cap(seconds: float | None) -> Any:
    """A pre-exec hook that caps the child's CPU time (SIGXCPU at ``seconds``): fair on a loaded machine."""
    if not seconds:
        return None
    soft = max(1, math.ceil(seconds))

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))

    return cap


def run_tessel(args: argparse.Namespace) -> tuple[dict[str, Any] | None, str, float, float]:
    """Run the driver; (its record or None, the reason when None, child wall s, child CPU s)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "tessel.json"
        mode = "fast" if args.fast else str(args.micro_batches)
        command = [args.python, str(DRIVER), str(args.tessel), args.case, str(args.devices), str(args.memory), mode]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [*command, str(out)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                timeout=args.timeout,
                check=False,
                preexec_fn=_cpu_cap(args.cpu_limit),
            )
        except subprocess.TimeoutExpired:
            return None, f"timeout after {args.timeout:g} s wall", time.perf_counter() - started, float("nan")
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode == -signal.SIGXCPU and args.cpu_limit:  # only RLIMIT_CPU sends it (rusage may read less)
            return None, f"killed at the CPU limit of {args.cpu_limit:g} s", wall, cpu
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            return None, f"Tessel failed: {lines[-1] if lines else f'exit {done.returncode}'}", wall, cpu
        return json.loads(out.read_text()), "", wall, cpu


def same_graph(instance: Instance, micro: dict[str, Any]) -> str:
    """Empty if Tessel's block graph is our instance's (block by block, edge by edge), else the first difference."""
    theirs = micro["blocks"]
    if len(theirs) != instance.n_blocks:
        return f"Tessel has {len(theirs)} blocks, our instance {instance.n_blocks}"
    for gid, (block, other) in enumerate(zip(instance.blocks, theirs, strict=True)):
        ours = (list(block.devices), block.duration, block.memory, block.kind)
        tessel = (other["devices"], other["span"], other["memory"], other["btype"][0].upper())
        if ours != tessel:
            return f"block {gid}: ours (devices, span, memory, kind) {ours}, Tessel's {tessel}"
    edges = sorted([edge.source, edge.target] for edge in instance.edges)
    if edges != micro["edges"]:
        return f"edges differ: ours {edges}, Tessel's {micro['edges']}"
    if any(edge.delay for edge in instance.edges):
        return "our instance has communication delays; Tessel has none"
    return ""


def periodic_solution(record: dict[str, Any]) -> Solution:
    """Tessel's repetend as our periodic solution with one micro-batch per period."""
    first, last = record["repetend"]["start"], record["repetend"]["end"]
    period = record["repetend"]["shift"]
    rows = [row for row in record["blocks"] if first <= row["step"] < last]
    top = max(row["mid"] for row in rows)
    offset = [0] * len(record["micro"]["blocks"])
    for row in rows:
        offset[row["gid"]] = row["step"] - first + (top - row["mid"]) * period
    if sorted(row["gid"] for row in rows) != list(range(len(offset))):
        raise ValueError("Tessel's repetend does not hold every block exactly once")
    return Solution.periodic(period, [offset])


def makespan_solution(record: dict[str, Any]) -> Solution:
    """Tessel's whole plan (warm-up, repetend, cool-down) as our makespan solution of its micro-batches."""
    start = [[-1] * len(record["micro"]["blocks"]) for _ in range(record["micro_batches"])]
    for row in record["blocks"]:
        start[row["mid"]][row["gid"]] = row["step"]
    return Solution.makespan(start)


def check(instance: Instance, solution: Solution) -> dict[str, Any]:
    """Our validator's verdict and objective on one converted Tessel schedule."""
    violations = validate(instance, solution)
    found: dict[str, Any] = {"valid": not violations, "violations": [str(v) for v in violations[:5]]}
    if not violations:
        values = evaluate(instance, solution)
        peaks = [values[f"peak_memory_{d}"] for d in range(instance.devices)]
        found.update(objective=values["objective"], peak_memory=peaks)
    return found


def write_files(folder: Path, instance: Instance, solution: Solution, wall: float) -> None:
    """The instance and Tessel's schedule as files that ``hpcsched validate`` reads."""
    folder.mkdir(parents=True, exist_ok=True)
    write_instance(instance, folder / f"{instance.name}.json")
    objective = evaluate(instance, solution)["objective"]
    result = Result("pipeline", "tessel", Status.FEASIBLE, objective, solution=solution, runtime_s=wall, solver="Z3")
    write_solution(instance, result, folder / f"{instance.name}.tessel.json")


def ours(instance: Instance, methods: list[str], time_limit: float) -> list[dict[str, Any]]:
    """Our methods on the same period instance, each under ``time_limit`` (CPU time of this process)."""
    rows = []
    for method in methods:
        cpu = time.process_time()
        result = run_method(instance, method, time_limit=time_limit)
        rows.append(
            {
                "method": method,
                "status": result.status.name,
                "objective": result.objective,
                "bound": result.bound,
                "runtime_s": round(result.runtime_s, 3),
                "cpu_s": round(time.process_time() - cpu, 3),
                "notes": list(result.notes),
            }
        )
    return rows


def compare(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    maker = _maker()
    memory = args.memory
    period_instance = maker.tessel_instance(args.case, args.devices, memory)
    record, reason, wall, cpu = run_tessel(args) if not args.ours_only else (None, "not run (--ours-only)", 0.0, 0.0)
    summary: dict[str, Any] = {
        "case": args.case,
        "devices": args.devices,
        "memory": memory,
        "search": "compose_fast" if args.fast else f"compose_n(N={args.micro_batches})",
        "tessel_wall_s": round(wall, 3),
        "tessel_cpu_s": round(cpu, 3),
        "tessel_caps": {"wall_s": args.timeout, "cpu_s": args.cpu_limit},
    }
    code = 0
    if record is None:
        summary["tessel"] = reason
        code = 0 if args.ours_only else 2
    else:
        summary["tessel_search_wall_s"] = round(record["search_wall_s"], 3)
        summary["tessel_search_cpu_s"] = round(record["search_cpu_s"], 3)
        summary["same_graph"] = same_graph(period_instance, record["micro"]) or "yes"
        if "repetend" not in record:
            summary["tessel"] = "no schedule"
            code = 2
        elif summary["same_graph"] == "yes":
            makespan_instance = maker.tessel_instance(args.case, args.devices, memory, record["micro_batches"])
            summary["tessel_validate"] = record["tessel_validate"]
            summary["tessel_peak_memory"] = record["peak_memory"]
            periodic, whole = periodic_solution(record), makespan_solution(record)
            summary["period"] = check(period_instance, periodic)
            summary["makespan"] = check(makespan_instance, whole)
            if args.solutions is not None:
                write_files(args.solutions, period_instance, periodic, record["search_wall_s"])
                write_files(args.solutions, makespan_instance, whole, record["search_wall_s"])
            summary["makespan"]["micro_batches"] = record["micro_batches"]
            code = 0 if summary["period"]["valid"] and summary["makespan"]["valid"] else 1
    if args.ours:
        summary["ours"] = ours(period_instance, args.ours.split(","), args.time_limit)
    return summary, code


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def runs(args: argparse.Namespace) -> list[argparse.Namespace]:
    """One namespace per D of ``--devices``; a list of ``--memory`` or ``--micro-batches`` pairs with it."""
    devices = _counts(args.devices)
    paired = {}
    for name in ("memory", "micro_batches"):
        given = _counts(getattr(args, name)) if getattr(args, name) is not None else [None]
        if len(given) not in (1, len(devices)):
            raise SystemExit(f"--{name.replace('_', '-')}: one value or one per D of --devices ({len(devices)})")
        paired[name] = given * len(devices) if len(given) == 1 else given
    return [
        argparse.Namespace(**{**vars(args), "devices": d, "memory": m, "micro_batches": n})
        for d, m, n in zip(devices, paired["memory"], paired["micro_batches"], strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tessel", type=Path, required=True, help="a checkout of github zhiqi-0/Tessel")
    parser.add_argument("--python", default=sys.executable, help="a Python with z3-solver and more-itertools")
    parser.add_argument("--case", required=True, help="a placement of cases_tessel.py (vshape, mshape, ...)")
    parser.add_argument("--devices", required=True, help="D, or a comma-separated list of D (one run each)")
    parser.add_argument("--memory", required=True, help="Tessel's --memory, the limit of every device (one or per D)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--micro-batches", help="Tessel's --nmicros (compose_n): one, or one per D")
    mode.add_argument("--fast", action="store_true", help="Tessel's --fast-search (compose_fast)")
    parser.add_argument("--timeout", type=float, default=600.0, help="wall seconds for Tessel's child process")
    parser.add_argument("--cpu-limit", type=float, help="CPU seconds for Tessel's child process (RLIMIT_CPU)")
    parser.add_argument("--ours", default="", help="comma-separated pipeline methods to run on the period instance")
    parser.add_argument("--ours-only", action="store_true", help="skip Tessel (our side at D past its reach)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds for each of our methods")
    parser.add_argument("--json", type=Path, help="write the record here (a list of records for several D)")
    parser.add_argument("--solutions", type=Path, help="write the instances and Tessel's schedules into this folder")
    args = parser.parse_args()
    if not (args.tessel / "tessel" / "schedule" / "composer.py").is_file():
        parser.exit(1, f"{args.tessel}: no tessel/schedule/composer.py: not a Tessel checkout (--tessel)\n")
    plan, records, code = runs(args), [], 0
    for one in plan:
        try:
            summary, status = compare(one)
        except ValueError as error:  # an unknown case or a D the case does not take
            parser.exit(1, f"--case {one.case} --devices {one.devices}: {error}\n")
        records.append(summary)
        code = max(code, status)
        print(json.dumps(summary, indent=1), flush=True)
        if args.json is not None:  # rewritten after every run: a killed sweep keeps what it measured
            args.json.write_text(json.dumps(records if len(plan) > 1 else records[0], indent=1) + "\n")
    sys.exit(code)


if __name__ == "__main__":
    main()
