"""Write the shipped transfers instances (deterministic: generator + seed).

Run from the repository root:
    PYTHONPATH=src python instances/transfers/make_instances.py
"""

from __future__ import annotations

from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.transfers.generate import GENERATORS

HERE = Path(__file__).resolve().parent

#: (family, n, memory_factor, seed): four families, n from 5 to 200, memory from 1x max m to unlimited.
PLAN = [
    ("uniform", 5, 1.0, 1),
    ("uniform", 10, 1.5, 2),
    ("uniform", 20, 2, 3),
    ("uniform", 50, 1.5, 4),
    ("uniform", 100, 3, 5),
    ("uniform", 200, "unlimited", 6),
    ("correlated", 8, 1.0, 7),
    ("correlated", 20, 1.5, 8),
    ("correlated", 50, 5, 9),
    ("correlated", 150, 2, 10),
    ("hf-like", 10, 1.5, 11),
    ("hf-like", 30, 1.0, 12),
    ("hf-like", 100, 2, 13),
    ("hf-like", 200, 10, 14),
    ("ccsd-like", 6, 1.0, 15),
    ("ccsd-like", 12, 1.5, 16),
    ("ccsd-like", 25, 2, 17),
    ("ccsd-like", 40, 3, 18),
    ("ccsd-like", 80, 1.5, 19),
    ("ccsd-like", 200, "unlimited", 20),
    # The frontier at memory 1.5x max m (benchmarks/transfers, rounds 3-7): uniform n = 15 seed 3 has
    # its optimum 6 % above every lower bound (757 against 712; only `dp` proves it), and n = 50
    # seeds 1-3 are the target instances that CP-SAT does not prove. Iterated greedy proved
    # seed 2 (2664, Johnson's bound; round 7); seeds 1 and 3 stay open (best schedules 0.38 % and
    # 0.11 % above the bound; whether the optimum lies on it is unknown). Open problems to attack.
    ("uniform", 15, 1.5, 3),
    ("uniform", 50, 1.5, 1),
    ("uniform", 50, 1.5, 2),
    ("uniform", 50, 1.5, 3),
]


def main() -> None:
    for family, n, factor, seed in PLAN:
        instance = GENERATORS[family](seed=seed, n=n, memory_factor=factor)
        write_instance(instance, HERE / f"{instance.name}.json")
        print(instance.name)


if __name__ == "__main__":
    main()
