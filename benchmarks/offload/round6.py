"""Round-6 experiment on VGG16 / PCIe 3 at 60 %: how many CP-SAT workers a branch of the offload-set search needs.

    PYTHONPATH=src python benchmarks/offload/round6.py branches --time-limit 10
    PYTHONPATH=src python benchmarks/offload/round6.py search --time-limit 300 --branch-workers 2 1

``branches``: eight branches of `formulations.offload_set_search` that the
relaxation refutes in 1-6 s (the decisions of the largest activations fixed,
written as bits over the search's order, "1" = offloaded; taken from a 60 s
search of round 5), each solved by `bounds.instant_relaxation` capped at the
best known makespan - 1, with the optional rows of that search.  Three ways,
one after the other: one branch at a time on 2 CP-SAT workers, one at a time
on 1 worker, two at a time on 1 worker each (threads).  Prints the verdicts,
the time of each solve and the wall-clock time of the eight.

``search``: the whole search (with cuts, node limit 1 s, 2 workers) for
``--time-limit`` seconds for each ``--branch-workers`` value (2: one branch
at a time on both workers, as before round 6; 1: two branches at a time),
one after the other.  Prints branches solved, ruled out and the share of the
offload sets ruled out.  Progress lines go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import time
from concurrent.futures import ThreadPoolExecutor

from hpcsched.core.io import read_instance
from hpcsched.offload import bounds, formulations

INSTANCE = "instances/offload/vgg16-pcie3-60.json"
BEST_KNOWN = 1_066_515
ROWS = dict(start_rows=True, prefetch_rows=[(25, 29), (26, 29), (24, 29), (27, 29)])
BRANCHES = ["111", "1110", "11101", "111011", "111010", "1110100", "1101", "11011"]


def branches(instance, time_limit: float) -> None:
    order = sorted(instance.offloadable, key=lambda i: (-instance.activation[i], i))
    fixed = [{order[k]: bit == "1" for k, bit in enumerate(bits)} for bits in BRANCHES]

    def solve(decisions, workers):
        started = time.perf_counter()
        outcome, _ = bounds.instant_relaxation(instance, upper=BEST_KNOWN - 1, time_limit=time_limit,
                                               fixed_offload=decisions, workers=workers, **ROWS)
        return outcome.status.name, round(time.perf_counter() - started, 1)

    for label, workers, at_once in (("one at a time, 2 workers", 2, 1), ("one at a time, 1 worker", 1, 1),
                                    ("two at a time, 1 worker each", 1, 2)):
        started = time.perf_counter()
        with ThreadPoolExecutor(at_once) as pool:
            results = list(pool.map(lambda decisions: solve(decisions, workers), fixed))
        print(f"{label}: {time.perf_counter() - started:.1f} s for the eight; {results}", flush=True)


def search(instance, time_limit: float, branch_workers: list[int]) -> None:
    for value in branch_workers:
        started = time.perf_counter()
        result = formulations.offload_set_search(instance, upper=BEST_KNOWN, time_limit=time_limit, node_limit=1.0,
                                                 cuts=True, workers=2, branch_workers=value)
        print(f"branch_workers={value}: proven={result.proven} branches={result.nodes} ruled out={result.pruned} "
              f"open={result.open} share ruled out={100 * result.share_ruled_out:.2f} % bound={result.bound} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["branches", "search"])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--branch-workers", type=int, nargs="+", default=[2, 1])
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(relativeCreated).0f ms %(message)s")
    instance = read_instance(INSTANCE)
    if args.part == "branches":
        branches(instance, args.time_limit)
    else:
        search(instance, args.time_limit, args.branch_workers)


if __name__ == "__main__":
    main()
