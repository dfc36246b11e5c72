"""Round-4 experiment on the VGG16 / PCIe 3 gaps: a cutting-plane loop on the instant relaxation.

    PYTHONPATH=src:benchmarks/offload python benchmarks/offload/round4.py --round-limit 30 --rounds 6

For each instance (one after the other, 2 CP-SAT workers, seed 0):

1. ``local-search`` (5 s, through run_method) gives the incumbent and the cap;
2. `bounds.instant_relaxation` is minimized with the makespan capped at the
   incumbent, hinted with it, for ``--round-limit`` seconds;
3. `bounds.missing_rows` lists the optional rows its best relaxed solution
   breaks (memory at the start of a backward step, memory at a prefetch start
   during a backward step); they are added and step 2 runs again, until the
   relaxed solution breaks none (then `validate` accepts it: it is a
   schedule, and the incumbent if it is better) or ``--rounds`` is reached;
4. with the rows found, one probe at the incumbent - 1 for ``--probe-limit``
   seconds: INFEASIBLE would prove the incumbent optimal.

Every relaxed solution is passed to `validate`; the table says how many rules
it breaks. Results go to results/round4.{csv,md}.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.offload import Solution, bounds, validate

from run import INSTANCES, _write


def relaxed_solution(instance, outcome, handles) -> Solution:
    """The relaxation's variables as a Solution (not necessarily a valid schedule)."""
    forward, backward, chosen, end_out, start_in = handles
    value = outcome.value
    offloaded = [i for i, o in chosen.items() if value(o) > 0.5]
    return Solution(offloaded=offloaded, forward_start=[value(x) for x in forward],
                    backward_start=[value(x) for x in backward],
                    offload_start={i: value(end_out[i]) - instance.offload_time(i) for i in offloaded},
                    prefetch_start={i: value(start_in[i]) for i in offloaded})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", default="vgg16-pcie3-60,vgg16-pcie3-40")
    parser.add_argument("--round-limit", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--probe-limit", type=float, default=60.0)
    args = parser.parse_args()
    rows = []
    for name in args.instances.split(","):
        instance = read_instance(INSTANCES / f"{name}.json")
        incumbent = run_method(instance, "local-search", time_limit=5.0, seed=0)
        upper = int(incumbent.objective)
        start_rows, prefetch_rows = False, []
        round_number = 0
        while True:
            probe = round_number >= args.rounds
            cap, limit = (upper - 1, args.probe_limit) if probe else (upper, args.round_limit)
            started = time.perf_counter()
            outcome, handles = bounds.instant_relaxation(
                instance, upper=cap, time_limit=limit, seed=0, hint=None if probe else incumbent.solution,
                start_rows=start_rows, prefetch_rows=prefetch_rows)
            runtime = time.perf_counter() - started
            broken, detail, new_start, new_rows = None, "", False, []
            if outcome.has_solution:
                relaxed = relaxed_solution(instance, outcome, handles)
                broken = len(validate(instance, relaxed))
                new_start, new_rows = bounds.missing_rows(instance, relaxed)
                detail = f"; it breaks: start rows {new_start}, prefetch rows {new_rows}"
            row = [name, "probe" if probe else round_number, cap, upper, outcome.status.value,
                   None if outcome.objective is None else int(round(outcome.objective)),
                   bounds.relaxation_outcome_bound(instance, outcome, cap), broken, round(runtime, 1),
                   f"rows in the model: start={start_rows}, prefetch={prefetch_rows}{detail}"]
            print(row, flush=True)
            rows.append(row)
            if probe:
                break
            if broken == 0 and outcome.objective < upper:
                # A relaxed solution that breaks no rule is a schedule: it becomes the incumbent.
                upper = int(round(outcome.objective))
                incumbent = dataclasses.replace(incumbent, objective=float(upper), solution=relaxed)
            start_rows |= new_start
            prefetch_rows += [pair for pair in new_rows if pair not in prefetch_rows]
            # Nothing left to cut (the relaxed solution is a schedule, or there is none): probe.
            round_number = round_number + 1 if (new_start or new_rows) else args.rounds
    _write("round4", ["instance", "round", "cap", "incumbent", "status", "relaxed_objective", "bound",
                      "rules_broken", "runtime_s", "detail"], rows)


if __name__ == "__main__":
    main()
