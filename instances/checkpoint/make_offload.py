"""Write the shipped chain-offload instances (run from the repository root).

    .venv/bin/python instances/checkpoint/make_offload.py [--shared ../shared/data]

PipeDream chains (as in make.py) with the offload package's PCIe 3 link:
12,000 bytes/µs each way (12 GB/s), latency 0, full duplex. Kind
chain-offload needs every operation to last >= 1 µs, so a time of 0 (the
loss backward, sub-µs layers) is raised to 1 µs (source.notes says how
many). Budgets are fractions of the store-all peak; a budget below the
two-level memory floor is raised to it. Instances where neither
``offload-greedy`` nor ``dp`` finds a schedule are not shipped. solved.json is
written by ``hpcsched solved checkpoint`` (docs/checkpoint.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import hpcsched
from hpcsched.checkpoint import Instance, import_pipedream, store_all_peak
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason
from hpcsched.core.io import write_instance

FOLDER = Path(__file__).resolve().parent
NETWORKS = ("alexnet", "vgg16", "resnet18", "gnmt", "squeezenet1_0")
BUDGETS = (0.9, 0.7, 0.5)
PCIE3 = 12_000.0  # bytes per µs


def with_pcie3(chain: Instance, budget: float) -> Instance:
    """The chain with times >= 1 and a PCIe 3 link, at ``budget`` × the store-all peak (raised to the floor)."""
    raised = sum(1 for t in (*chain.fw, *chain.bw) if t < 1)
    timed = Instance.create(
        [max(1, t) for t in chain.fw],
        [max(1, t) for t in chain.bw],
        list(chain.x),
        [None, *chain.xbar[1:]],
        chain.memory,
        ftmp=list(chain.ftmp),
        btmp=list(chain.btmp),
        name=chain.name,
        time_unit=chain.time_unit,
    )
    two = timed.with_link(bandwidth_out=PCIE3, bandwidth_in=PCIE3, latency=0, duplex="full")
    peak = store_all_peak(two)
    floor = offload_memory_lower_bound_with_reason(two)[0]
    memory = max(floor, int(budget * peak))
    notes = [f"{raised} operation times of 0 µs raised to 1 µs (kind chain-offload)"]
    if memory > int(budget * peak):
        notes.append(f"budget {budget} raised to the two-level memory floor {floor / peak:.3f}")
    source = {**dict(chain.source), "link": "pcie3", "bandwidth_bytes_per_us": PCIE3, "budget": budget, "notes": notes}
    name = f"{chain.name.split('-b')[0]}-pcie3-b{round(100 * budget)}"
    return Instance(
        name,
        two.fw,
        two.bw,
        two.x,
        two.xbar,
        two.ftmp,
        two.btmp,
        memory,
        "chain-offload",
        chain.time_unit,
        source,
        PCIE3,
        PCIE3,
        0,
        "full",
    )


def has_schedule(instance: Instance) -> bool:
    """Whether ``offload-greedy`` or ``dp`` finds a schedule (an instance without one is not shipped)."""
    methods = ("offload-greedy", "dp")
    return any(hpcsched.solve(instance, method, time_limit=300).status.has_solution for method in methods)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=FOLDER.parents[2] / "shared" / "data")
    args = parser.parse_args()
    for network in NETWORKS:
        chain = import_pipedream(args.shared / "pipedream" / f"{network}.graph.txt", budget=0.9)
        seen = set()
        for budget in BUDGETS:
            instance = with_pcie3(chain, budget)
            if instance.memory in seen:  # raised to the same floor as a larger budget
                continue
            seen.add(instance.memory)
            file = f"{instance.name}.json"
            if not has_schedule(instance):
                print(file, "no schedule found by offload-greedy or dp: skipped", flush=True)
                continue
            write_instance(instance, FOLDER / file)
            print(file, flush=True)


if __name__ == "__main__":
    main()
