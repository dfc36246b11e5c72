"""Round-7 experiment: the exchange lemma (equal activations) in the offload-set search and in `cpsat`.

    PYTHONPATH=src python benchmarks/offload/round7.py search --time-limit 120
    PYTHONPATH=src python benchmarks/offload/round7.py cpsat --time-limit 60 --opt branch_fraction=1.0 ...

``search``: `formulations.offload_set_search` (cuts, node limit 1 s, 2
workers, two branches at a time) on VGG16 / PCIe 3 at 60 % and 40 %,
started from the best heuristic schedule (`heuristics.best_heuristic_solution`
with the time `cpsat` gives it), with the exchange implications and without,
one after the other, ``--time-limit`` seconds each.  Prints whether it ended,
the optimum it proved, branches solved and the wall-clock time.

``cpsat``: the `cpsat` method through the registry (its schedule validated)
on the six VGG16 instances with ``--time-limit`` and the ``--opt`` options,
with the exchange lemma and then with ``exchange=false`` (an ``exchange``
given with ``--opt`` is overridden).  Prints status,
objective, bound and runtime.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hpcsched.cli import parse_assignments
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.offload import formulations
from hpcsched.offload.heuristics import best_heuristic_solution

FOLDER = Path("instances/offload")


def makespan(instance, solution) -> int:
    return solution.backward_start[0] + instance.backward[0]


def search(time_limit: float) -> None:
    for name in ("vgg16-pcie3-60", "vgg16-pcie3-40"):
        instance = read_instance(FOLDER / f"{name}.json")
        start = best_heuristic_solution(instance, time_limit=1.0 + 0.05 * instance.n_layers, seed=0)
        upper = makespan(instance, start)
        for exchange in (True, False):
            started = time.perf_counter()
            result = formulations.offload_set_search(instance, upper=upper, time_limit=time_limit, node_limit=1.0,
                                                     cuts=True, workers=2, exchange=exchange)
            print(f"{name} from {upper}, exchange {exchange}: {'ended' if result.proven else 'stopped'}, "
                  f"incumbent {result.cap + 1}, bound {result.bound}, "
                  f"{result.nodes} branches, {100 * result.share_ruled_out:.3f} % ruled out, "
                  f"{time.perf_counter() - started:.1f} s", flush=True)


def cpsat(time_limit: float, options: dict) -> None:
    for exchange in (True, False):
        for path in sorted(FOLDER.glob("vgg16-*.json")):
            instance = read_instance(path)
            result = run_method(instance, "cpsat", time_limit=time_limit, seed=0, **{**options, "exchange": exchange})
            print(f"{path.stem:16s} exchange {exchange!s:5s} {result.status.value:9s} objective {result.objective} "
                  f"bound {result.bound} {result.runtime_s:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("part", choices=["search", "cpsat"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--opt", action="append", default=[], help="cpsat option key=value (JSON value)")
    args = parser.parse_args()
    if args.part == "search":
        search(args.time_limit)
    else:
        try:
            options = parse_assignments(args.opt, "--opt")
        except InvalidInstanceError as error:
            parser.error(str(error))
        cpsat(args.time_limit, options)


if __name__ == "__main__":
    main()
