"""One cell of run.py's "DP time vs L and S" table: `persistent_dp` run to completion on the same chain.

The chain is the table's: ``run.random_chain`` with ``default_rng(0)``, the
generator replayed through the table's rows (L = 10, 25, 50, 100, 200, then
500), so L = 200 is the very chain of the table's last row. The DP runs with
no deadline and no ``max_cells``: it cannot be cut, it fills the whole table
(objective None: no persistent sequence fits once sizes are rounded up to
slots, as on the table's smallest cells). Prints one line: L, S, seconds, peak RSS of this
process in MB (``ru_maxrss``: run one cell per process), the objective (the
persistent optimum under the slot rounding), the slots the DP used and
whether the slot is exact.

    .venv/bin/python benchmarks/checkpoint/dp_time.py --L 500 --S 1000
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
from run import random_chain

from hpcsched.checkpoint.formulations import persistent_dp
from hpcsched.core.deadline import Deadline

#: The table's rows in the order run.py draws their chains, then the rows added for issue 23.
LENGTHS = (10, 25, 50, 100, 200, 500)


def chain(length: int):
    """The table's chain of this length (the generator replayed through the earlier rows)."""
    rng = np.random.default_rng(0)
    for row in LENGTHS:
        instance = random_chain(row, rng)
        if row == length:
            return instance
    raise ValueError(f"L must be one of {LENGTHS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--L", type=int, required=True, choices=LENGTHS)
    parser.add_argument("--S", type=int, required=True)
    args = parser.parse_args()
    instance = chain(args.L)
    started = time.perf_counter()
    plan = persistent_dp(instance, args.S, Deadline(None), max_cells=None)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(
        f"L={args.L} S={args.S} seconds={seconds:.2f} peak_rss_mb={peak_mb:.0f} objective={plan.time} "
        f"dp_slots={plan.slots} exact={plan.exact} sequence_ops={len(plan.sequence)}",
        flush=True,
    )


if __name__ == "__main__":
    main()
