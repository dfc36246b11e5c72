"""Importers: measured layer chains -> stages (PipeDream's DP) -> a stage-chain pipeline instance.

Two sources, one pipeline:

* ``pipedream``: a PipeDream profiler ``graph.txt`` (per-layer forward and
  backward ms, activation bytes), linearised into a chain exactly as the
  checkpoint importer does (`hpcsched.checkpoint.generate.chain_from_pipedream`:
  Input nodes dropped, in-place ops and views folded into the layer before,
  skip connections ignored);
* ``checkpoint-chain``: a checkpoint chain instance file (``fw``, ``bw``,
  ``x``, ``xbar``), e.g. the H100 measurements ``instances/checkpoint/*-h100-*.json``.

Modelling rules (each import writes them into ``source["notes"]``):

* layer i: compute c_i = fw_i + bw_i µs; the loss backward bw_L is added to
  the last stage's B;
* the chain is cut into D stages by `partition_stages.partition`
  (bottleneck of stage compute and of links, 2 x_{i+1} / bandwidth per cut,
  under the memory limit when one is given in MiB: stage k needs
  min(N, D - k) activations, what 1F1B holds); stage k on device k;
* F_k = Σ fw, B_k = Σ bw over its layers (at least 1 µs);
* activation a_k = x_first (the stage's input, kept for its backward) +
  Σ xbar_{i+1} (what each layer's forward keeps, its output included), in
  MiB rounded up; transients (ftmp, btmp), parameters, gradients and
  optimizer state are not modelled (static memory: subtract it from the
  device's memory before choosing the limit);
* ``split``: W_k = ⌊B_k / 2⌋, B_k keeps the rest, and W holds ⌊a_k / 2⌋
  (the inputs of the weight gradients) until it ends (a stated rule: the
  profiles do not separate the two gradients);
* ``bandwidth`` (GB/s): the edges between devices carry
  ⌈x_{last+1} / bandwidth⌉ µs (activation forward, gradient backward); none: 0.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..core.errors import FormatError, InvalidInstanceError
from ..core.fields import require_int, require_number, require_str
from ..core.io import file_sha256
from .generate import stage_chain_data
from .model import Instance
from .partition_stages import partition

MIB = 1 << 20


def _options(devices: Any, micro_batches: Any, objective: Any, bandwidth: Any, layers: int) -> tuple[int, int, str]:
    objective = require_str(objective, "objective", choices=("makespan", "period"))
    devices = require_int(devices, "devices", minimum=1, maximum=max(layers, 1))
    n = 8 if objective == "makespan" else 1
    n = require_int(n if micro_batches is None else micro_batches, "micro_batches", minimum=1, maximum=1_000_000)
    if bandwidth is not None and require_number(bandwidth, "bandwidth") <= 0:
        raise InvalidInstanceError("bandwidth", f"must be > 0 GB/s, got {bandwidth!r}")
    return devices, n, objective


def chain_instance(
    chain: dict[str, Any],
    *,
    name: str,
    source: dict[str, Any],
    devices: Any = 4,
    micro_batches: Any = None,
    objective: Any = "makespan",
    split: Any = False,
    bandwidth: Any = None,
    memory_limit: Any = None,
    memory_factor: Any = None,
) -> Instance:
    """A pipeline instance from a layer chain ``{"layers", "fw", "bw", "x", "xbar"}`` (module docstring)."""
    fw, bw, x, xbar = chain["fw"], chain["bw"], chain["x"], chain["xbar"]
    layers = len(fw)
    devices, n, objective = _options(devices, micro_batches, objective, bandwidth, layers)
    if not isinstance(split, bool):
        raise InvalidInstanceError("split", f"must be true or false, got {split!r}")
    if memory_limit is not None and memory_factor is not None:
        raise InvalidInstanceError("memory_factor", "give memory_limit or memory_factor, not both")
    limit = None if memory_limit is None else require_int(memory_limit, "memory_limit", minimum=0)
    factor = None if memory_factor is None else require_number(memory_factor, "memory_factor")
    if factor is not None and not (math.isfinite(factor) and factor >= 1):
        raise InvalidInstanceError("memory_factor", f"must be a finite number >= 1, got {memory_factor!r}")
    link = [0 if bandwidth is None else math.ceil(x[i + 1] / (float(bandwidth) * 1e3)) for i in range(layers)]

    def activation(first: int, last: int) -> int:
        return math.ceil((x[first] + sum(xbar[i + 1] or 0 for i in range(first, last + 1))) / MIB)

    cut = partition(
        [fw[i] + bw[i] + (bw[layers] if i == layers - 1 else 0) for i in range(layers)],
        [2 * t for t in link],
        devices,
        memory=lambda first, last, k: min(n, devices - k) * activation(first, last),
        limit=limit,
    )
    if cut is None:
        raise InvalidInstanceError("memory_limit", f"no cut into {devices} stages fits {limit} MiB with 1F1B")
    forward = [max(1, sum(fw[a : b + 1])) for a, b in cut.bounds]
    backward = [max(1, sum(bw[a : b + 1]) + (bw[layers] if b == layers - 1 else 0)) for a, b in cut.bounds]
    held = [activation(a, b) for a, b in cut.bounds]
    weight = kept = None
    if split:
        weight = [max(1, b // 2) for b in backward]
        backward = [max(1, b - w) for b, w in zip(backward, weight, strict=True)]
        kept = [a // 2 for a in held]
    blocks, edges = stage_chain_data(list(range(devices)), forward, backward, held, weight=weight, weight_memory=kept)
    for edge in edges:  # the link after stage k carries its output x_{last+1}
        tail, head = int(edge["from"][1:]), int(edge["to"][1:])
        if tail != head:
            edge["delay"] = link[cut.bounds[min(tail, head)][1]]
    limits = None
    if limit is not None:
        limits = [limit] * devices
    elif factor is not None:
        limits = [math.ceil(factor * a - 1e-9) for a in held]
    data: dict[str, Any] = {"devices": devices, "memory_limit": limits, "objective": objective, "blocks": blocks}
    data["micro_batches" if objective == "makespan" else "period_micro_batches"] = n
    data["edges"] = edges
    names = chain.get("layers") or [f"layer{i}" for i in range(layers)]
    source = {
        **source,
        "options": {
            "devices": devices,
            "micro_batches": n,
            "objective": objective,
            "split": split,
            "bandwidth": bandwidth,
            "memory_limit": limit,
            "memory_factor": factor,
        },
        "stages": [{"layers": [a, b], "first": names[a], "last": names[b]} for a, b in cut.bounds],
        "bottleneck_us": cut.bottleneck,
        "notes": [*source.get("notes", []), *_notes(split, bandwidth, limit)],
    }
    return Instance.from_data(data, name=name, time_unit="us", source=source)


def _notes(split: bool, bandwidth: Any, limit: int | None) -> list[str]:
    notes = [
        "layers cut into contiguous stages by PipeDream's DP (least bottleneck of stage compute and links)"
        + (", under the memory limit with 1F1B's min(N, D - k) activations" if limit is not None else ""),
        "F/B = sums of the layers' forward/backward us (loss backward in the last B; at least 1 us)",
        "activation = stage input + what each layer's forward keeps, MiB rounded up; transients, parameters, "
        "gradients and optimizer state not modelled",
    ]
    if split:
        notes.append("backward split by rule: W = floor(B / 2), W holds floor(a / 2) (not measured)")
    notes.append(
        "no communication delay" if bandwidth is None else f"delay = output bytes / {bandwidth} GB/s between devices"
    )
    return notes


def import_pipedream(path: str | Path, *, name: str | None = None, **options: Any) -> Instance:
    """A stage-chain instance from a PipeDream ``graph.txt`` (options: see `chain_instance`)."""
    from ..checkpoint.generate import chain_from_pipedream

    path = Path(path)
    chain = chain_from_pipedream(path)
    network = path.name.split(".")[0]
    source = {
        "importer": "pipedream",
        "file": path.name,
        "sha256": file_sha256(path),
        "skip_edges": chain["skip_edges"],
        "notes": [
            "linearised as the checkpoint importer does: Input nodes dropped, in-place ops and views folded "
            f"into the layer before, {chain['skip_edges']} skip edges ignored (optimistic)",
            "times ms rounded to integer us (profiled on a V100-class GPU)",
        ],
    }
    try:
        return chain_instance(chain, name=name or _default_name(network, options), source=source, **options)
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def import_checkpoint_chain(path: str | Path, *, name: str | None = None, **options: Any) -> Instance:
    """A stage-chain instance from a checkpoint chain file (its ``data``: fw, bw, x, xbar; e.g. the H100 chains)."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise FormatError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    data = record.get("data") if isinstance(record, dict) else None
    if not isinstance(data, dict) or record.get("problem") != "checkpoint":
        raise FormatError(f"{path}: not a checkpoint instance (problem 'checkpoint' with a data section)")
    for key in ("fw", "bw", "x", "xbar"):
        if not isinstance(data.get(key), list):
            raise InvalidInstanceError(f"data.{key}", "is missing or not a list", file=str(path))
    layers = len(data["fw"])
    if layers < 1 or len(data["bw"]) != layers + 1 or len(data["x"]) != layers + 1 or len(data["xbar"]) != layers + 1:
        raise InvalidInstanceError("data.fw", "needs L >= 1 layers, bw/x/xbar of length L + 1", file=str(path))
    given = record.get("source") if isinstance(record.get("source"), dict) else {}
    chain = {key: data[key] for key in ("fw", "bw", "x", "xbar")}
    chain["layers"] = given.get("layers") if isinstance(given.get("layers"), list) else None
    network = re.sub(r"-b\d+$", "", str(record.get("name", path.stem)))
    source = {
        "importer": "checkpoint-chain",
        "file": path.name,
        "sha256": file_sha256(path),
        "measured_on": given.get("gpu") or given.get("device"),
        "notes": [f"layer chain of checkpoint instance '{record.get('name')}' (its memory budget is not used)"],
    }
    try:
        return chain_instance(chain, name=name or _default_name(network, options), source=source, **options)
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def _default_name(network: str, options: dict[str, Any]) -> str:
    devices, n = options.get("devices", 4), options.get("micro_batches")
    objective = options.get("objective", "makespan")
    n = n if n is not None else (8 if objective == "makespan" else 1)
    if options.get("memory_limit") is not None:
        label = f"m{options['memory_limit']}"
    elif options.get("memory_factor") is not None:
        label = f"f{options['memory_factor']}"
    else:
        label = "unl"
    split = "-split" if options.get("split") else ""
    link = f"-bw{options['bandwidth']}" if options.get("bandwidth") is not None else ""
    return f"{network}-d{devices}-n{n}-{label}{split}{link}" + ("-period" if objective == "period" else "")
