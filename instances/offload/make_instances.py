"""Write the shipped offload instances from the PipeDream profiles in ../shared/data.

Run from the repository root:
    PYTHONPATH=src python instances/offload/make_instances.py [--data ../shared/data]
The instance files carry the source file name and sha256 (no need for the data to read them).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.offload import import_kineto, import_pipedream

HERE = Path(__file__).resolve().parent
#: network -> budgets (fractions of the no-offload peak), all above the network's memory floor.
#: VGG16's floor is 63 % of its peak since the in-place ReLUs share their input's storage
#: (the peak halved, the floor of B_2, a_1 + delta_1 + delta_2, did not): 0.6 and 0.4 are infeasible.
NETWORKS = {
    "vgg16": (0.9, 0.8, 0.7),
    "resnet50": (0.9, 0.6, 0.3),
    "resnet101": (0.9, 0.6, 0.3),
    "gnmt": (0.9, 0.8, 0.7),
    "squeezenet1_0": (0.9, 0.6, 0.4),
}
LINKS = ("pcie3", "pcie5")
#: Kineto ResNet-50 training trace (V100): per-layer GPU kernel times.
KINETO = ("resnet50_v100_workers0.pt.trace.json.gz", (0.9, 0.6, 0.4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = os.environ.get("HPCSCHED_SHARED_DATA", str(HERE.parents[1] / ".." / "shared" / "data"))
    parser.add_argument("--data", default=default)
    args = parser.parse_args()
    folder = Path(args.data) / "pipedream"
    for network, budgets in NETWORKS.items():
        for link in LINKS:
            for budget in budgets:
                instance = import_pipedream(folder / f"{network}.graph.txt", budget=budget, link=link)
                path = HERE / f"{instance.name}.json"
                write_instance(instance, path)
                print(path.name, instance.n_layers, "layers, M =", instance.memory)
    trace, budgets = KINETO
    for link in LINKS:
        for budget in budgets:
            instance = import_kineto(
                Path(args.data) / "kineto" / trace,
                budget=budget,
                link=link,
                name=f"resnet50-kineto-{link}-{round(100 * budget)}",
            )
            path = HERE / f"{instance.name}.json"
            write_instance(instance, path)
            print(path.name, instance.n_layers, "layers, M =", instance.memory)


if __name__ == "__main__":
    main()
