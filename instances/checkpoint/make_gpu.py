"""Write the checkpoint instances profiled on an H100 (run from the repository root).

    .venv/bin/python instances/checkpoint/make_gpu.py

Input: ``measured/<network>-h100.profile.json`` and ``measured/link-h100.json``,
written on an NVIDIA H100 80GB HBM3 by ``profile_gpu.py`` (its docstring says
what was measured: torchvision ResNet-50 and VGG16 at batch 64, 12
transformer encoder layers at batch 8 x 1024 tokens, fp32, and ResNet-50
and the transformer again in pure bfloat16 (``--bf16``: parameters and
input in bf16), with `hpcsched.checkpoint.profile.profile_chain`). Outputs:

* ``<network>-h100-b<B>.json``: the chain at B % of its store-all peak
  (kind chain; a budget below the recompute-all peak is raised to it and
  the file says so; duplicates after raising are skipped);
* ``<network>-h100-link-b<B>.json``: the same chain with the host link
  measured on that machine (kind chain-offload): pinned copies of 256 MiB
  both ways at once, each direction at the rate measured when both run
  (the conservative full-duplex figure), latency 0. Kind chain-offload
  needs operation times >= 1 µs (all measured ones are).

A file whose memory, after raising, holds the store-all peak is not written
(nothing is left to decide); nor is a duplicate of a larger budget, nor a
two-level chain where neither ``offload-greedy`` nor ``dp`` finds a schedule
(ResNet-50 with the link at 0.3 is written since ``offload-greedy`` also tries
the remat ``greedy`` sequences: 253,582 µs in fp32, 103,327 in bf16). VGG16 is
such a chain at every budget: its peak is in the backward of the second
convolution (3.1 GiB of transients beside the 0.77 GiB activations of the first
block), which every sequence reaches, so only its profile ships.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import hpcsched
from hpcsched.checkpoint import Instance, store_all_peak
from hpcsched.checkpoint.generate import with_budget
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason
from hpcsched.core.io import file_sha256, read_instance, write_instance

FOLDER = Path(__file__).resolve().parent
MEASURED = FOLDER / "measured"
NETWORKS = ("resnet50", "vgg16", "transformer12", "resnet50-bf16", "transformer12-bf16")
BUDGETS = (0.3, 0.5, 0.7)
LINK_BUDGETS = (0.3, 0.5)


def chain_at(profile: Instance, budget: float, file: Path) -> Instance:
    """The profiled chain at ``budget`` × its store-all peak, with the profile file named in ``source``."""
    source = {**dict(profile.source), "files": [{"file": f"measured/{file.name}", "sha256": file_sha256(file)}]}
    source["notes"] = [note for note in source.get("notes", []) if "budget" not in note]
    source["budget"] = budget
    return with_budget(
        list(profile.fw),
        list(profile.bw),
        list(profile.x),
        [None, *profile.xbar[1:]],
        budget=budget,
        name=f"{profile.name}-b{round(100 * budget)}",
        source=source,
        time_unit=profile.time_unit,
        ftmp=list(profile.ftmp),
        btmp=list(profile.btmp),
    )


def with_measured_link(chain: Instance, link: dict, budget: float) -> Instance:
    """``chain`` with the measured host link, M = budget × its store-all peak (raised to the two-level floor)."""
    both = link["bytes"] / (1000 * link["both_directions_ms"])  # bytes per µs each way when both directions run
    two = chain.with_link(bandwidth_out=both, bandwidth_in=both, latency=0, duplex="full")
    peak = store_all_peak(two)
    floor = offload_memory_lower_bound_with_reason(two)[0]
    memory = max(floor, round(budget * peak))
    notes = list(chain.source.get("notes", []))
    if memory > round(budget * peak):
        notes.append(f"budget {budget} raised to the two-level memory floor {floor / peak:.3f}")
    source = {
        **dict(chain.source),
        "link": "measured: pinned host memory, both directions at once (measured/link-h100.json)",
        "bandwidth_bytes_per_us": both,
        "budget": budget,
        "notes": notes,
    }
    name = f"{chain.name.rsplit('-b', 1)[0]}-link-b{round(100 * budget)}"
    return dataclasses.replace(two, memory=memory, source=source, name=name)


def has_schedule(instance: Instance) -> bool:
    """Whether ``offload-greedy`` or ``dp`` finds a schedule of a two-level chain (always true of a plain chain)."""
    if instance.kind != "chain-offload":
        return True
    return any(hpcsched.solve(instance, m, time_limit=300).status.has_solution for m in ("offload-greedy", "dp"))


def main() -> None:
    link = json.loads((MEASURED / "link-h100.json").read_text())
    for network in NETWORKS:
        file = MEASURED / f"{network}-h100.profile.json"
        profile = read_instance(file)
        candidates = [chain_at(profile, budget, file) for budget in BUDGETS]
        candidates += [with_measured_link(chain_at(profile, 1.0, file), link, budget) for budget in LINK_BUDGETS]
        seen = set()
        for instance in candidates:
            if instance.memory >= store_all_peak(instance) or (instance.kind, instance.memory) in seen:
                print(instance.name, "not written: store-all fits or a duplicate", flush=True)
                continue
            if not has_schedule(instance):
                print(instance.name, "not written: neither offload-greedy nor dp finds a schedule", flush=True)
                continue
            seen.add((instance.kind, instance.memory))
            write_instance(instance, FOLDER / f"{instance.name}.json")
            print(instance.name, instance.memory, flush=True)


if __name__ == "__main__":
    main()
