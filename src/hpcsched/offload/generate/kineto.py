"""The Kineto importer: a PyTorch training trace's per-layer GPU times as a chain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.io import file_sha256
from ...traces.kineto_layers import read_layers
from ..model import Instance
from .synthetic import _check_link, _finish


def import_kineto(
    path: str | Path,
    *,
    budget: float = 0.6,
    link: str = "pcie3",
    bandwidth: float | None = None,
    latency: int = 0,
    duplex: str = "full",
    memory: int | None = None,
    iteration: int | None = None,
    name: str | None = None,
) -> Instance:
    """An offload Instance from a PyTorch/Kineto training trace (per-layer GPU kernel times).

    The layers, their GPU times and input sizes come from
    `hpcsched.traces.kineto_layers.read_layers` (see its docstring: one
    iteration, top-level module operators in time order, backward nodes
    paired in reverse order of the same kind, float32 sizes).  The same
    chain approximation of skip connections as for PipeDream applies (the
    residual ``add_`` writes into its first input; its second input's extra
    lifetime is ignored).  Times are kernel microseconds, rounded to
    integers; idle gaps and CPU-side time are not part of f and b.

    In-place operators (aten names ending in ``_``: ``relu_``, the residual
    ``add_``) write into their input's storage: their output is no new
    tensor, so each is folded into the layer before it (times added, one
    activation: the storage both share).  ResNet-50: 174 operators, 109
    layers.
    """
    _check_link(budget, link, bandwidth, latency, duplex, memory)
    path = Path(path)
    layers = read_layers(path, iteration=iteration)
    records, output = layers[:-1], layers[-1]
    # Fold each in-place operator into the layer before it: its output is its input's storage.
    chain: list[dict[str, Any]] = []
    activation = [records[0].input_bytes] if records else []
    folded = 0
    for k, record in enumerate(records):
        output_bytes = records[k + 1].input_bytes if k + 1 < len(records) else output.input_bytes
        if chain and record.operator.endswith("_"):
            chain[-1]["forward_us"] += record.forward_us
            chain[-1]["backward_us"] += record.backward_us
            folded += 1
            continue
        chain.append({"operator": record.operator, "forward_us": record.forward_us, "backward_us": record.backward_us})
        activation.append(output_bytes)
    source = {
        "importer": "kineto",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {
            "budget": budget,
            "link": link,
            "bandwidth": bandwidth,
            "latency": latency,
            "duplex": duplex,
            "memory": memory,
            "iteration": iteration,
        },
        "time_rounding": "kernel us rounded to integers",
        "notes": [
            f"{len(records)} operators -> {len(chain)} layers: {folded} in-place operator(s) (relu_, add_) "
            "folded into the layer before them (no tensor of their own)",
            "skip connections: the residual add_'s second input is kept only until the next layer's "
            "backward in the chain (approximation)",
        ],
    }
    network = path.name.split(".")[0]
    label = link if bandwidth is None else f"bw{bandwidth:g}"
    default_name = f"{network}-{label}-{round(100 * budget)}" if memory is None else f"{network}-{label}-m{memory}"
    return _finish(
        name or default_name,
        [round(layer["forward_us"]) for layer in chain],
        [round(layer["backward_us"]) for layer in chain],
        activation,
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        source=source,
        layers=[f"{k + 1}:{layer['operator'].replace('aten::', '')}" for k, layer in enumerate(chain)],
        memory=memory,
    )
