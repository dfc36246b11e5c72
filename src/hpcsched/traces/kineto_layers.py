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


@dataclass(frozen=True)
class _Iteration:
    """The CPU operators of one profiled step, with what the layers are read from."""

    name: str
    inside: list[dict[str, Any]]  # the step's operators, in time order
    starts: list[float]  # their start times (for bisection)
    kernel_time: dict[int, float]  # GPU time per operator External id
    backward_nodes: list[dict[str, Any]]  # the autograd nodes of `BACKWARD_OF`, in time order

    def gpu_time(self, top: dict) -> float:
        return _inclusive_gpu_time(top, self.inside, self.starts, self.kernel_time)

    @property
    def backward_start(self) -> float:
        return self.backward_nodes[0]["ts"]

    def forward_layers(self) -> list[dict[str, Any]]:
        """The top-level forward operators of `FORWARD_OPS` before the backward pass."""
        forward: list[dict[str, Any]] = []
        for event in self.inside:
            if event["name"] not in FORWARD_OPS or event["ts"] >= self.backward_start:
                continue
            if forward and _nested_in(event, forward[-1]):
                continue  # nested in the previous top-level layer
            forward.append(event)
        return forward

    def backward_us(self, event: dict[str, Any], forward: list[dict[str, Any]]) -> float:
        """GPU time of the backward node paired with forward ``event`` (0 when it has none).

        The j-th forward layer of a kind from the end pairs with the j-th
        backward node of that kind.
        """
        kind = event["name"]
        same_kind_forward = [e for e in forward if e["name"] == kind]
        rank_from_end = len(same_kind_forward) - 1 - same_kind_forward.index(event)
        same_kind_backward = [e for e in self.backward_nodes if e["name"] == BACKWARD_OF[kind]]
        if rank_from_end < len(same_kind_backward):
            return self.gpu_time(same_kind_backward[rank_from_end])
        return 0.0

    def output_bytes(self) -> int:
        """Bytes of the network's output: the input of ``log_softmax`` (0 without one)."""
        softmax = next(
            (e for e in self.inside if e["name"] == "aten::log_softmax" and e["ts"] < self.backward_start), None
        )
        output_dims = (softmax or {}).get("args", {}).get("Input Dims") or [[]]
        return 4 * prod(output_dims[0]) if output_dims[0] else 0


def _nested_in(event: dict[str, Any], previous: dict[str, Any]) -> bool:
    """``event`` starts inside ``previous`` on the same thread."""
    return event["ts"] < previous["ts"] + previous["dur"] and event.get("tid") == previous.get("tid")


def _input_bytes(event: dict[str, Any]) -> int:
    """Bytes of the first ``Input Dims`` entry, as float32 (0 when it has none)."""
    dims = event.get("args", {}).get("Input Dims") or [[]]
    return 4 * prod(dims[0]) if dims and dims[0] else 0


def _read_iteration(path: str | Path, iteration: int | None) -> _Iteration:
    """The profiled step ``iteration`` (the second by default, the last if fewer) of a Kineto trace."""
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
    backward_names = set(BACKWARD_OF.values())
    backward_nodes = [e for e in inside if e["name"] in backward_names]
    if not backward_nodes:
        raise FormatError(f"{path}: no autograd backward node in {step['name']}")
    return _Iteration(step["name"], inside, [e["ts"] for e in inside], _gpu_time_per_operator(events), backward_nodes)


def read_layers(path: str | Path, *, iteration: int | None = None) -> list[KinetoLayer]:
    """Layers of one iteration (the second profiled step by default) of a Kineto trace."""
    step = _read_iteration(path, iteration)
    forward = step.forward_layers()
    layers = [
        KinetoLayer(event["name"], step.gpu_time(event), step.backward_us(event, forward), _input_bytes(event))
        for event in forward
    ]
    if not layers:
        raise FormatError(f"{path}: no forward layer found in {step.name}")
    layers.append(KinetoLayer("output", 0.0, 0.0, step.output_bytes()))
    return layers
