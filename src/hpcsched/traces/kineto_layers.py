"""Per-layer forward/backward GPU times from a PyTorch (Kineto) training trace.

Reads the older Kineto schema of ../shared/data/kineto (``cat`` "Operator",
"Kernel", "Runtime"; kernels carry ``args["external id"]`` = the launching
operator's ``args["External id"]``).  For one training iteration
(``ProfilerStep#N``):

- forward layers are the top-level module operators in time order
  (`FORWARD_OPS`: conv2d, batch_norm, relu_, max_pool2d, the residual
  ``add_`` before the backward pass starts, adaptive_avg_pool2d, linear);
- a layer's time is the summed duration of the GPU kernels launched by it
  or by any operator nested in it on the CPU timeline;
- backward times come from the autograd nodes (`BACKWARD_OF`), paired with
  forward layers of the same kind in reverse order (the j-th conv from the
  end with the j-th ``CudnnConvolutionBackward``), i.e. a chain
  linearization of the network; a forward layer without a backward node
  gets backward time 0;
- a layer's input bytes are the product of its first ``Input Dims`` entry
  times 4 (float32); the output of the last layer is the input of
  ``log_softmax``.

This module knows no problem: it returns plain records.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from math import prod
from pathlib import Path
from typing import Any

from ..core.errors import FormatError
from ..core.io import load_json

FORWARD_OPS = (
    "aten::conv2d",
    "aten::batch_norm",
    "aten::relu_",
    "aten::max_pool2d",
    "aten::add_",
    "aten::adaptive_avg_pool2d",
    "aten::linear",
)
BACKWARD_OF = {
    "aten::conv2d": "CudnnConvolutionBackward",
    "aten::batch_norm": "CudnnBatchNormBackward",
    "aten::relu_": "ReluBackward1",
    "aten::max_pool2d": "MaxPool2DWithIndicesBackward",
    "aten::add_": "AddBackward0",
    "aten::adaptive_avg_pool2d": "MeanBackward1",
    "aten::linear": "AddmmBackward",
}


@dataclass(frozen=True)
class KinetoLayer:
    """One forward layer: operator name, GPU times (us) and input bytes."""

    operator: str
    forward_us: float
    backward_us: float
    input_bytes: int


def _gpu_time_per_operator(events: list[dict]) -> dict[int, float]:
    kernel_time: dict[int, float] = {}
    for event in events:
        if event.get("cat") in ("Kernel", "Memset", "Memcpy") and event.get("ph") == "X":
            external = event.get("args", {}).get("external id")
            if external is not None:
                kernel_time[external] = kernel_time.get(external, 0.0) + float(event.get("dur", 0))
    return kernel_time


def _inclusive_gpu_time(top: dict, operators: list[dict], starts: list[float], kernel_time: dict[int, float]) -> float:
    """Kernels of ``top`` and of every operator nested in it (same thread, inside its interval)."""
    begin, end = top["ts"], top["ts"] + top["dur"]
    total = 0.0
    index = bisect_right(starts, begin) - 1
    while index < len(operators) and operators[index]["ts"] <= end:
        op = operators[index]
        if op["ts"] >= begin and op["ts"] + op["dur"] <= end and op.get("tid") == top.get("tid"):
            total += kernel_time.get(op.get("args", {}).get("External id"), 0.0)
        index += 1
    return total


def read_layers(path: str | Path, *, iteration: int | None = None) -> list[KinetoLayer]:
    """Layers of one iteration (the second profiled step by default) of a Kineto trace."""
    document = load_json(path)
    events = document.get("traceEvents") if isinstance(document, dict) else document
    if not isinstance(events, list):
        raise FormatError(f"{path}: no traceEvents list (not a Chrome/Kineto trace?)")
    operators = sorted((e for e in events if e.get("cat") == "Operator" and e.get("ph") == "X"), key=lambda e: e["ts"])
    steps = [e for e in operators if e["name"].startswith("ProfilerStep#")]
    if not steps:
        raise FormatError(f"{path}: no ProfilerStep# operator: cannot delimit an iteration")
    step = steps[min(len(steps) - 1, 1 if iteration is None else iteration)]
    window = (step["ts"], step["ts"] + step["dur"])
    inside = [e for e in operators if window[0] <= e["ts"] <= window[1]]
    starts = [e["ts"] for e in inside]
    kernel_time = _gpu_time_per_operator(events)
    backward_names = set(BACKWARD_OF.values())
    backward_nodes = [e for e in inside if e["name"] in backward_names]
    if not backward_nodes:
        raise FormatError(f"{path}: no autograd backward node in {step['name']}")
    backward_start = backward_nodes[0]["ts"]
    forward: list[dict[str, Any]] = []
    for event in inside:
        if event["name"] not in FORWARD_OPS or event["ts"] >= backward_start:
            continue
        if (
            forward
            and event["ts"] < forward[-1]["ts"] + forward[-1]["dur"]
            and event.get("tid") == forward[-1].get("tid")
        ):
            continue  # nested in the previous top-level layer
        forward.append(event)
    softmax = next((e for e in inside if e["name"] == "aten::log_softmax" and e["ts"] < backward_start), None)
    layers = []
    for event in forward:
        kind = event["name"]
        same_kind_forward = [e for e in forward if e["name"] == kind]
        rank_from_end = len(same_kind_forward) - 1 - same_kind_forward.index(event)
        same_kind_backward = [e for e in backward_nodes if e["name"] == BACKWARD_OF[kind]]
        backward_us = 0.0
        if rank_from_end < len(same_kind_backward):
            backward_us = _inclusive_gpu_time(same_kind_backward[rank_from_end], inside, starts, kernel_time)
        dims = event.get("args", {}).get("Input Dims") or [[]]
        layers.append(
            KinetoLayer(
                kind,
                _inclusive_gpu_time(event, inside, starts, kernel_time),
                backward_us,
                4 * prod(dims[0]) if dims and dims[0] else 0,
            )
        )
    if not layers:
        raise FormatError(f"{path}: no forward layer found in {step['name']}")
    output_dims = (softmax or {}).get("args", {}).get("Input Dims") or [[]]
    layers.append(KinetoLayer("output", 0.0, 0.0, 4 * prod(output_dims[0]) if output_dims[0] else 0))
    return layers
