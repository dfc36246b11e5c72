"""Write the shipped locality instances (seeded generators; rerun to reproduce).

PYTHONPATH=src python instances/locality/make_instances.py
"""

from __future__ import annotations

from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.locality import generate_rack_aware, generate_uniform, import_csv

HERE = Path(__file__).resolve().parent

INSTANCES = {
    "unit-n60-m6-r2": lambda: generate_uniform(seed=1, n=60, m=6, r=2),
    "unit-n40-m8-r1": lambda: generate_uniform(seed=2, n=40, m=8, r=1),
    "unit-n2000-m20-r3": lambda: generate_uniform(seed=3, n=2000, m=20, r=3),
    "lognormal-n30-m5-r2": lambda: generate_uniform(seed=4, n=30, m=5, r=2, durations="lognormal"),
    "lognormal-n80-m10-r2-sigma15": lambda: generate_uniform(seed=9, n=80, m=10, r=2, durations="lognormal", sigma=1.5),
    "pareto-rack-n40-m8-r3": lambda: generate_rack_aware(seed=5, n=40, m=8, r=3, rack_size=4, durations="pareto"),
    "comm-unit-n30-m6-r1": lambda: generate_uniform(seed=6, n=30, m=6, r=1, objective="communication"),
    "comm-unit-n600-m30-r2": lambda: generate_uniform(seed=8, n=600, m=30, r=2, objective="communication"),
    "comm-lognormal-n8-m3-r1-c2": lambda: generate_uniform(
        seed=7, n=8, m=3, r=1, durations="lognormal", objective="communication", remote_cost=2
    ),
    "csv-example": lambda: import_csv(HERE / "example.csv"),
}


def main() -> None:
    for name, make in INSTANCES.items():
        instance = make()
        instance = type(instance)(**{**instance.__dict__, "name": name})
        write_instance(instance, HERE / f"{name}.json")
        print("wrote", name)


if __name__ == "__main__":
    main()
