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

``--branch SECONDS`` runs instead `formulations.offload_set_search` for that
long on each instance, below ``--cap`` + 1 (default cap: the best known
schedule - 1): a depth-first search over offload sets where a branch (the
decisions of the largest activations fixed) is ruled out when the relaxation
capped at cap is INFEASIBLE within ``--node-limit`` seconds, and a fully fixed
set is timed exactly.  A search that ends proves that no schedule of makespan
<= cap exists.  Progress lines go to stderr; the table has branches, ruled-out
branches and the share of the 2^|offloadable| offload sets ruled out
(results/round4-branch.{csv,md}; rows of instances not run are kept).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import logging
import time

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.offload import bounds, validate
from hpcsched.offload.formulations import offload_set_search

from run import INSTANCES, RESULTS, _write


#: Best schedules known (solved.json): the default caps of ``--branch`` are these - 1.
BEST_KNOWN = {"vgg16-pcie3-60": 1066515, "vgg16-pcie3-40": 1673824}


def branch(instance, cap: int, node_limit: float, budget: float, cuts: bool = False) -> list:
    """`formulations.offload_set_search` below cap + 1 (see the module docstring); one summary row."""
    started = time.perf_counter()
    search = offload_set_search(instance, upper=cap + 1, time_limit=budget, node_limit=node_limit, seed=0,
                                cuts=cuts)
    if search.proven:
        verdict = f"PROVEN: no schedule of makespan <= {search.cap}"
    elif search.schedule is not None:
        verdict = f"schedule of makespan {search.cap + 1} found; budget exhausted"
    else:
        verdict = "budget exhausted"
    return [cap, node_limit, budget, verdict, search.nodes, search.pruned, search.open,
            round(search.share_ruled_out, 6), round(time.perf_counter() - started, 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", default="vgg16-pcie3-60,vgg16-pcie3-40")
    parser.add_argument("--round-limit", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--probe-limit", type=float, default=60.0)
    parser.add_argument("--branch", type=float, default=0.0, help="seconds of offload-set search per instance")
    parser.add_argument("--node-limit", type=float, default=1.0)
    parser.add_argument("--cap", type=int, default=None)
    parser.add_argument("--cuts", action="store_true", help="the search adds the optional rows relaxed solutions break")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # the search's progress lines, on stderr
    rows = []
    if args.branch > 0:
        for name in args.instances.split(","):
            instance = read_instance(INSTANCES / f"{name}.json")
            cap = args.cap if args.cap is not None else BEST_KNOWN[name] - 1
            row = [name + (" (cuts)" if args.cuts else ""), *branch(instance, cap, args.node_limit, args.branch,
                                                                   args.cuts)]
            print(row, flush=True)
            rows.append(row)
        # Runs last up to an hour each: keep the rows of instances not run this time.
        ran = {row[0] for row in rows}
        previous = RESULTS / "round4-branch.csv"
        if previous.exists():
            with open(previous, newline="") as handle:
                kept = [row for row in list(csv.reader(handle))[1:] if row[0] not in ran]
            rows = kept + rows
        _write("round4-branch", ["instance", "cap", "node_limit_s", "budget_s", "verdict", "nodes", "pruned",
                                 "open", "share_ruled_out", "runtime_s"], rows)
        return
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
                relaxed = bounds.relaxed_solution(instance, outcome, handles)
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
