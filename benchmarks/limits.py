"""Does every method honour its time limit at every size? The worst ratio over all problems.

Run from the repository root:

    python benchmarks/limits.py                       # every problem, 10^3/10^4/10^5, -t 1 and -t 5
    python benchmarks/limits.py --sizes 1000 --limits 1 --problems transfers,hetero
    python benchmarks/limits.py --families all         # every generator family, not one per problem

For each problem, family (by default the one per problem in `FAMILIES`) and size, the
instance is generated once (seed 0) into a scratch folder; a child process reads it and
runs each method with ``hpcsched.solve(instance, method, time_limit=T)``, timing that call
alone (the method and the registry's validation of its answer; not the start-up, not the
reading). A method that has not answered after ``10 T + 60`` s is killed and recorded as
KILLED, and the child restarts with the next method. The rule checked is the project's:
every method returns within ``1.2 T + 2`` s. A generator that refuses a size (its
documented maximum) is recorded as REFUSED, not as a failure.

Output: one CSV row per run (``--csv``, default benchmarks/results/limits.csv) and, at
the end, the worst wall/limit ratio, the runs past the rule, and a table per problem. The
wall clock is the only clock that matters for a user, so this is measured here and not
in the tests (which use tests/workclock.py). Times depend on the machine's load: run it on
a quiet machine and say what else ran.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: (problem, family) -> the generator's parameters for about ``n`` items (tasks, layers, kernels, ...).
FAMILIES: dict[tuple[str, str], Callable[[int], dict[str, Any]]] = {
    ("transfers", "uniform"): lambda n: {"n": n},
    ("transfers", "hf-like"): lambda n: {"n": n},
    ("offload", "random"): lambda n: {"n": n},
    ("offload", "transformer"): lambda n: {"n": n},
    # the densest instance the family makes at that size (its cap: 2,000,000 co-run pairs)
    ("coschedule", "uniform"): lambda n: {"n": n, "density": min(1.0, 1_900_000 / (n * (n - 1) / 2))},
    ("coschedule", "sm-model"): lambda n: {"n": n},
    ("burstbuffer", "periodic"): lambda n: {"n": n},
    ("burstbuffer", "mix"): lambda n: {"n": n},
    ("locality", "uniform"): lambda n: {"n": n},
    ("locality", "rack-aware"): lambda n: {"n": n},
    ("checkpoint", "random"): lambda n: {"n": n},
    ("checkpoint", "homogeneous"): lambda n: {"n": n, "bandwidth": 20, "latency": 1},
    ("treemem", "random-tree"): lambda n: {"n": n},
    ("treemem", "parallel-tree"): lambda n: {"n": n},
    ("treemem", "random-dag"): lambda n: {"n": n},
    # edges drawn between consecutive layers: at most ~900,000 (the family's cap is 10^6 edges)
    ("hetero", "layered"): lambda n: {
        "n": n,
        "layers": max(2, round(n**0.5)),
        "edge_probability": min(0.3, 900_000 / ((max(2, round(n**0.5)) - 1) * (n / max(2, round(n**0.5))) ** 2)),
    },
    ("hetero", "fork-join"): lambda n: {"phases": max(1, n // 100), "width": min(n, 100)},
    ("partition", "training"): lambda n: {"nodes": n},
    ("partition", "chain"): lambda n: {"nodes": n},
    ("pipeline", "uniform"): lambda n: {"n": n},
}

#: The family each problem is swept with by default (the others with ``--families all``).
DEFAULT_FAMILY = {
    "transfers": "uniform",
    "offload": "random",
    "coschedule": "uniform",
    "burstbuffer": "periodic",
    "locality": "uniform",
    "checkpoint": "random",
    "treemem": "random-tree",
    "hetero": "layered",
    "partition": "training",
    "pipeline": "uniform",
}

FIELDS = ["problem", "family", "size", "method", "limit_s", "status", "wall_s", "cpu_s", "ratio", "within_rule", "note"]


def within_rule(wall: float, limit: float) -> bool:
    """The project's rule: a method returns within 1.2 x its limit + 2 s."""
    return wall <= 1.2 * limit + 2.0


@dataclass(frozen=True)
class Case:
    """One instance of the sweep: a problem's family at a size, generated once."""

    problem: str
    family: str
    size: int
    path: Path | None
    refused: str = ""


def generate(problem: str, family: str, size: int, folder: Path, timeout: float) -> Case:
    """Write the seed-0 instance of ``family`` at ``size`` (a child, killed after ``timeout`` s)."""
    path = folder / f"{problem}-{family}-{size}.json"
    if path.exists():
        return Case(problem, family, size, path)
    params = FAMILIES[(problem, family)](size)
    command = [sys.executable, "-m", "hpcsched.cli", "generate", problem, "-f", family, "--seed", "0", "-o", str(path)]
    for key, value in params.items():
        command += ["--n", str(value)] if key == "n" else ["-p", f"{key}={value}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Case(problem, family, size, None, f"generation took over {timeout:.0f} s")
    if done.returncode != 0:
        return Case(problem, family, size, None, done.stderr.strip().splitlines()[-1] if done.stderr else "refused")
    return Case(problem, family, size, path)


CHILD = r"""
import json, resource, sys, time
import hpcsched
instance = hpcsched.read_instance(sys.argv[1])
limit = float(sys.argv[2])
print(json.dumps({"ready": True}), flush=True)
for method in sys.argv[3:]:
    cpu = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        result = hpcsched.solve(instance, method, time_limit=limit)
        status, note = str(result.status.value), "; ".join(result.notes)[:200]
    except Exception as error:  # recorded, not raised: the sweep goes on
        status, note = "EXCEPTION", f"{type(error).__name__}: {error}"[:200]
    wall = time.perf_counter() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu + (used.ru_utime - children.ru_utime) + (used.ru_stime - children.ru_stime)
    print(json.dumps({"method": method, "status": status, "wall": wall, "cpu": cpu, "note": note}), flush=True)
"""


def _read_line(process: subprocess.Popen[str], timeout: float) -> str | None:
    """One line of the child's output, or None after ``timeout`` seconds or at its end."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], max(0.0, timeout))
    if not ready:
        return None
    line = process.stdout.readline()
    return line or None


def run_methods(case: Case, methods: list[str], limit: float, read_timeout: float) -> Iterator[dict[str, Any]]:
    """Rows for each method on ``case``: one child for the run, restarted after a kill."""
    pending = list(methods)
    while pending:
        command = [sys.executable, "-c", CHILD, str(case.path), str(limit), *pending]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = _read_line(process, read_timeout)
        if ready is None:
            process.kill()
            process.wait()
            for method in pending:
                yield _row(case, method, limit, "UNREADABLE", float("nan"), float("nan"), "reading took too long")
            return
        while pending:
            method = pending[0]
            line = _read_line(process, 10 * limit + 60)
            if line is None:
                process.kill()
                process.wait()
                yield _row(case, method, limit, "KILLED", 10 * limit + 60, float("nan"), "no answer: killed")
                pending.pop(0)
                break
            answer = json.loads(line)
            yield _row(case, method, limit, answer["status"], answer["wall"], answer["cpu"], answer["note"])
            pending.pop(0)
        else:
            process.wait()


def _row(case: Case, method: str, limit: float, status: str, wall: float, cpu: float, note: str) -> dict[str, Any]:
    ratio = wall / limit
    return {
        "problem": case.problem,
        "family": case.family,
        "size": case.size,
        "method": method,
        "limit_s": limit,
        "status": status,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "ratio": round(ratio, 3),
        "within_rule": within_rule(wall, limit),
        "note": note,
    }


def _methods_of(problem: str) -> list[str]:
    import hpcsched

    return [entry.name for entry in hpcsched.methods(problem)]


def _families(problems: list[str], which: str) -> list[tuple[str, str]]:
    if which == "all":
        return [key for key in FAMILIES if key[0] in problems]
    if which == "default":
        return [(problem, DEFAULT_FAMILY[problem]) for problem in problems if problem in DEFAULT_FAMILY]
    chosen = [tuple(item.split(":", 1)) for item in which.split(",")]
    unknown = [key for key in chosen if key not in FAMILIES]
    if unknown:
        raise SystemExit(f"--families: unknown {unknown} (known: {sorted(FAMILIES)})")
    return chosen  # type: ignore[return-value]


def report(rows: list[dict[str, Any]]) -> str:
    """The summary printed at the end: worst ratio, runs past the rule, per-problem worst."""
    timed = [row for row in rows if row["status"] not in ("REFUSED", "UNREADABLE")]
    lines = []
    if timed:
        worst = max(timed, key=lambda row: row["ratio"])
        lines.append(
            f"worst ratio wall/limit: {worst['ratio']:.2f} ({worst['problem']} {worst['family']} n={worst['size']} "
            f"{worst['method']} -t {worst['limit_s']:g}: {worst['wall_s']:.2f} s, {worst['status']})"
        )
    late = [row for row in timed if not row["within_rule"]]
    lines.append(f"{len(timed)} runs, {len(late)} past 1.2 x limit + 2 s")
    for row in late:
        lines.append(
            f"  LATE {row['problem']} {row['family']} n={row['size']} {row['method']} -t {row['limit_s']:g}: "
            f"{row['wall_s']:.2f} s wall, {row['cpu_s']:.2f} s CPU, {row['status']}"
        )
    lines.append("")
    lines.append("| problem | runs | worst wall / limit | worst run | past the rule |")
    lines.append("|---|---|---|---|---|")
    for problem in dict.fromkeys(row["problem"] for row in rows):
        mine = [row for row in timed if row["problem"] == problem]
        refused = sorted({row["size"] for row in rows if row["problem"] == problem and row["status"] == "REFUSED"})
        if not mine:
            lines.append(f"| {problem} | 0 | | | refused sizes {refused} |")
            continue
        worst = max(mine, key=lambda row: row["ratio"])
        run = f"{worst['method']} n={worst['size']} -t {worst['limit_s']:g}"
        late_count = sum(not row["within_rule"] for row in mine)
        extra = f" (generator refused n = {', '.join(map(str, refused))})" if refused else ""
        lines.append(f"| {problem} | {len(mine)} | {worst['ratio']:.2f} | {run} | {late_count}{extra} |")
    return "\n".join(lines)


def _documented_maximum(refusal: str) -> int | None:
    """The size in a generator's "at most N ..." refusal (its documented maximum), or None."""
    match = re.search(r"at most ([0-9,]+) ", refusal)
    return int(match.group(1).replace(",", "")) if match else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", default=",".join(DEFAULT_FAMILY), help="comma-separated problems")
    parser.add_argument("--families", default="default", help="'default', 'all' or problem:family,...")
    parser.add_argument("--methods", default="", help="comma-separated methods (default: every method)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated sizes")
    parser.add_argument("--limits", default="1,5", help="comma-separated time limits in seconds")
    parser.add_argument("--csv", type=Path, default=ROOT / "benchmarks" / "results" / "limits.csv")
    parser.add_argument("--scratch", type=Path, default=None, help="folder for the generated instances (kept)")
    parser.add_argument("--generate-timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    problems = [name for name in args.problems.split(",") if name]
    sizes = [int(size) for size in args.sizes.split(",")]
    limits = [float(limit) for limit in args.limits.split(",")]
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="hpcsched-limits-"))
    scratch.mkdir(parents=True, exist_ok=True)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with args.csv.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        for problem, family in _families(problems, args.families):
            methods = [m for m in args.methods.split(",") if m] or _methods_of(problem)
            done: set[int] = set()
            for wanted in sizes:
                size = wanted
                started = time.perf_counter()
                case = generate(problem, family, size, scratch, args.generate_timeout)
                cap = _documented_maximum(case.refused) if case.path is None else None
                if cap is not None and cap < size and cap not in done and cap > max(done, default=0):
                    # "at most N": run the family's largest instance instead, once
                    print(f"{problem} {family} n={size}: refused, running its largest size {cap}", flush=True)
                    size = cap
                    case = generate(problem, family, size, scratch, args.generate_timeout)
                made = time.perf_counter() - started
                if case.path is None:
                    row = _row(case, "-", 1.0, "REFUSED", 0.0, 0.0, case.refused)
                    rows.append(row)
                    writer.writerow(row)
                    print(f"{problem} {family} n={size}: generator refused ({case.refused})", flush=True)
                    continue
                done.add(size)
                megabytes = os.path.getsize(case.path) / 1e6
                print(f"{problem} {family} n={size}: generated in {made:.1f} s, {megabytes:.1f} MB", flush=True)
                for limit in limits:
                    for row in run_methods(case, methods, limit, read_timeout=args.generate_timeout):
                        rows.append(row)
                        writer.writerow(row)
                        handle.flush()
                        flag = "" if row["within_rule"] else "  <-- past 1.2 x limit + 2 s"
                        print(
                            f"  -t {limit:g} {row['method']:<28} {row['status']:<24} {row['wall_s']:8.2f} s "
                            f"(CPU {row['cpu_s']:.2f}){flag}",
                            flush=True,
                        )
    print()
    print(report(rows))
    return 0 if all(row["within_rule"] for row in rows if row["status"] != "REFUSED") else 1


if __name__ == "__main__":
    raise SystemExit(main())
