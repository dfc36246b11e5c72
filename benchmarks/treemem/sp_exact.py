"""sp-exact (Kayaaslan et al., TCS 2018) on large series-parallel DAGs: time, and the heuristics' excess.

Run from the repository root:
    .venv/bin/python benchmarks/treemem/sp_exact.py --sizes 1000 10000 100000 --seeds 3

Instances (``residual_sp`` below, seeded): residual-network-like two-terminal
series-parallel DAGs. A block of at most 4 nodes is a chain; a larger one is a series of two
blocks (probability 0.4) or a fork: a node u, 2-4 branches (each a block), a join node t, and
with probability 0.8 a skip edge u -> t (then t is u's forced last consumer),
else u's output is set to 0 (a shared output without a forced last consumer
is outside sp-exact's class). exec uniform 0..100, output uniform 1..100.

For each instance: ``sp-exact`` is called directly (it is not registered in
this checkout) and its order goes through the problem's ``validate`` and
``evaluate``; ``greedy``, ``sp-ization`` and ``forest-postorder`` run through
``run_method`` (validated there) and their peak is reported over sp-exact's
optimum. Times are wall-clock on the shared 2-core machine, CPU in brackets.
Writes ``results/sp-exact.csv`` and ``results/sp-exact.md``.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import sys
import time
from pathlib import Path

import numpy as np

from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.treemem import Instance, evaluate, validate
from hpcsched.treemem.formulations import sp_exact

HERE = Path(__file__).resolve().parent
HEURISTICS = ("greedy", "sp-ization", "forest-postorder")


def residual_sp(n_target: int, seed: int) -> Instance:
    """A seeded residual-like series-parallel DAG of about ``n_target`` nodes (see the module docstring)."""
    rng = np.random.default_rng(seed)
    edges: list[tuple[int, int]] = []
    empty: set[int] = set()
    count = [0]

    def new() -> int:
        count[0] += 1
        return count[0] - 1

    def block(budget: int) -> tuple[int, int]:
        if budget <= 4:
            nodes = [new() for _ in range(budget)]
            edges.extend(itertools.pairwise(nodes))
            return nodes[0], nodes[-1]
        if rng.random() < 0.4:  # series of two blocks
            split = int(rng.integers(1, budget))
            first, middle = block(split)
            joint, last = block(budget - split)
            edges.append((middle, joint))
            return first, last
        fork, join = new(), new()
        branches = int(rng.integers(2, min(4, budget - 2) + 1))
        shares = rng.multinomial(budget - 2 - branches, [1 / branches] * branches) + 1
        for share in shares:
            first, last = block(int(share))
            edges.extend(((fork, first), (last, join)))
        if rng.random() < 0.8:
            edges.append((fork, join))
        else:
            empty.add(fork)
        return fork, join

    block(n_target)
    n = count[0]
    execs = rng.integers(0, 101, size=n).tolist()
    outputs = [0 if i in empty else int(o) for i, o in enumerate(rng.integers(1, 101, size=n))]
    return Instance.create(execs, outputs, edges, name=f"residual-sp-{n_target}-{seed}")


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--heuristics-up-to", type=int, default=10000, help="skip the heuristics above this size")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)  # the generator recurses (sp-exact does not)
    rows = []
    for size in args.sizes:
        for seed in range(args.seeds):
            instance, build_s, _ = timed(lambda: residual_sp(size, seed))  # noqa: B023
            result, wall, cpu = timed(lambda: sp_exact(instance, time_limit=600, seed=0, params=None))  # noqa: B023
            assert result.status is Status.OPTIMAL, result.notes
            violations, check_s, _ = timed(lambda: validate(instance, result.solution))  # noqa: B023
            assert violations == []
            optimum = evaluate(instance, result.solution)["objective"]
            row = {
                "instance": instance.name,
                "nodes": instance.n,
                "edges": len(instance.edges),
                "build s": round(build_s, 2),
                "sp-exact s (CPU)": f"{wall:.2f} ({cpu:.2f})",
                "validate s": round(check_s, 2),
                "optimum": int(optimum),
            }
            for method in HEURISTICS:
                if instance.n > args.heuristics_up_to:
                    row[f"{method} excess %"] = "-"
                    continue
                other = run_method(instance, method, problem="treemem", time_limit=600)
                assert other.objective >= optimum
                row[f"{method} excess %"] = round(100 * (other.objective / optimum - 1), 1)
            rows.append(row)
            print(row, flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "sp-exact.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    (args.out / "sp-exact.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
