"""Write the offload instances of the chains profiled on an H100 (run from the repository root).

    .venv/bin/python instances/offload/make_h100.py

Each is the two-level checkpoint chain ``instances/checkpoint/<network>-h100-link-b<B>.json``
(profiled by ``instances/checkpoint/profile_gpu.py``, link measured on the same
machine) mapped by `hpcsched.checkpoint.offload_mapping.to_offload_instance`:
the same chain solved as offload only (no recomputation), beside remat only
and both in the checkpoint package. The mapping keeps a_i = xbar_i (output
plus what autograd saves), so the gradient δ_i, which the offload model
sizes like a_i, is over-sized where xbar_i > x_i: stated in ``source``.
Chains whose mapped instance is infeasible (a step that no offload decision
can fit: ResNet-50 at 0.5, the transformer at 0.3) are not written.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import hpcsched
from hpcsched.checkpoint.offload_mapping import to_offload_instance
from hpcsched.core.io import file_sha256, read_instance, write_instance

HERE = Path(__file__).resolve().parent
CHAINS = HERE.parent / "checkpoint"
NAMES = ("transformer12-h100-link-b50", "vgg16-h100-link-b30", "transformer12-h100-link-b30", "resnet50-h100-link-b50")


def main() -> None:
    for name in NAMES:
        file = CHAINS / f"{name}.json"
        chain = read_instance(file)
        mapped = to_offload_instance(chain)
        source = {
            "importer": "checkpoint-mapping",
            **dict(mapped.source),
            "file": f"checkpoint/{file.name}",
            "sha256": file_sha256(file),
            "profiled": {key: chain.source[key] for key in ("model", "input", "gpu", "torch", "cuda")},
            "notes": [
                "a_i = xbar_i (output + tensors autograd saves); the offload model sizes the gradient δ_i like a_i, "
                "so δ_i is over-sized where xbar_i > x_i",
                f"memory = the chain's M ({chain.source['budget']} x its store-all peak); link measured on the GPU",
            ],
        }
        instance = dataclasses.replace(mapped, name=name.replace("-link-b", "-"), source=source)
        if hpcsched.solve(instance, "cpsat", time_limit=60).status.name == "INFEASIBLE":
            print(instance.name, "not written: infeasible (a step no offload decision fits)", flush=True)
            continue
        write_instance(instance, HERE / f"{instance.name}.json")
        print(instance.name, flush=True)


if __name__ == "__main__":
    main()
