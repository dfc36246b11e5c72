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

``--branch SECONDS`` runs instead a depth-first search over offload sets for
that long, on each instance: a node fixes the offload decision of the largest
activations (ties by index) and is ruled out when the relaxation capped at
``--cap`` (default: the best known schedule - 1) is INFEASIBLE within
``--node-limit`` seconds; otherwise it is split on the next activation. A
search that empties its stack proves that no schedule of makespan <= cap
exists. It prints nodes, pruned nodes and the share of the 2^|offloadable|
decision space ruled out (results/round4-branch.{csv,md}).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
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


#: Best schedules known (solved.json): the default caps of ``--branch`` are these - 1.
BEST_KNOWN = {"vgg16-pcie3-60": 1066515, "vgg16-pcie3-40": 1673824}


def branch(instance, cap: int, node_limit: float, budget: float) -> list:
    """Depth-first search over offload sets (see the module docstring); one summary row."""
    order = sorted(instance.offloadable, key=lambda i: (-instance.activation[i], i))
    started = time.perf_counter()
    stack = [{}]
    nodes = pruned = 0
    ruled_out = 0.0
    verdict = "budget exhausted"
    while stack:
        if time.perf_counter() - started > budget:
            break
        fixed = stack.pop()
        nodes += 1
        outcome, handles = bounds.instant_relaxation(instance, upper=cap, time_limit=node_limit, seed=0,
                                                     fixed_offload=fixed)
        if outcome.status.value == "INFEASIBLE":
            pruned += 1
            ruled_out += 2.0 ** -len(fixed)
            continue
        if outcome.has_solution and not validate(instance, relaxed_solution(instance, outcome, handles)):
            verdict = f"schedule of makespan {int(round(outcome.objective))} <= cap found"
            break
        free = [i for i in order if i not in fixed]
        if not free:
            verdict = "a fully fixed offload set is undecided"
            break
        stack += [{**fixed, free[0]: False}, {**fixed, free[0]: True}]
        if nodes % 50 == 0:  # progress on stderr: the search runs for minutes to hours
            print(f"{time.perf_counter() - started:.0f} s: {nodes} nodes, {pruned} ruled out "
                  f"({100 * ruled_out:.3f} % of the space), {len(stack)} open", file=sys.stderr, flush=True)
    else:
        verdict = f"PROVEN: no schedule of makespan <= {cap}"
    return [cap, node_limit, budget, verdict, nodes, pruned, len(stack), round(ruled_out, 6),
            round(time.perf_counter() - started, 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", default="vgg16-pcie3-60,vgg16-pcie3-40")
    parser.add_argument("--round-limit", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--probe-limit", type=float, default=60.0)
    parser.add_argument("--branch", type=float, default=0.0, help="seconds of offload-set search per instance")
    parser.add_argument("--node-limit", type=float, default=1.0)
    parser.add_argument("--cap", type=int, default=None)
    args = parser.parse_args()
    rows = []
    if args.branch > 0:
        for name in args.instances.split(","):
            instance = read_instance(INSTANCES / f"{name}.json")
            cap = args.cap if args.cap is not None else BEST_KNOWN[name] - 1
            row = [name, *branch(instance, cap, args.node_limit, args.branch)]
            print(row, flush=True)
            rows.append(row)
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
