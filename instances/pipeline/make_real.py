"""Write the shipped pipeline instances imported from real layer profiles (folder ``real/``).

Sources: PipeDream's per-layer profiles (``../shared/data/pipedream/*.graph.txt``,
V100-class GPU; skipped with a message when the shared data is absent) and the
H100 chains measured for checkpointing (``instances/checkpoint/*-h100-*.json``).
Each chain is cut into D stages by PipeDream's DP (`hpcsched.pipeline.partition_stages`);
every approximation is in the file's ``source["notes"]``. Run from the repository root:
    PYTHONPATH=src python instances/pipeline/make_real.py
"""

from __future__ import annotations

import os
from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.pipeline.importers import import_checkpoint_chain, import_pipedream

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SHARED = Path(os.environ.get("HPCSCHED_SHARED_DATA", ROOT.parent / "shared" / "data"))

#: (importer, source file, options)
H100_LINK = {"devices": 4, "micro_batches": 8, "memory_factor": 2, "bandwidth": 25}
PLAN = [
    ("pipedream", "resnet50.graph.txt", {"devices": 4, "micro_batches": 8, "memory_factor": 2}),
    ("pipedream", "vgg16.graph.txt", {"devices": 4, "micro_batches": 8}),
    ("pipedream", "gnmt.graph.txt", {"devices": 4, "micro_batches": 8, "memory_factor": 2, "split": True}),
    ("checkpoint-chain", "resnet50-h100-b50.json", H100_LINK),
    (
        "checkpoint-chain",
        "vgg16-h100-link-b30.json",
        {"devices": 4, "micro_batches": 8, "memory_factor": 3, "split": True},
    ),
    ("checkpoint-chain", "transformer12-h100-b50.json", {"devices": 4, "micro_batches": 8, "split": True}),
    ("checkpoint-chain", "transformer12-h100-b50.json", {"devices": 4, "objective": "period", "memory_factor": 1.5}),
    ("checkpoint-chain", "resnet50-h100-b50.json", {"devices": 2, "objective": "period", "micro_batches": 2}),
]


def source_path(importer: str, file: str) -> Path:
    """Where the plan's source file lives."""
    if importer == "pipedream":
        return SHARED / "pipedream" / file
    return ROOT / "instances" / "checkpoint" / file


def build(importer: str, file: str, options: dict) -> object:
    """The instance the plan's entry makes."""
    read = import_pipedream if importer == "pipedream" else import_checkpoint_chain
    return read(source_path(importer, file), **options)


def main() -> None:
    for importer, file, options in PLAN:
        if not source_path(importer, file).exists():
            print(f"skipped {file}: {source_path(importer, file)} is absent (set HPCSCHED_SHARED_DATA)")
            continue
        instance = build(importer, file, options)
        write_instance(instance, HERE / "real" / f"{instance.name}.json")
        print(instance.name)


if __name__ == "__main__":
    main()
