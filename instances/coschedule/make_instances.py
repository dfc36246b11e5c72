"""Regenerate the shipped coschedule instances from ../shared/data.

    PYTHONPATH=src python instances/coschedule/make_instances.py [--data ../shared/data]

Each instance records its source files with their sha256, the importer
options and the rate model in ``source``, so it is readable (and its
provenance checkable) without the data folder.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.coschedule.generate import import_gavel, import_kineto, import_orion

HERE = Path(__file__).resolve().parent

# (file name, n, seed, applications co-located on one V100)
ORION_MIXES = [
    ("orion-n6.json", 6, 7, "resnet50_4_fwd.csv,transformer_xl_4_fwd.csv"),
    ("orion-n10.json", 10, 1, "resnet50_4_fwd.csv,bert_2_fwd.csv"),
    ("orion-n20.json", 20, 2, "mobilenetv2_4_fwd.csv,transformer_xl_4_fwd.csv"),
    ("orion-n50.json", 50, 3, "resnet50_32_fb1.csv,bert_2_fwd.csv"),
    ("orion-n100.json", 100, 4, "resnet101_4_fwd.csv,mobilenetv2_32_fb1.csv,transformer_xl_4_fwd.csv"),
    ("orion-n200.json", 200, 5, "resnet50_32_fb1.csv,mobilenetv2_64_fb1.csv,bert_2_fwd.csv"),
]
KINETO_MIXES = [("kineto-n20.json", 20, 1), ("kineto-n50.json", 50, 2)]
GAVEL_MIXES = [
    ("gavel-v100-n6.json", 6, 7),
    ("gavel-v100-n10.json", 10, 1),
    ("gavel-v100-n20.json", 20, 2),
    ("gavel-v100-n50.json", 50, 3),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = os.environ.get("HPCSCHED_SHARED_DATA", str(HERE.parents[1] / ".." / "shared" / "data"))
    parser.add_argument("--data", default=default)
    data = Path(parser.parse_args().data)
    for file, n, seed, apps in ORION_MIXES:
        write_instance(import_orion(data / "orion", files=apps, n=n, seed=seed, name=file[:-5]), HERE / file)
    traces = ",".join(
        str(trace)
        for trace in (
            data / "kineto" / "resnet50_v100_workers0.pt.trace.json.gz",
            data / "hta" / "ns_resolution_rank0.pt.trace.json.gz",
        )
    )
    for file, n, seed in KINETO_MIXES:
        write_instance(import_kineto(traces, n=n, seed=seed, name=file[:-5]), HERE / file)
    for file, n, seed in GAVEL_MIXES:
        write_instance(
            import_gavel(data / "gavel" / "simulation_throughputs.json", n=n, seed=seed, name=file[:-5]), HERE / file
        )
    print("wrote", len(ORION_MIXES) + len(KINETO_MIXES) + len(GAVEL_MIXES), "instances to", HERE)


if __name__ == "__main__":
    main()
