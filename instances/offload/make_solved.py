"""Solve every shipped offload instance with the default exact method and write solved.json.

Run from the repository root (takes about N x time limit):
    PYTHONPATH=src python instances/offload/make_solved.py --time-limit 20
Options of the method: ``--opt key=value`` (value parsed as JSON), e.g.
    PYTHONPATH=src python instances/offload/make_solved.py --time-limit 60 --only vgg16-pcie3 \
        --opt relaxation_fraction=0.4
Existing entries are kept unless the new run is better (lower objective or higher bound);
the bound and the objective of an entry may come from different runs of the same method.
Each entry records the sha256 of the instance file it solved (``instance_sha256``): an entry
of another version of the file (or one without the hash) is replaced, never merged.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.io import atomic_write_text, file_sha256, read_instance
from hpcsched.cli import parse_assignments
from hpcsched.core.registry import run_method

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--method", default="cpsat")
    parser.add_argument("--only", default="", help="substring of the file names to (re)solve")
    parser.add_argument("--opt", action="append", default=[], help="method option key=value (JSON value)")
    args = parser.parse_args()
    try:
        options = parse_assignments(args.opt, "--opt")
    except InvalidInstanceError as error:
        parser.error(str(error))
    target = HERE / "solved.json"
    solved = json.loads(target.read_text()) if target.exists() else {}
    # Entries of instance files that are no longer shipped go.
    solved = {name: entry for name, entry in solved.items() if (HERE / name).exists()}
    for path in sorted(HERE.glob("*.json")):
        if path.name == "solved.json" or args.only not in path.name:
            continue
        instance = read_instance(path)
        result = run_method(instance, args.method, time_limit=args.time_limit, seed=0, **options)
        entry = {
            "objective": result.objective,
            "bound": result.bound,
            "status": result.status.value,
            "method": result.method,
            "solver": result.solver,
            "date": datetime.date.today().isoformat(),
            "runtime_s": round(result.runtime_s, 2),
            "time_limit_s": args.time_limit,
            **({"options": options} if options else {}),
            "compute_time": instance.compute_time,
            "instance_sha256": file_sha256(path),
        }
        old = solved.get(path.name)
        if old is not None and old.get("instance_sha256") != entry["instance_sha256"]:
            old = None  # solved another version of the instance: its values say nothing of this one
        if old is not None and old.get("objective") is not None and result.objective is not None:
            if old["status"] == "OPTIMAL" or (old["objective"] <= result.objective and (old["bound"] or 0) >= (result.bound or 0)):
                entry = old
            elif old["objective"] < result.objective or (old["bound"] or 0) > (result.bound or 0):
                # Each run is better on one side: keep the best of both, and say where each came from.
                entry["objective"] = min(old["objective"], result.objective)
                entry["bound"] = max(old["bound"] or 0, result.bound or 0) or None
                entry["status"] = "OPTIMAL" if entry["bound"] is not None and entry["bound"] >= entry["objective"] else "FEASIBLE"
                entry["merged_with"] = {key: old.get(key) for key in ("objective", "bound", "method", "runtime_s",
                                                                      "time_limit_s", "options") if key in old}
        solved[path.name] = entry
        gap = None if not entry["bound"] else (entry["objective"] - entry["bound"]) / entry["objective"]
        print(f"{path.name:32s} {entry['status']:9s} obj={entry['objective']} bound={entry['bound']} gap={gap}", flush=True)
        atomic_write_text(target, json.dumps(solved, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
