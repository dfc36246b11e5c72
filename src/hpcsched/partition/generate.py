"""Importer of the msr-fiddle/dnn-partitioning graphs and seeded generators of training DAGs.

Importer (`import_dnn`)
-----------------------
``../shared/data/dnn_partitioning/{latency,throughput}-inputs/**/*.json``
(msr-fiddle/dnn-partitioning, MIT; Tarnawski et al., NeurIPS 2020): nodes
with ``fpgaLatency`` (accelerator time), ``size`` (bytes), ``colorClass``
(colocation class); edges with ``cost`` (transfer time); the global
``maxSizePerFPGA`` (bytes per accelerator). Mapping and its approximations
(written to ``source["notes"]``):

* p_v = round(fpgaLatency x ``time_scale``), c_uv = round(cost x
  ``time_scale``) (nearest integer; default scale 1000). The files do not
  state their time unit; the values (a BERT-24 training iteration of 218)
  read as milliseconds, hence ``time_unit = "us"`` at scale 1000. A cost
  below half a unit becomes 0;
* w_v = size (the bytes the paper's memory constraint counts per device),
  s_v = 0 (the files give per-node memory only, not a separate output
  size): under static memory Σ w per GPU <= M is the paper's constraint;
* group = colorClass (absent: no group);
* M = ``memory`` bytes if given, else floor(``memory_fraction`` x
  maxSizePerFPGA); K = ``gpus``.

Importer (`import_pipedream`)
-----------------------------
``../shared/data/pipedream/*.graph.txt`` (msr-fiddle/pipedream profiles,
MIT): one line per layer ``nodeN -- Op(...) -- forward_compute_time=ms,
backward_compute_time=ms, activation_size=bytes, parameter_size=bytes``,
then edge lines ``nodeA -- nodeB``. Built as a training DAG: a forward node
per layer (p = forward time) and a backward node (p = backward time),
forward edges, mirrored backward edges, each forward node feeding its
backward node (its activation is kept for the backward pass), the two in
one colocation group. Times x 1000, rounded (ms -> us); w = parameter_size
(weights only: optimizer state is not in the files); s = activation_size
(a list ``[a; b; ...]``, as some GNMT layers have, is summed); transfer =
⌈s / bandwidth⌉ with ``bandwidth`` bytes per us (default 10^4, 10 GB/s);
the ``Input`` layer's forward time is data loading: it becomes 0 and the
layer gets no backward node. M = ``memory`` bytes (default 16 GiB, the
profiling GPU class).

Generators (``numpy.random.default_rng(seed)`` only; ``n`` = ``nodes``, for ``hpcsched generate --n``)
----------------------------------------------------
* `generate_training`: a layered forward/backward training DAG (a backward
  node per forward node, edges mirrored, each forward activation feeding its
  backward node: long-lived), up to 10^5 nodes and more;
* `generate_random`: a small random DAG (tests, notebooks);
* `generate_chain`: a layer chain (the special cases' class).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.io import file_sha256
from .model import MEMORY_MODELS, Instance

MAX_GENERATED_NODES = 2_000_000


def _int_option(value: Any, field: str, minimum: int, maximum: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        limit = f" and <= {maximum}" if maximum is not None else ""
        raise InvalidInstanceError(field, f"must be an integer >= {minimum}{limit}, got {value!r}")
    return value


def _number_option(value: Any, field: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low < value <= high):
        raise InvalidInstanceError(field, f"must be a number in ({low}, {high}], got {value!r}")
    return float(value)


def _model_option(value: Any) -> str:
    if value not in MEMORY_MODELS:
        raise InvalidInstanceError("options.memory_model", f"must be one of {', '.join(MEMORY_MODELS)}, got {value!r}")
    return value


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
    gpus = _int_option(gpus, "options.gpus", 1, 4096)
    time_scale = _int_option(time_scale, "options.time_scale", 1, 10**9)
    memory_fraction = _number_option(memory_fraction, "options.memory_fraction", 0.0, 1e6)
    memory_model = _model_option(memory_model)
    if memory is not None:
        memory = _int_option(memory, "options.memory", 0)
    try:
        raw = json.loads(path.read_text())
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise FormatError(f"{path}: not JSON ({error})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("nodes"), list) or not isinstance(raw.get("edges"), list):
        raise FormatError(f"{path}: expected an object with 'nodes' and 'edges' lists (a dnn-partitioning graph)")
    nodes: list[dict[str, Any]] = []
    index: dict[Any, int] = {}
    names: set[str] = set()
    for k, record in enumerate(raw["nodes"]):
        try:
            node_id, latency, size = record["id"], float(record["fpgaLatency"]), float(record["size"])
            name = str(record.get("name", node_id))
        except (KeyError, TypeError, ValueError) as error:
            raise FormatError(f"{path}: nodes[{k}] lacks id/fpgaLatency/size ({error})") from None
        if not (math.isfinite(latency) and latency >= 0 and math.isfinite(size) and size >= 0):
            raise FormatError(f"{path}: nodes[{k}] has a negative or non-finite fpgaLatency/size")
        if record.get("supportedOnFpga") is False:
            raise FormatError(f"{path}: nodes[{k}] '{name}' is not supported on the accelerator (no GPU time)")
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
    edges = []
    for k, record in enumerate(raw["edges"]):
        try:
            u, v, cost = index[record["sourceId"]], index[record["destId"]], float(record["cost"])
        except (KeyError, TypeError, ValueError) as error:
            raise FormatError(f"{path}: edges[{k}] names an unknown node or lacks a cost ({error})") from None
        if not (math.isfinite(cost) and cost >= 0):
            raise FormatError(f"{path}: edges[{k}] has a negative or non-finite cost")
        edges.append((u, v, round(cost * time_scale)))
    cap = raw.get("maxSizePerFPGA")
    if memory is None:
        if not isinstance(cap, (int, float)) or not cap > 0:
            raise FormatError(f"{path}: no maxSizePerFPGA; give options.memory")
        memory = math.floor(memory_fraction * float(cap))
    notes = [
        f"times: fpgaLatency x {time_scale} and edge cost x {time_scale}, rounded to the nearest integer "
        "(the files state no unit; milliseconds assumed, hence microseconds)",
        "persistent memory w_v = size (the paper's per-device memory), output s_v = 0 (not in the files)",
        "colocation group = colorClass",
        f"M = {memory} bytes" + ("" if cap is None else f" ({memory / float(cap):.4g} of maxSizePerFPGA = {cap:.6g})"),
    ]
    zero_costs = sum(1 for record in raw["edges"] if 0 < float(record["cost"]) * time_scale < 0.5)
    if zero_costs:
        notes.append(f"{zero_costs} edges with a cost below half a unit became 0")
    stem = path.stem
    try:
        return Instance.from_data(
            {
                "gpus": gpus,
                "memory": memory,
                "memory_model": memory_model,
                "nodes": nodes,
                "edges": [{"from": nodes[u]["name"], "to": nodes[v]["name"], "transfer": c} for u, v, c in edges],
            },
            name=f"{stem}-K{gpus}",
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
                "notes": notes,
            },
        )
    except InvalidInstanceError as error:
        raise FormatError(f"{path}: {error}") from None


def _memory_for(total: int, gpus: int, slack: float) -> int:
    return max(1, math.ceil(slack * total / gpus))


def generate_training(
    *,
    seed: int = 0,
    n: int | None = None,
    nodes: int = 200,
    gpus: int = 4,
    max_width: int = 4,
    memory_slack: float = 1.3,
    memory_model: str = "static",
    colocate: bool = True,
) -> Instance:
    """A forward/backward training DAG of about ``nodes`` nodes (forward layers, a loss, mirrored backward).

    Forward: layers of 1..``max_width`` nodes, each node fed by 1-2 nodes of
    the previous layer. Backward: one node per forward node (time 2x its
    forward time, as a backward pass costs about twice the forward), edges
    mirrored, and each forward node's activation feeding its backward node
    (the long-lived activations of training). Weights (persistent) on
    about half the forward nodes; output sizes random; transfer =
    ⌈output / 2^20⌉ (1 MiB per time unit). With ``colocate``, a forward
    node and its backward node share a group (as the real graphs'
    colorClass). M = ⌈``memory_slack`` x Σ(w + s) / K⌉.
    """
    nodes = _int_option(nodes if n is None else n, "nodes", 3, MAX_GENERATED_NODES)
    gpus = _int_option(gpus, "gpus", 1, 4096)
    max_width = _int_option(max_width, "max_width", 1, 10**6)
    memory_slack = _number_option(memory_slack, "memory_slack", 0.0, 1e6)
    memory_model = _model_option(memory_model)
    rng = np.random.default_rng(seed)
    forward_count = (nodes - 1) // 2
    widths, placed = [], 0
    while placed < forward_count:
        widths.append(min(int(rng.integers(1, max_width + 1)), forward_count - placed))
        placed += widths[-1]
    layers, next_id = [], 0
    for width in widths:
        layers.append(list(range(next_id, next_id + width)))
        next_id += width
    f = forward_count
    forward_time = rng.integers(1, 101, size=f)
    weights = np.where(rng.random(f) < 0.5, rng.integers(1, 64, size=f) * 2**20, 0)
    outputs = rng.integers(1, 32, size=f) * 2**20
    edges = []
    for previous, layer in itertools.pairwise(layers):
        for v in layer:
            parents = rng.choice(previous, size=min(len(previous), int(rng.integers(1, 3))), replace=False)
            for u in sorted(int(p) for p in parents):
                edges.append((u, v))
    # every node of a layer but the last must feed something: link orphans to the next layer's first node
    has_child = set(u for u, _ in edges)
    for previous, layer in itertools.pairwise(layers):
        for u in previous:
            if u not in has_child:
                edges.append((u, layer[0]))
    loss = f
    backward = [f + 1 + v for v in range(f)]
    edges += [(u, loss) for u in layers[-1]]
    edges += [(loss, backward[u]) for u in layers[-1]]
    edges += [(backward[v], backward[u]) for u, v in list(edges) if u < f and v < f]
    edges += [(v, backward[v]) for v in range(f)]
    n = 2 * f + 1
    time = [int(t) for t in forward_time] + [1] + [int(2 * t) for t in forward_time]
    persistent = [int(w) for w in weights] + [0] + [0] * f
    output = [int(s) for s in outputs] + [2**20] + [int(s) for s in outputs]
    group = [f"L{v}" for v in range(f)] + [None] + [f"L{v}" for v in range(f)] if colocate else None
    unique = sorted(set(edges))
    edge_list = [(u, v, math.ceil(output[u] / 2**20)) for u, v in unique]
    total = sum(persistent) + sum(output)
    names = [f"fwd{v}" for v in range(f)] + ["loss"] + [f"bwd{v}" for v in range(f)]
    return Instance.create(
        time,
        edge_list,
        gpus=gpus,
        memory=_memory_for(total, gpus, memory_slack),
        persistent=persistent,
        output=output,
        group=group,
        memory_model=memory_model,
        names=names,
        name=f"training-n{n}-K{gpus}-s{seed}",
        time_unit=None,
        source={
            "generator": "training",
            "seed": seed,
            "parameters": {
                "nodes": nodes,
                "gpus": gpus,
                "max_width": max_width,
                "memory_slack": memory_slack,
                "memory_model": memory_model,
                "colocate": colocate,
            },
        },
    )


def generate_random(
    *,
    seed: int = 0,
    n: int | None = None,
    nodes: int = 6,
    gpus: int = 2,
    edge_probability: float = 0.3,
    max_time: int = 9,
    max_transfer: int = 5,
    memory_slack: float = 1.5,
    memory_model: str = "static",
    groups: int = 0,
) -> Instance:
    """A random DAG (edges u -> v with u < v, each with ``edge_probability``), small integer data.

    Memory sizes in 1..9 bytes (w) and 0..5 (s); M = ⌈``memory_slack`` x
    Σ(w + s) / K⌉, at least the largest node; ``groups`` > 0 puts the first
    2·groups nodes in pairs.
    """
    nodes = _int_option(nodes if n is None else n, "nodes", 1, 100_000)
    gpus = _int_option(gpus, "gpus", 1, 4096)
    rng = np.random.default_rng(seed)
    time = [int(t) for t in rng.integers(0, max_time + 1, size=nodes)]
    persistent = [int(w) for w in rng.integers(1, 10, size=nodes)]
    output = [int(s) for s in rng.integers(0, 6, size=nodes)]
    edges = [
        (u, v, int(rng.integers(0, max_transfer + 1)))
        for u in range(nodes)
        for v in range(u + 1, nodes)
        if rng.random() < edge_probability
    ]
    group = [f"g{i // 2}" if i < 2 * groups else None for i in range(nodes)]
    total = sum(persistent) + sum(output)
    memory = max(
        max(w + s for w, s in zip(persistent, output, strict=False)) * (2 if groups else 1),
        _memory_for(total, gpus, memory_slack),
    )
    return Instance.create(
        time,
        edges,
        gpus=gpus,
        memory=memory,
        persistent=persistent,
        output=output,
        group=group,
        memory_model=_model_option(memory_model),
        name=f"random-n{nodes}-K{gpus}-s{seed}",
        source={
            "generator": "random",
            "seed": seed,
            "parameters": {
                "nodes": nodes,
                "gpus": gpus,
                "edge_probability": edge_probability,
                "max_time": max_time,
                "max_transfer": max_transfer,
                "memory_slack": memory_slack,
                "memory_model": memory_model,
                "groups": groups,
            },
        },
    )


def generate_chain(
    *,
    seed: int = 0,
    n: int | None = None,
    nodes: int = 12,
    gpus: int = 3,
    max_time: int = 20,
    max_transfer: int = 6,
    memory_slack: float = 1.2,
) -> Instance:
    """A layer chain v0 -> v1 -> ... with random times, weights and transfers (static memory)."""
    nodes = _int_option(nodes if n is None else n, "nodes", 1, MAX_GENERATED_NODES)
    gpus = _int_option(gpus, "gpus", 1, 4096)
    rng = np.random.default_rng(seed)
    time = [int(t) for t in rng.integers(1, max_time + 1, size=nodes)]
    persistent = [int(w) for w in rng.integers(1, 20, size=nodes)]
    edges = [(v, v + 1, int(rng.integers(0, max_transfer + 1))) for v in range(nodes - 1)]
    memory = max(max(persistent), _memory_for(sum(persistent), gpus, memory_slack))
    return Instance.create(
        time,
        edges,
        gpus=gpus,
        memory=memory,
        persistent=persistent,
        name=f"chain-n{nodes}-K{gpus}-s{seed}",
        source={
            "generator": "chain",
            "seed": seed,
            "parameters": {
                "nodes": nodes,
                "gpus": gpus,
                "max_time": max_time,
                "max_transfer": max_transfer,
                "memory_slack": memory_slack,
            },
        },
    )


def import_pipedream(
    path: str | Path, *, gpus: int = 4, memory: int = 16 * 2**30, bandwidth: int = 10_000, memory_model: str = "static"
) -> Instance:
    """A PipeDream layer profile as a forward/backward training DAG (module docstring for the mapping)."""
    import re

    path = Path(path)
    gpus = _int_option(gpus, "options.gpus", 1, 4096)
    memory = _int_option(memory, "options.memory", 0)
    bandwidth = _int_option(bandwidth, "options.bandwidth", 1)
    memory_model = _model_option(memory_model)
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not a text file") from None
    pattern = re.compile(
        r"forward_compute_time=([^,]+), backward_compute_time=([^,]+), "
        r"activation_size=(\[[^\]]*\]|[^,]+), parameter_size=(\S+)"
    )
    layers: dict[str, dict] = {}
    links = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parts = [part.strip() for part in line.strip().split(" -- ")]
        if line.startswith(("\t", " ")) and len(parts) == 2:
            links.append((parts[0], parts[1], number))
            continue
        match = pattern.search(line)
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
        layers[parts[0]] = {
            "op": parts[1].split("(")[0],
            "forward": 0 if is_input else forward,
            "backward": None if is_input else backward,
            "activation": activation,
            "parameters": parameters,
        }
    for u, v, number in links:
        if u not in layers or v not in layers:
            raise FormatError(f"{path}:{number}: edge names an unknown layer")
    nodes, edges = [], []
    for name, layer in layers.items():
        nodes.append(
            {
                "name": f"{name}.fwd",
                "time": round(layer["forward"] * 1000),
                "persistent": round(layer["parameters"]),
                "output": round(layer["activation"]),
                "group": name,
            }
        )
    for name, layer in layers.items():
        if layer["backward"] is not None:
            nodes.append(
                {
                    "name": f"{name}.bwd",
                    "time": round(layer["backward"] * 1000),
                    "persistent": 0,
                    "output": round(layer["activation"]),
                    "group": name,
                }
            )

    def transfer(size: float) -> int:
        return math.ceil(size / bandwidth)

    has_backward = {name for name, layer in layers.items() if layer["backward"] is not None}
    for u, v, _ in links:
        edges.append({"from": f"{u}.fwd", "to": f"{v}.fwd", "transfer": transfer(layers[u]["activation"])})
        if u in has_backward and v in has_backward:
            edges.append({"from": f"{v}.bwd", "to": f"{u}.bwd", "transfer": transfer(layers[v]["activation"])})
    for name in has_backward:  # the last forward layer's link to its backward node starts the backward pass
        edges.append({"from": f"{name}.fwd", "to": f"{name}.bwd", "transfer": 0})  # same group: never charged
    notes = [
        "times: forward/backward_compute_time x 1000, rounded (ms -> us)",
        "persistent w = parameter_size (no optimizer state in the files); output s = activation_size (lists summed)",
        f"transfer = ceil(activation_size / {bandwidth} bytes per us)",
        "Input layer: forward time (data loading) set to 0, no backward node",
        f"M = {memory} bytes (options.memory)",
    ]
    try:
        return Instance.from_data(
            {"gpus": gpus, "memory": memory, "memory_model": memory_model, "nodes": nodes, "edges": edges},
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
