"""Round-3 experiments on the VGG16 / PCIe 3 gaps (see README.md, "Round 3").

    PYTHONPATH=src:benchmarks/offload python benchmarks/offload/round3.py --time-limit 60

For each instance (default vgg16-pcie3-60 and vgg16-pcie3-40), one after the
other (never two solves at once, 2 CP-SAT workers, seed 0):

- ``local-search``: the `local-search` method at 5 s (now with the channel-order
  phase, `heuristics.ordered_iterated_search`), through run_method;
- ``cpsat``: the default exact method (run_method, validated);
- ``cpsat+relax``: the same with ``relaxation_fraction=1.0, use_lp=False``
  (the whole time after the heuristics goes to the instant relaxation:
  relax-and-repair incumbent, then destructive lower bounding), the
  configuration `make_solved.py` used for these two entries;
- ``instant-relaxation``: `bounds.instant_relaxation` alone (plain
  minimization, no destructive probes), hinted with the local-search
  schedule: its proven bound and the best relaxed objective (a relaxed
  solution need not be a valid schedule).

Results go to results/round3.{csv,md}.
"""

from __future__ import annotations

import argparse
import time

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.offload import bounds

from run import INSTANCES, _write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--instances", default="vgg16-pcie3-60,vgg16-pcie3-40")
    parser.add_argument("--experiments", default="local-search,cpsat,cpsat+relax,instant-relaxation")
    args = parser.parse_args()
    rows = []
    for name in args.instances.split(","):
        instance = read_instance(INSTANCES / f"{name}.json")
        incumbent = None
        for experiment in args.experiments.split(","):
            started = time.perf_counter()
            status, objective, bound, detail = "-", None, None, ""
            limit = args.time_limit
            if experiment == "local-search":
                limit = 5.0
                result = run_method(instance, "local-search", time_limit=limit, seed=0)
                incumbent = result
                status, objective, bound = result.status.value, result.objective, result.bound
            elif experiment in ("cpsat", "cpsat+relax"):
                options = {"relaxation_fraction": 1.0, "use_lp": False} if experiment == "cpsat+relax" else {}
                result = run_method(instance, "cpsat", time_limit=limit, seed=0, **options)
                status, objective, bound = result.status.value, result.objective, result.bound
                detail = "; ".join(result.notes)
            elif experiment == "instant-relaxation":
                if incumbent is None:
                    incumbent = run_method(instance, "local-search", time_limit=5.0, seed=0)
                upper = int(incumbent.objective)
                outcome, _ = bounds.instant_relaxation(instance, upper=upper, time_limit=limit, seed=0,
                                                       hint=incumbent.solution)
                status = outcome.status.value
                bound = bounds.relaxation_outcome_bound(instance, outcome, upper)
                objective = upper
                detail = f"best relaxed objective {outcome.objective} (not a schedule); upper = local-search"
            runtime = time.perf_counter() - started
            gap = round(100 * (objective - bound) / objective, 3) if bound and objective else None
            objective = None if objective is None else int(objective)
            row = [name, experiment, limit, status, objective, bound, gap, round(runtime, 1), detail]
            print(row, flush=True)
            rows.append(row)
    _write("round3", ["instance", "experiment", "time_limit_s", "status", "objective", "bound", "gap_%",
                      "runtime_s", "detail"], rows)


if __name__ == "__main__":
    main()
