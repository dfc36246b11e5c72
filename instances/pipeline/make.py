"""Write the shipped pipeline instances made by the generators (deterministic: family, parameters, seed).

Tessel's placements are written by ``make_tessel.py`` (folder ``tessel/``).
Run from the repository root:
    PYTHONPATH=src python instances/pipeline/make.py
"""

from __future__ import annotations

from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.pipeline import GENERATORS

HERE = Path(__file__).resolve().parent

#: (family, parameters): small instances brute force solves, and a few larger ones for the other methods.
PLAN = [
    ("uniform", {"devices": 2, "n": 3, "memory_limit": 2}),
    ("uniform", {"devices": 4, "n": 8, "backward": 2}),
    ("uniform", {"devices": 4, "n": 8, "backward": 2, "memory_factor": 2}),
    ("uniform", {"devices": 4, "backward": 3, "memory_limit": 4, "objective": "period"}),
    ("uniform", {"devices": 2, "n": 2, "backward": 2, "memory_limit": 1, "objective": "period"}),
    ("zero-bubble", {"devices": 2, "n": 2, "memory_factor": 1.5}),
    ("zero-bubble", {"devices": 4, "n": 8, "memory_factor": 2}),
    ("interleaved", {"devices": 2, "n": 4, "chunks": 2, "memory_factor": 1.5}),
    ("vshape", {"devices": 2, "n": 4, "memory_factor": 1.5}),
    ("random", {"devices": 2, "n": 3, "seed": 1, "max_delay": 2, "memory_factor": 1.5}),
    ("random", {"devices": 3, "n": 2, "seed": 2, "split": True, "memory_factor": 1.3}),
    ("random", {"devices": 4, "n": 6, "seed": 3, "split": True, "max_delay": 2, "memory_factor": 1.3}),
    ("random", {"devices": 2, "seed": 5, "memory_factor": 1.5, "objective": "period"}),
]


def main() -> None:
    for family, parameters in PLAN:
        instance = GENERATORS[family](**parameters)
        write_instance(instance, HERE / f"{instance.name}.json")
        print(instance.name)


if __name__ == "__main__":
    main()
