"""Write the shipped checkpoint instances (run from the repository root).

    .venv/bin/python instances/checkpoint/make.py [--shared ../shared/data]

Generated chains, PipeDream chains and the Kineto ResNet-50 layer table at budgets 0.3-0.9 of the store-all
peak (a budget below the smallest feasible one is raised to it and the file
says so; duplicates after raising are skipped). solved.json is written by
``hpcsched solved checkpoint`` (docs/checkpoint.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hpcsched.checkpoint import (
    generate_homogeneous,
    generate_random,
    generate_transformer,
    import_kineto,
    import_pipedream,
)
from hpcsched.core.io import write_instance

FOLDER = Path(__file__).resolve().parent
NETWORKS = ("alexnet", "vgg16", "resnet18", "gnmt", "squeezenet1_0", "resnet50")
BUDGETS = (0.3, 0.5, 0.7, 0.9)


def instances(shared: Path | None):
    yield generate_homogeneous(n=4, budget=0.6)
    yield generate_homogeneous(n=10, budget=0.5)
    yield generate_random(n=4, budget=0.6, seed=1)
    yield generate_random(n=6, budget=0.5, seed=2)
    yield generate_random(n=12, budget=0.5, seed=3)
    yield generate_transformer(n=3, budget=0.5)
    if shared is None:
        return
    for network in NETWORKS:
        seen = set()
        for budget in BUDGETS:
            instance = import_pipedream(shared / "pipedream" / f"{network}.graph.txt", budget=budget)
            if instance.memory in seen:
                continue
            seen.add(instance.memory)
            yield instance
    for budget in (0.3, 0.5, 0.9):  # the Kineto ResNet-50 layer table (V100)
        yield import_kineto(shared / "kineto" / "resnet50_v100_workers0.pt.trace.json.gz", budget=budget)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=FOLDER.parents[2] / "shared" / "data")
    args = parser.parse_args()
    shared = args.shared if args.shared.is_dir() else None
    for instance in instances(shared):
        file = f"{instance.name}.json"
        write_instance(instance, FOLDER / file)
        print(file, flush=True)


if __name__ == "__main__":
    main()
