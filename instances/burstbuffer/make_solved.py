"""Write the shipped burstbuffer instances and solve them into solved.json.

Run from the repository root:

    PYTHONPATH=src python instances/burstbuffer/make_solved.py [--time-limit 60]

Every instance comes from a seeded generator (its provenance is in its
``source``); every entry of solved.json is what the problem's default method
(``exact``: sharing-dp / sizing-dynamic-sweep / sizing-static-lp, by
objective) returned, run through ``run_method`` (so validated).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hpcsched.burstbuffer import generate_mix, generate_periodic
from hpcsched.core.io import atomic_write_text, read_instance, write_instance
from hpcsched.core.registry import run_method

HERE = Path(__file__).resolve().parent
DATE = "2026-11-21"

INSTANCES = {
    "intrepid-4profiles-sharing.json": lambda: generate_mix(
        seed=1, n=4, platform="intrepid", profiles=["Turbulence1", "AstroPhysics", "Turbulence2", "PlasmaPhysics"],
        capacity_fraction=0.5, granules=32),
    "mira-mix8-sharing.json": lambda: generate_mix(seed=2, n=8, platform="mira", capacity_fraction=0.3, granules=24),
    "trinity-mix200-sizing-dynamic.json": lambda: generate_mix(
        seed=3, n=200, platform="trinity", capacity=3.7e15, granules=64, max_iterations=10,
        objective="sizing-dynamic"),
    "intrepid-mix6-sizing-static.json": lambda: generate_mix(
        seed=4, n=6, platform="intrepid", capacity_fraction=1.0, granules=64, objective="sizing-static"),
    "periodic-k3-n8-sharing.json": lambda: generate_periodic(seed=5, n=3, load=0.8, granules=8, capacity_fraction=0.4),
    "periodic-k6-load0.8-sharing.json": lambda: generate_periodic(seed=6, n=6, load=0.8, granules=24,
                                                                  capacity_fraction=0.5),
    "periodic-k5-load0.6-sizing-dynamic.json": lambda: generate_periodic(seed=7, n=5, load=0.6,
                                                                         objective="sizing-dynamic"),
    "periodic-k12-load0.9-sizing-static.json": lambda: generate_periodic(seed=8, n=12, load=0.9, granules=64,
                                                                         capacity_fraction=1.0, objective="sizing-static"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    solved = {}
    for file_name, build in INSTANCES.items():
        instance = build()
        instance = type(instance).from_data(instance.to_data(), name=Path(file_name).stem, time_unit="s",
                                            source=dict(instance.source))
        write_instance(instance, HERE / file_name)
        instance = read_instance(HERE / file_name)
        result = run_method(instance, time_limit=args.time_limit)
        print(f"{file_name}: {result.status} objective={result.objective} bound={result.bound} "
              f"({result.runtime_s:.2f} s) {result.notes[:1]}")
        if result.status.value not in ("OPTIMAL", "FEASIBLE"):
            raise SystemExit(f"{file_name}: {result.status} {result.notes}")
        solved[file_name] = {
            "objective": result.objective,
            "bound": result.bound,
            "status": result.status.value,
            "method": result.method,
            "resolved_method": {"sharing": "sharing-dp", "sizing-dynamic": "sizing-dynamic-sweep",
                                "sizing-static": "sizing-static-lp"}[instance.objective],
            "objective_kind": instance.objective,
            "solver": result.solver,
            "date": DATE,
            "runtime_s": round(result.runtime_s, 3),
        }
    atomic_write_text(HERE / "solved.json", json.dumps(solved, indent=1) + "\n")


if __name__ == "__main__":
    main()
