"""Seeded generators of pipeline instances: stage chains on devices, and Tessel's placements.

A *stage chain* has S stages; stage s has a forward block ``F<s>`` and a
backward block ``B<s>`` (or, split as zero-bubble schedules do, an
input-gradient block ``B<s>`` and a weight-gradient block ``W<s>``), all on
the stage's device, with the edges ``F<s> -> F<s+1>``, ``F<S-1> -> B<S-1>``,
``B<s+1> -> B<s>``, ``F<s> -> B<s>`` and ``B<s> -> W<s>``; an edge between
two devices carries the communication ``delay``. ``F<s>`` allocates its
activation ``a_s``; ``B<s>`` frees it (``a_s - h_s`` when split, and
``W<s>`` frees the ``h_s`` the weight gradient still needs).

Every generator takes ``seed``; ``n`` (micro-batches N of a makespan
instance, or R per period for ``objective="period"``; default 8 and 1);
``devices``; ``memory_limit`` (an integer for every device, or
"unlimited") or ``memory_factor`` (each device's limit is that factor times
its peak when micro-batches run one at a time, >= 1 keeps the instance
feasible); ``objective``. Sizes are capped (`MAX_GENERATED_BLOCKS`,
`MAX_GENERATED_MICRO_BATCHES`) so that a typo ends in one line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.errors import InvalidInstanceError
from .model import Instance

#: Largest generated micro-batch (blocks) and number of micro-batches.
MAX_GENERATED_BLOCKS = 100_000
MAX_GENERATED_MICRO_BATCHES = 1_000_000


def _int(value: Any, field: str, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInstanceError(field, f"must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise InvalidInstanceError(field, f"must be <= {maximum} (the generators' size cap), got {value}")
    return value


def _objective_and_n(objective: Any, n: Any) -> tuple[str, int]:
    if objective not in ("makespan", "period"):
        raise InvalidInstanceError("objective", f"must be makespan or period, got {objective!r}")
    if n is None:
        n = 8 if objective == "makespan" else 1
    return objective, _int(n, "n", 1, MAX_GENERATED_MICRO_BATCHES)


def stage_chain_data(
    stage_device: Sequence[int],
    forward: Sequence[int],
    backward: Sequence[int],
    activation: Sequence[int],
    *,
    weight: Sequence[int] | None = None,
    weight_memory: Sequence[int] | None = None,
    delay: int = 0,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Blocks and edges (file records) of a stage chain (module docstring); ``weight`` None: no W blocks."""
    stages = len(stage_device)
    blocks: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []

    def link(source: int, target: int, tail: str, head: str) -> None:
        apart = stage_device[source] != stage_device[target]
        edges.append({"from": f"{tail}{source}", "to": f"{head}{target}", "delay": delay if apart else 0})

    for s in range(stages):
        blocks.append(
            {"name": f"F{s}", "device": stage_device[s], "duration": forward[s], "memory": activation[s], "stage": s}
        )
    for s in reversed(range(stages)):
        kept = weight_memory[s] if weight is not None and weight_memory is not None else 0
        blocks.append(
            {"name": f"B{s}", "device": stage_device[s], "duration": backward[s], "memory": kept - activation[s]}
        )
        blocks[-1]["stage"] = s
        if weight is not None:
            blocks.append({"name": f"W{s}", "device": stage_device[s], "duration": weight[s], "memory": -kept})
            blocks[-1]["stage"] = s
    for block in blocks:
        block["kind"] = block["name"][0]
    for s in range(stages - 1):
        link(s, s + 1, "F", "F")
    link(stages - 1, stages - 1, "F", "B")
    for s in reversed(range(stages - 1)):
        link(s + 1, s, "B", "B")
    for s in range(stages - 1):
        edges.append({"from": f"F{s}", "to": f"B{s}", "delay": 0})
    if weight is not None:
        for s in range(stages):
            edges.append({"from": f"B{s}", "to": f"W{s}", "delay": 0})
    return blocks, edges


def _alone_peaks(blocks: list[dict[str, Any]], devices: int) -> list[int]:
    """Per device, its peak when one micro-batch runs alone in block order (the order every chain here allows)."""
    level = [0] * devices
    peak = [0] * devices
    for block in blocks:
        on = block["device"] if isinstance(block["device"], list) else [block["device"]]
        for d in on:
            peak[d] = max(peak[d], level[d] + max(block["memory"], 0))
            level[d] += block["memory"]
    return peak


def _limits(memory_limit: Any, memory_factor: Any, blocks: list[dict[str, Any]], devices: int) -> list[int] | None:
    if memory_factor is not None:
        if memory_limit != "unlimited":
            raise InvalidInstanceError("memory_factor", "give memory_limit or memory_factor, not both")
        if isinstance(memory_factor, bool) or not isinstance(memory_factor, (int, float)):
            raise InvalidInstanceError("memory_factor", f"must be a number >= 1, got {memory_factor!r}")
        if not math.isfinite(memory_factor) or memory_factor < 1:
            raise InvalidInstanceError("memory_factor", f"must be a finite number >= 1, got {memory_factor!r}")
        return [math.ceil(memory_factor * peak - 1e-9) for peak in _alone_peaks(blocks, devices)]
    if memory_limit in (None, "unlimited"):
        return None
    return [_int(memory_limit, "memory_limit", 0)] * devices


def _build(
    family: str,
    seed: int,
    parameters: dict[str, Any],
    devices: int,
    blocks: list[dict[str, Any]],
    edges: list[dict[str, Any]],
) -> Instance:
    objective, n = _objective_and_n(parameters["objective"], parameters["n"])
    if len(blocks) > MAX_GENERATED_BLOCKS:
        raise InvalidInstanceError(
            "devices", f"{len(blocks)} blocks per micro-batch, the cap is {MAX_GENERATED_BLOCKS}"
        )
    limits = _limits(parameters.get("memory_limit"), parameters.get("memory_factor"), blocks, devices)
    data: dict[str, Any] = {"devices": devices, "memory_limit": limits, "objective": objective, "blocks": blocks}
    data["micro_batches" if objective == "makespan" else "period_micro_batches"] = n
    data["edges"] = edges
    factor, limit = parameters.get("memory_factor"), parameters.get("memory_limit")
    label = f"f{factor:g}" if factor is not None else ("unl" if limit in (None, "unlimited") else f"{limit}")
    name = f"{family}-d{devices}-n{n}-m{label}-s{seed}" + ("-period" if objective == "period" else "")
    source = {"generator": family, "seed": seed, **{k: v for k, v in parameters.items() if v is not None}, "n": n}
    return Instance.from_data(data, name=name, source=source)


def _uniform_stages(stage_device: list[int], forward: int, backward: int, weight: int, activation: int, delay: int):
    stages = len(stage_device)
    _int(forward, "forward", 1)
    _int(backward, "backward", 1)
    _int(weight, "weight", 0)
    _int(activation, "activation", 0)
    _int(delay, "delay", 0)
    split = weight > 0
    return stage_chain_data(
        stage_device,
        [forward] * stages,
        [backward] * stages,
        [activation] * stages,
        weight=[weight] * stages if split else None,
        weight_memory=[activation // 2] * stages if split else None,
        delay=delay,
    )


def generate_uniform(
    *,
    seed: int = 0,
    n: int | None = None,
    devices: int = 4,
    forward: int = 1,
    backward: int = 2,
    weight: int = 0,
    activation: int = 1,
    delay: int = 0,
    memory_limit: Any = "unlimited",
    memory_factor: float | None = None,
    objective: str = "makespan",
) -> Instance:
    """One stage per device, every stage alike: F ``forward`` long allocating ``activation``, B ``backward``.

    ``weight`` > 0 splits the backward into B and W (W ``weight`` long, holding
    ``activation // 2`` until it ends). Tessel's ``vshape`` placement is
    ``forward=1, backward=3, activation=1``. ``seed`` is recorded only (nothing is random).
    """
    devices = _int(devices, "devices", 1, MAX_GENERATED_BLOCKS // 3)
    blocks, edges = _uniform_stages(list(range(devices)), forward, backward, weight, activation, delay)
    parameters = dict(locals_of(n, devices, memory_limit, memory_factor, objective))
    parameters.update(forward=forward, backward=backward, weight=weight, activation=activation, delay=delay)
    return _build("uniform", seed, parameters, devices, blocks, edges)


def locals_of(n: Any, devices: int, memory_limit: Any, memory_factor: Any, objective: Any) -> dict[str, Any]:
    """The parameters every family shares, for `_build` and the provenance."""
    return {
        "n": n,
        "devices": devices,
        "memory_limit": memory_limit,
        "memory_factor": memory_factor,
        "objective": objective,
    }


def generate_interleaved(
    *,
    seed: int = 0,
    n: int | None = None,
    devices: int = 4,
    chunks: int = 2,
    forward: int = 1,
    backward: int = 2,
    weight: int = 0,
    activation: int = 1,
    delay: int = 0,
    memory_limit: Any = "unlimited",
    memory_factor: float | None = None,
    objective: str = "makespan",
) -> Instance:
    """Interleaved placement (Megatron): S = chunks x devices uniform stages, stage s on device s mod D."""
    devices = _int(devices, "devices", 1, MAX_GENERATED_BLOCKS // 3)
    chunks = _int(chunks, "chunks", 1, MAX_GENERATED_BLOCKS // (3 * devices))
    placement = [s % devices for s in range(chunks * devices)]
    blocks, edges = _uniform_stages(placement, forward, backward, weight, activation, delay)
    parameters = dict(locals_of(n, devices, memory_limit, memory_factor, objective))
    parameters.update(chunks=chunks, forward=forward, backward=backward, weight=weight, activation=activation)
    parameters["delay"] = delay
    return _build("interleaved", seed, parameters, devices, blocks, edges)


def generate_vshape(
    *,
    seed: int = 0,
    n: int | None = None,
    devices: int = 4,
    forward: int = 1,
    backward: int = 1,
    weight: int = 1,
    activation: int = 2,
    delay: int = 0,
    memory_limit: Any = "unlimited",
    memory_factor: float | None = None,
    objective: str = "makespan",
) -> Instance:
    """V placement (zero-bubble ZB-V): S = 2D uniform stages, stage s on device s for s < D, on 2D-1-s after.

    Each device holds the first and the last stages' halves of a "V"; by
    default the backward is split (``weight`` = 1). (Tessel's placement of
    the same name is `generate_uniform` with backward 3.)
    """
    devices = _int(devices, "devices", 1, MAX_GENERATED_BLOCKS // 6)
    placement = [s if s < devices else 2 * devices - 1 - s for s in range(2 * devices)]
    blocks, edges = _uniform_stages(placement, forward, backward, weight, activation, delay)
    parameters = dict(locals_of(n, devices, memory_limit, memory_factor, objective))
    parameters.update(forward=forward, backward=backward, weight=weight, activation=activation, delay=delay)
    return _build("vshape", seed, parameters, devices, blocks, edges)


def generate_zero_bubble(
    *,
    seed: int = 0,
    n: int | None = None,
    devices: int = 4,
    forward: int = 1,
    backward: int = 1,
    weight: int = 1,
    activation: int = 2,
    delay: int = 0,
    memory_limit: Any = "unlimited",
    memory_factor: float | None = None,
    objective: str = "makespan",
) -> Instance:
    """One stage per device with the backward split into B and W (the zero-bubble setting, F = B = W by default)."""
    devices = _int(devices, "devices", 1, MAX_GENERATED_BLOCKS // 3)
    _int(weight, "weight", 1)
    blocks, edges = _uniform_stages(list(range(devices)), forward, backward, weight, activation, delay)
    parameters = dict(locals_of(n, devices, memory_limit, memory_factor, objective))
    parameters.update(forward=forward, backward=backward, weight=weight, activation=activation, delay=delay)
    return _build("zero-bubble", seed, parameters, devices, blocks, edges)


def generate_random(
    *,
    seed: int = 0,
    n: int | None = None,
    devices: int = 4,
    stages: int | None = None,
    max_duration: int = 10,
    max_memory: int = 10,
    max_delay: int = 0,
    split: bool = False,
    memory_limit: Any = "unlimited",
    memory_factor: float | None = None,
    objective: str = "makespan",
) -> Instance:
    """Random stage chain: S stages (default D) placed round-robin, stage s on device s mod D.

    Stage s: forward f_s uniform in [1, max_duration], backward b_s uniform in
    [f_s, 2 f_s] (a backward costs about twice a forward), activation a_s
    uniform in [1, max_memory]; ``split``: W_s uniform in [1, b_s], keeping
    h_s uniform in [0, a_s]. One delay uniform in [0, max_delay] for every edge
    between devices.
    """
    devices = _int(devices, "devices", 1, MAX_GENERATED_BLOCKS // 3)
    stages = _int(devices if stages is None else stages, "stages", 1, MAX_GENERATED_BLOCKS // 3)
    for field, value in (("max_duration", max_duration), ("max_memory", max_memory)):
        _int(value, field, 1)
    _int(max_delay, "max_delay", 0)
    if not isinstance(split, bool):
        raise InvalidInstanceError("split", f"must be true or false, got {split!r}")
    rng = np.random.default_rng(seed)
    forward = rng.integers(1, max_duration + 1, stages)
    backward = [int(rng.integers(f, 2 * f + 1)) for f in forward]
    activation = rng.integers(1, max_memory + 1, stages)
    weight = [int(rng.integers(1, b + 1)) for b in backward] if split else None
    kept = [int(rng.integers(0, a + 1)) for a in activation] if split else None
    delay = int(rng.integers(0, max_delay + 1))
    blocks, edges = stage_chain_data(
        [s % devices for s in range(stages)],
        [int(f) for f in forward],
        backward,
        [int(a) for a in activation],
        weight=weight,
        weight_memory=kept,
        delay=delay,
    )
    parameters = dict(locals_of(n, devices, memory_limit, memory_factor, objective))
    parameters.update(stages=stages, max_duration=max_duration, max_memory=max_memory, max_delay=max_delay)
    parameters["split"] = split
    return _build("random", seed, parameters, devices, blocks, edges)
