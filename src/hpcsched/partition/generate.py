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

Generators (``numpy.random.default_rng(seed)`` only; ``n`` = ``nodes``, for ``hpcsched generate --n``)
----------------------------------------------------
* `generate_training`: a layered forward/backward training DAG (a backward
  node per forward node, edges mirrored, each forward activation feeding its
  backward node: long-lived), up to 10^5 nodes and more;
* `generate_random`: a small random DAG (tests, notebooks);
* `generate_chain`: a layer chain (the special cases' class).
"""

from __future__ import annotations

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
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (maximum is not None and value > maximum):
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


def import_dnn(path: str | Path, *, gpus: int = 2, memory: int | None = None, memory_fraction: float = 1.0,
               time_scale: int = 1000, memory_model: str = "static") -> Instance:
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
    nodes, index, names = [], {}, set()
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
        nodes.append({"name": name, "time": int(round(latency * time_scale)), "persistent": int(round(size)),
                      "output": 0, "group": record.get("colorClass")})
    edges = []
    for k, record in enumerate(raw["edges"]):
        try:
            u, v, cost = index[record["sourceId"]], index[record["destId"]], float(record["cost"])
        except (KeyError, TypeError, ValueError) as error:
            raise FormatError(f"{path}: edges[{k}] names an unknown node or lacks a cost ({error})") from None
        if not (math.isfinite(cost) and cost >= 0):
            raise FormatError(f"{path}: edges[{k}] has a negative or non-finite cost")
        edges.append((u, v, int(round(cost * time_scale))))
    cap = raw.get("maxSizePerFPGA")
    if memory is None:
        if not isinstance(cap, (int, float)) or not cap > 0:
            raise FormatError(f"{path}: no maxSizePerFPGA; give options.memory")
        memory = int(math.floor(memory_fraction * float(cap)))
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
            {"gpus": gpus, "memory": memory, "memory_model": memory_model,
             "nodes": nodes,
             "edges": [{"from": nodes[u]["name"], "to": nodes[v]["name"], "transfer": c} for u, v, c in edges]},
            name=f"{stem}-K{gpus}", time_unit="us" if time_scale == 1000 else None,
            source={"importer": "dnn", "file": path.name, "folder": path.parent.name, "sha256": file_sha256(path),
                    "options": {"gpus": gpus, "memory": memory, "memory_fraction": memory_fraction,
                                "time_scale": time_scale, "memory_model": memory_model},
                    "notes": notes},
        )
    except InvalidInstanceError as error:
        raise FormatError(f"{path}: {error}") from None


def _memory_for(total: int, gpus: int, slack: float) -> int:
    return max(1, int(math.ceil(slack * total / gpus)))


def generate_training(*, seed: int = 0, n: int | None = None, nodes: int = 200, gpus: int = 4, max_width: int = 4,
                      memory_slack: float = 1.3, memory_model: str = "static", colocate: bool = True) -> Instance:
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
        widths.append(int(min(rng.integers(1, max_width + 1), forward_count - placed)))
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
    for previous, layer in zip(layers, layers[1:]):
        for v in layer:
            parents = rng.choice(previous, size=min(len(previous), int(rng.integers(1, 3))), replace=False)
            for u in sorted(int(p) for p in parents):
                edges.append((u, v))
    # every node of a layer but the last must feed something: link orphans to the next layer's first node
    has_child = set(u for u, _ in edges)
    for previous, layer in zip(layers, layers[1:]):
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
    edge_list = [(u, v, int(math.ceil(output[u] / 2**20))) for u, v in unique]
    total = sum(persistent) + sum(output)
    names = [f"fwd{v}" for v in range(f)] + ["loss"] + [f"bwd{v}" for v in range(f)]
    return Instance.create(time, edge_list, gpus=gpus, memory=_memory_for(total, gpus, memory_slack),
                           persistent=persistent, output=output, group=group, memory_model=memory_model, names=names,
                           name=f"training-n{n}-K{gpus}-s{seed}", time_unit=None,
                           source={"generator": "training", "seed": seed,
                                   "parameters": {"nodes": nodes, "gpus": gpus, "max_width": max_width,
                                                  "memory_slack": memory_slack, "memory_model": memory_model,
                                                  "colocate": colocate}})


def generate_random(*, seed: int = 0, n: int | None = None, nodes: int = 6, gpus: int = 2, edge_probability: float = 0.3,
                    max_time: int = 9, max_transfer: int = 5, memory_slack: float = 1.5,
                    memory_model: str = "static", groups: int = 0) -> Instance:
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
    edges = [(u, v, int(rng.integers(0, max_transfer + 1))) for u in range(nodes) for v in range(u + 1, nodes)
             if rng.random() < edge_probability]
    group = [f"g{i // 2}" if i < 2 * groups else None for i in range(nodes)]
    total = sum(persistent) + sum(output)
    memory = max(max(w + s for w, s in zip(persistent, output)) * (2 if groups else 1),
                 _memory_for(total, gpus, memory_slack))
    return Instance.create(time, edges, gpus=gpus, memory=memory, persistent=persistent, output=output, group=group,
                           memory_model=_model_option(memory_model), name=f"random-n{nodes}-K{gpus}-s{seed}",
                           source={"generator": "random", "seed": seed,
                                   "parameters": {"nodes": nodes, "gpus": gpus, "edge_probability": edge_probability,
                                                  "max_time": max_time, "max_transfer": max_transfer,
                                                  "memory_slack": memory_slack, "memory_model": memory_model,
                                                  "groups": groups}})


def generate_chain(*, seed: int = 0, n: int | None = None, nodes: int = 12, gpus: int = 3, max_time: int = 20, max_transfer: int = 6,
                   memory_slack: float = 1.2) -> Instance:
    """A layer chain v0 -> v1 -> ... with random times, weights and transfers (static memory)."""
    nodes = _int_option(nodes if n is None else n, "nodes", 1, MAX_GENERATED_NODES)
    gpus = _int_option(gpus, "gpus", 1, 4096)
    rng = np.random.default_rng(seed)
    time = [int(t) for t in rng.integers(1, max_time + 1, size=nodes)]
    persistent = [int(w) for w in rng.integers(1, 20, size=nodes)]
    edges = [(v, v + 1, int(rng.integers(0, max_transfer + 1))) for v in range(nodes - 1)]
    memory = max(max(persistent), _memory_for(sum(persistent), gpus, memory_slack))
    return Instance.create(time, edges, gpus=gpus, memory=memory, persistent=persistent,
                           name=f"chain-n{nodes}-K{gpus}-s{seed}",
                           source={"generator": "chain", "seed": seed,
                                   "parameters": {"nodes": nodes, "gpus": gpus, "max_time": max_time,
                                                  "max_transfer": max_transfer, "memory_slack": memory_slack}})
