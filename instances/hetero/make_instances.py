"""Write the shipped hetero instances: generated graphs, and the real ones when the data folder is there.

Usage::

    .venv/bin/python instances/hetero/make_instances.py [--data ../shared/data] [--only FILE ...]

Real graphs are imported from hetero_swf (skipped when the data folder is
missing). solved.json is written by ``hpcsched solved hetero`` (docs/hetero.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.hetero import (
    generate_cholesky,
    generate_fork_join,
    generate_heteroprio_trap,
    generate_layered,
    import_swf,
)

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "instances" / "hetero"

#: (file stem, application folder, platform m, k)
REAL = [
    ("spotrf-960-5", "spotrf", 8, 2),
    ("spotrf-960-5", "spotrf", 10, 4),
    ("spotrs-960-5", "spotrs", 10, 4),
    ("sgetrf_nopiv-320-5", "sgetrf_nopiv", 10, 4),
    ("sposv-512-5", "sposv", 8, 2),
    ("spotri-128-5", "spotri", 10, 4),
    ("spotrf-960-10", "spotrf", 8, 2),
    ("forkJoin-2-100", "forkJoin", 10, 4),
]


def generated():
    yield generate_cholesky(tiles=5, cpus=8, gpus=2)
    yield generate_layered(seed=1, n=8, layers=3, cpus=1, gpus=1)
    yield generate_layered(seed=2, n=12, layers=4, cpus=2, gpus=1)
    yield generate_layered(seed=3, n=30, layers=5, cpus=4, gpus=2)
    yield generate_fork_join(seed=4, phases=2, width=6, cpus=2, gpus=1)
    yield generate_heteroprio_trap(chain=10, acceleration=4, cpus=4, gpus=2)
    independent = generate_layered(seed=5, n=10, layers=1, cpus=1, gpus=1)
    yield independent.__class__(
        "independent-n10-s5", independent.tasks, (), 1, 1, None, {**independent.source, "layers": 1}
    )


def instances(data: Path | None):
    for instance in generated():
        yield f"{instance.name}.json", instance
    if data is None:
        print("hetero_swf not found: real graphs skipped", file=sys.stderr)
        return
    for stem, application, cpus, gpus in REAL:
        path = data / "hetero_swf" / "formatedTasks_2" / application / f"{stem}.txt"
        if path.exists():
            instance = import_swf(path, cpus=cpus, gpus=gpus)
            yield f"{stem}-m{cpus}-k{gpus}.json", instance


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=default_data)
    parser.add_argument("--only", nargs="*", help="file names to (re)write; the others are left alone")
    args = parser.parse_args()
    data = args.data if args.data.is_dir() else None
    FOLDER.mkdir(parents=True, exist_ok=True)
    for file_name, instance in instances(data):
        if args.only and file_name not in args.only:
            continue
        write_instance(instance, FOLDER / file_name)
        print(file_name, flush=True)


if __name__ == "__main__":
    main()
