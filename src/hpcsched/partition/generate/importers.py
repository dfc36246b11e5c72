"""Importers of real graphs: msr-fiddle/dnn-partitioning (`import_dnn`) and PipeDream profiles (`import_pipedream`).

The mapping and its approximations are described in `hpcsched.partition.generate`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ...core.errors import FormatError, InvalidInstanceError
from ...core.io import file_sha256
from ..model import Instance
from .options import int_option, model_option, number_option


def import_dnn(
    path: str | Path,
    *,
    gpus: int = 2,
    memory: int | None = None,
    memory_fraction: float = 1.0,
    time_scale: int = 1000,
    memory_model: str = "static",
) -> Instance:
    """One graph of msr-fiddle/dnn-partitioning on ``gpus`` GPUs (module docstring for the mapping)."""
    path = Path(path)
    gpus = int_option(gpus, "options.gpus", 1, 4096)
    time_scale = int_option(time_scale, "options.time_scale", 1, 10**9)
    memory_fraction = number_option(memory_fraction, "options.memory_fraction", 0.0, 1e6)
    memory_model = model_option(memory_model)
    if memory is not None:
        memory = int_option(memory, "options.memory", 0)
    raw = _read_dnn_graph(path)
    nodes, index = _dnn_nodes(path, raw["nodes"], time_scale)
    edges = _dnn_edges(path, raw["edges"], index, time_scale)
    cap = raw.get("maxSizePerFPGA")
    if memory is None:
        if not isinstance(cap, (int, float)) or not cap > 0:
            raise FormatError(f"{path}: no maxSizePerFPGA; give options.memory")
        memory = math.floor(memory_fraction * float(cap))
    try:
        return Instance.from_data(
            {
                "gpus": gpus,
                "memory": memory,
                "memory_model": memory_model,
                "nodes": nodes,
                "edges": [{"from": nodes[u]["name"], "to": nodes[v]["name"], "transfer": c} for u, v, c in edges],
            },
            name=f"{path.stem}-K{gpus}",
            time_unit="us" if time_scale == 1000 else None,
            source={
                "importer": "dnn",
                "file": path.name,
                "folder": path.parent.name,
                "sha256": file_sha256(path),
                "options": {
                    "gpus": gpus,
                    "memory": memory,
                    "memory_fraction": memory_fraction,
                    "time_scale": time_scale,
                    "memory_model": memory_model,
                },
                "notes": _dnn_notes(raw["edges"], time_scale, memory, cap),
            },
        )
    except InvalidInstanceError as error:
        raise FormatError(f"{path}: {error}") from None


def _read_dnn_graph(path: Path) -> dict[str, Any]:
    """The file's JSON object, checked to hold ``nodes`` and ``edges`` lists."""
    try:
        raw = json.loads(path.read_text())
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise FormatError(f"{path}: not JSON ({error})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("nodes"), list) or not isinstance(raw.get("edges"), list):
        raise FormatError(f"{path}: expected an object with 'nodes' and 'edges' lists (a dnn-partitioning graph)")
    return raw


def _dnn_nodes(path: Path, records: list[Any], time_scale: int) -> tuple[list[dict[str, Any]], dict[Any, int]]:
    """Node records of the instance (duplicate names suffixed with ``#id``) and the file id -> index map."""
    nodes: list[dict[str, Any]] = []
    index: dict[Any, int] = {}
    names: set[str] = set()
    for k, record in enumerate(records):
        node_id, name, latency, size = _dnn_node_fields(path, k, record)
        if name in names:
            name = f"{name}#{node_id}"
        names.add(name)
        index[node_id] = len(nodes)
        nodes.append(
            {
                "name": name,
                "time": round(latency * time_scale),
                "persistent": round(size),
                "output": 0,
                "group": record.get("colorClass"),
            }
        )
    return nodes, index


def _dnn_node_fields(path: Path, k: int, record: Any) -> tuple[Any, str, float, float]:
    """``(id, name, fpgaLatency, size)`` of node record k, checked (finite, non-negative, supported)."""
    try:
        node_id, latency, size = record["id"], float(record["fpgaLatency"]), float(record["size"])
        name = str(record.get("name", node_id))
    except (KeyError, TypeError, ValueError) as error:
        raise FormatError(f"{path}: nodes[{k}] lacks id/fpgaLatency/size ({error})") from None
    if not (math.isfinite(latency) and latency >= 0 and math.isfinite(size) and size >= 0):
        raise FormatError(f"{path}: nodes[{k}] has a negative or non-finite fpgaLatency/size")
    if record.get("supportedOnFpga") is False:
        raise FormatError(f"{path}: nodes[{k}] '{name}' is not supported on the accelerator (no GPU time)")
    return node_id, name, latency, size


def _dnn_edges(path: Path, records: list[Any], index: dict[Any, int], time_scale: int) -> list[tuple[int, int, int]]:
    """``(u, v, transfer)`` per edge record, the cost scaled and rounded."""
    edges = []
    for k, record in enumerate(records):
        try:
            u, v, cost = index[record["sourceId"]], index[record["destId"]], float(record["cost"])
        except (KeyError, TypeError, ValueError) as error:
            raise FormatError(f"{path}: edges[{k}] names an unknown node or lacks a cost ({error})") from None
        if not (math.isfinite(cost) and cost >= 0):
            raise FormatError(f"{path}: edges[{k}] has a negative or non-finite cost")
        edges.append((u, v, round(cost * time_scale)))
    return edges


def _dnn_notes(edge_records: list[Any], time_scale: int, memory: int, cap: Any) -> list[str]:
    """The approximations of `import_dnn`, as the ``import`` command prints them."""
    notes = [
        f"times: fpgaLatency x {time_scale} and edge cost x {time_scale}, rounded to the nearest integer "
        "(the files state no unit; milliseconds assumed, hence microseconds)",
        "persistent memory w_v = size (the paper's per-device memory), output s_v = 0 (not in the files)",
        "colocation group = colorClass",
        f"M = {memory} bytes" + ("" if cap is None else f" ({memory / float(cap):.4g} of maxSizePerFPGA = {cap:.6g})"),
    ]
    zero_costs = sum(1 for record in edge_records if 0 < float(record["cost"]) * time_scale < 0.5)
    if zero_costs:
        notes.append(f"{zero_costs} edges with a cost below half a unit became 0")
    return notes


_PIPEDREAM_LAYER = re.compile(
    r"forward_compute_time=([^,]+), backward_compute_time=([^,]+), "
    r"activation_size=(\[[^\]]*\]|[^,]+), parameter_size=(\S+)"
)


def import_pipedream(
    path: str | Path, *, gpus: int = 4, memory: int = 16 * 2**30, bandwidth: int = 10_000, memory_model: str = "static"
) -> Instance:
    """A PipeDream layer profile as a forward/backward training DAG (module docstring for the mapping)."""
    path = Path(path)
    gpus = int_option(gpus, "options.gpus", 1, 4096)
    memory = int_option(memory, "options.memory", 0)
    bandwidth = int_option(bandwidth, "options.bandwidth", 1)
    memory_model = model_option(memory_model)
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not a text file") from None
    layers, links = _pipedream_layers(path, lines)
    notes = [
        "times: forward/backward_compute_time x 1000, rounded (ms -> us)",
        "persistent w = parameter_size (no optimizer state in the files); output s = activation_size (lists summed)",
        f"transfer = ceil(activation_size / {bandwidth} bytes per us)",
        "Input layer: forward time (data loading) set to 0, no backward node",
        f"M = {memory} bytes (options.memory)",
    ]
    try:
        return Instance.from_data(
            {
                "gpus": gpus,
                "memory": memory,
                "memory_model": memory_model,
                "nodes": _pipedream_nodes(layers),
                "edges": _pipedream_edges(layers, links, bandwidth),
            },
            name=f"{path.name.split('.')[0]}-K{gpus}",
            time_unit="us",
            source={
                "importer": "pipedream",
                "file": path.name,
                "sha256": file_sha256(path),
                "options": {"gpus": gpus, "memory": memory, "bandwidth": bandwidth, "memory_model": memory_model},
                "notes": notes,
            },
        )
    except InvalidInstanceError as error:
        raise FormatError(f"{path}: {error}") from None


def _pipedream_layers(path: Path, lines: list[str]) -> tuple[dict[str, dict], list[tuple[str, str, int]]]:
    """The layers (by name, in file order) and the links ``(from, to, line number)`` of a profile, checked."""
    layers: dict[str, dict] = {}
    links = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parts = [part.strip() for part in line.strip().split(" -- ")]
        if line.startswith(("\t", " ")) and len(parts) == 2:
            links.append((parts[0], parts[1], number))
            continue
        layers[parts[0]] = _pipedream_layer(path, number, line, parts)
    for u, v, number in links:
        if u not in layers or v not in layers:
            raise FormatError(f"{path}:{number}: edge names an unknown layer")
    return layers, links


def _pipedream_layer(path: Path, number: int, line: str, parts: list[str]) -> dict[str, Any]:
    """One layer line: op, forward time (0 for an Input), backward time (None for an Input), sizes."""
    match = _PIPEDREAM_LAYER.search(line)
    if len(parts) < 3 or match is None:
        raise FormatError(f"{path}:{number}: expected 'nodeN -- Op -- forward_compute_time=...' or an edge line")
    try:
        forward, backward = float(match.group(1)), float(match.group(2))
        activation = sum(float(x) for x in match.group(3).strip("[]").split(";"))
        parameters = float(match.group(4))
    except ValueError:
        raise FormatError(f"{path}:{number}: a time or size is not a number") from None
    if min(forward, backward, activation, parameters) < 0:
        raise FormatError(f"{path}:{number}: negative time or size")
    is_input = parts[1].startswith("Input")
    return {
        "op": parts[1].split("(")[0],
        "forward": 0 if is_input else forward,
        "backward": None if is_input else backward,
        "activation": activation,
        "parameters": parameters,
    }


def _pipedream_nodes(layers: dict[str, dict]) -> list[dict[str, Any]]:
    """A forward node per layer, then a backward node per layer that has one; each layer's nodes in one group."""
    nodes = [
        {
            "name": f"{name}.fwd",
            "time": round(layer["forward"] * 1000),
            "persistent": round(layer["parameters"]),
            "output": round(layer["activation"]),
            "group": name,
        }
        for name, layer in layers.items()
    ]
    nodes += [
        {
            "name": f"{name}.bwd",
            "time": round(layer["backward"] * 1000),
            "persistent": 0,
            "output": round(layer["activation"]),
            "group": name,
        }
        for name, layer in layers.items()
        if layer["backward"] is not None
    ]
    return nodes


def _pipedream_edges(layers: dict[str, dict], links: list[tuple[str, str, int]], bandwidth: int) -> list[dict]:
    """Forward links, their mirrored backward links, and each forward node feeding its backward node."""

    def transfer(size: float) -> int:
        return math.ceil(size / bandwidth)

    edges = []
    has_backward = {name for name, layer in layers.items() if layer["backward"] is not None}
    for u, v, _ in links:
        edges.append({"from": f"{u}.fwd", "to": f"{v}.fwd", "transfer": transfer(layers[u]["activation"])})
        if u in has_backward and v in has_backward:
            edges.append({"from": f"{v}.bwd", "to": f"{u}.bwd", "transfer": transfer(layers[v]["activation"])})
    # in file order (iterating the set made the edge order depend on PYTHONHASHSEED)
    for name in (name for name in layers if name in has_backward):
        # the last forward layer's link to its backward node starts the backward pass
        edges.append({"from": f"{name}.fwd", "to": f"{name}.bwd", "transfer": 0})  # same group: never charged
    return edges
