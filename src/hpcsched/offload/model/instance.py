"""The offload instance: a chain of layers under a memory budget, its file format and its checks.

Transfer durations are integers: ``tau = ceil(s / bandwidth) + latency``
computed exactly with fractions; ``bandwidth: null`` means infinite
bandwidth (``tau = latency``). Compute plus every transfer once (the worst
makespan any method considers) must stay at most 2^53, so a tiny positive
bandwidth is refused naming ``data.bandwidth_out``/``_in``
(`_check_time_range`); keys outside the schema are refused too.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    LARGEST_INTEGER,
    int_list,
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)

DUPLEX_MODES = ("full", "half")

#: The keys of an instance's ``data`` (the schema closes it: a misspelt ``latency`` must not read as 0).
DATA_KEYS = (
    "layers",
    "forward",
    "backward",
    "activation",
    "workspace_forward",
    "workspace_backward",
    "memory",
    "bandwidth_out",
    "bandwidth_in",
    "latency",
    "duplex",
    "offloadable",
)


def _transfer_time(size: int, bandwidth: float | None, latency: int) -> int:
    if bandwidth is None:
        return latency
    # ceil(size / bandwidth) exactly: the float is the ratio p/q of two integers (a Fraction is 10x slower).
    p, q = bandwidth.as_integer_ratio()
    return -(-size * q // p) + latency


_INT_LIST = {"type": "array", "items": {"type": "integer", "minimum": 0}}
_BANDWIDTH = {"type": ["number", "null"], "exclusiveMinimum": 0, "description": "bytes per time unit; null = infinite"}

DATA_SCHEMA = {
    "type": "object",
    "required": ["forward", "backward", "activation", "memory", "bandwidth_out", "bandwidth_in"],
    "properties": {
        "layers": {"type": "array", "items": {"type": "string"}},
        "forward": {**_INT_LIST, "minItems": 1, "description": "f_1..f_L"},
        "backward": {**_INT_LIST, "description": "b_1..b_L"},
        "activation": {**_INT_LIST, "description": "s_0..s_L in bytes"},
        "workspace_forward": _INT_LIST,
        "workspace_backward": _INT_LIST,
        "memory": {"type": "integer", "minimum": 0},
        "bandwidth_out": _BANDWIDTH,
        "bandwidth_in": _BANDWIDTH,
        "latency": {"type": "integer", "minimum": 0},
        "duplex": {"enum": ["full", "half"]},
        "offloadable": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0}},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Instance:
    """A chain of layers to train under a memory budget.

    Attributes
    ----------
    forward, backward
        f_1..f_L and b_1..b_L (index 0 is layer 1), integers in `time_unit`.
    activation
        s_0..s_L in bytes (s_0: input of layer 1).
    workspace_forward, workspace_backward
        wf_i, wb_i in bytes, length L.
    memory
        M, bytes available for activations, gradients and workspaces.
    bandwidth_out, bandwidth_in
        Bytes per time unit (None: infinite).
    latency
        λ, added to every transfer (time units).
    duplex
        "full" or "half".
    offloadable
        Sorted indices i in 0..L-1 whose a_i may be offloaded.
    layers
        Layer names (length L) or empty.
    """

    name: str
    forward: tuple[int, ...]
    backward: tuple[int, ...]
    activation: tuple[int, ...]
    memory: int
    bandwidth_out: float | None
    bandwidth_in: float | None
    latency: int = 0
    duplex: str = "full"
    workspace_forward: tuple[int, ...] = ()
    workspace_backward: tuple[int, ...] = ()
    offloadable: tuple[int, ...] = None  # type: ignore[assignment]  # None: every activation (__post_init__ fills it in)
    layers: tuple[str, ...] = ()
    time_unit: str | None = "us"
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Normalise and check through the same path as files (one place).
        data = self.to_data(raw=True)
        checked = _check_data(data)
        for key, value in checked.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "source", MappingProxyType(dict(self.source)))

    # ------------------------------------------------------------------ I/O
    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None, source: dict) -> Instance:
        """Build an Instance from the ``data`` section of an instance file."""
        data = require_dict(data, "data")
        checked = _check_data(data)
        return cls(name=name, time_unit=time_unit, source=dict(source), **checked)

    def to_data(self, raw: bool = False) -> dict:
        """The ``data`` section of the file format."""
        data: dict[str, Any] = {}
        if self.layers:
            data["layers"] = list(self.layers)
        data["forward"] = list(self.forward)
        data["backward"] = list(self.backward)
        data["activation"] = list(self.activation)
        if any(self.workspace_forward) or (raw and self.workspace_forward):
            data["workspace_forward"] = list(self.workspace_forward)
        if any(self.workspace_backward) or (raw and self.workspace_backward):
            data["workspace_backward"] = list(self.workspace_backward)
        data["memory"] = self.memory
        data["bandwidth_out"] = self.bandwidth_out
        data["bandwidth_in"] = self.bandwidth_in
        data["latency"] = self.latency
        data["duplex"] = self.duplex
        if raw or self.offloadable is None or tuple(self.offloadable) != tuple(range(len(self.forward))):
            data["offloadable"] = None if self.offloadable is None else list(self.offloadable)
        return data

    def with_memory(self, memory: int, name: str | None = None) -> Instance:
        """The same chain under another budget."""
        return dataclasses.replace(self, memory=int(memory), name=name or self.name)

    # ------------------------------------------------------------ derived
    @property
    def n_layers(self) -> int:
        return len(self.forward)

    @property
    def compute_time(self) -> int:
        """Σ (f_i + b_i): the makespan without any stall."""
        return sum(self.forward) + sum(self.backward)

    def offload_time(self, i: int) -> int:
        """τout_i, duration of the offload of a_i."""
        return self.offload_times[i]

    def prefetch_time(self, i: int) -> int:
        """τin_i, duration of the prefetch of a_i."""
        return self.prefetch_times[i]

    @functools.cached_property
    def offload_times(self) -> tuple[int, ...]:
        """τout_i for i = 0..L (computed once: every simulation reads them all)."""
        return tuple(_transfer_time(size, self.bandwidth_out, self.latency) for size in self.activation)

    @functools.cached_property
    def prefetch_times(self) -> tuple[int, ...]:
        """τin_i for i = 0..L (computed once)."""
        return tuple(_transfer_time(size, self.bandwidth_in, self.latency) for size in self.activation)

    def layer_name(self, k: int) -> str:
        """Readable name of layer k (1-based)."""
        return f"layer {k} ({self.layers[k - 1]})" if self.layers else f"layer {k}"


def _check_data(data: dict) -> dict:
    """Every check of an instance's data; returns the constructor fields."""
    require_known_keys(data, DATA_KEYS, "data", "an offload instance")
    forward = int_list(require_key(data, "forward", "data"), "data.forward", minimum=0)
    n = len(forward)
    if n < 1:
        raise InvalidInstanceError("data.forward", "must have at least 1 layer")
    backward = int_list(require_key(data, "backward", "data"), "data.backward", minimum=0, length=n)
    activation = int_list(require_key(data, "activation", "data"), "data.activation", minimum=0, length=n + 1)
    wf = data.get("workspace_forward")
    wb = data.get("workspace_backward")
    workspace_forward = (0,) * n if wf is None else int_list(wf, "data.workspace_forward", minimum=0, length=n)
    workspace_backward = (0,) * n if wb is None else int_list(wb, "data.workspace_backward", minimum=0, length=n)
    memory = require_int(require_key(data, "memory", "data"), "data.memory", minimum=0)
    bandwidths = []
    for key in ("bandwidth_out", "bandwidth_in"):
        value = require_key(data, key, "data")
        bandwidths.append(None if value is None else require_number(value, f"data.{key}", strictly_positive=True))
    latency = require_int(data.get("latency", 0), "data.latency", minimum=0)
    duplex = require_str(data.get("duplex", "full"), "data.duplex", choices=DUPLEX_MODES)
    raw_offloadable = data.get("offloadable")
    if raw_offloadable is None:
        offloadable = tuple(range(n))
    else:
        items = require_list(raw_offloadable, "data.offloadable")
        seen = set()
        for position, item in enumerate(items):
            index = require_int(item, f"data.offloadable[{position}]")
            if not 0 <= index < n:
                raise InvalidInstanceError(
                    f"data.offloadable[{position}]",
                    f"activation {index} cannot be offloaded (valid: 0..{n - 1}; a_{n} is read by B_{n} at once)",
                )
            if index in seen:
                raise InvalidInstanceError(f"data.offloadable[{position}]", f"activation {index} is listed twice")
            seen.add(index)
        offloadable = tuple(sorted(seen))
    layers_raw = data.get("layers")
    if layers_raw is None:
        layers: tuple[str, ...] = ()
    else:
        items = require_list(layers_raw, "data.layers", length=n)
        layers = tuple(require_str(item, f"data.layers[{k}]") for k, item in enumerate(items))
    _check_time_range(forward, backward, activation, offloadable, bandwidths[0], bandwidths[1], latency)
    return {
        "forward": forward,
        "backward": backward,
        "activation": activation,
        "workspace_forward": workspace_forward,
        "workspace_backward": workspace_backward,
        "memory": memory,
        "bandwidth_out": bandwidths[0],
        "bandwidth_in": bandwidths[1],
        "latency": latency,
        "duplex": duplex,
        "offloadable": offloadable,
        "layers": layers,
    }


def _check_time_range(forward, backward, activation, offloadable, bandwidth_out, bandwidth_in, latency) -> None:
    """Refuse instances whose worst makespan (compute, then every transfer one after another) exceeds 2^53.

    That sum bounds every schedule the methods consider (offload-all's, the
    horizons and big-Ms of the exact models); beyond 2^53 CP-SAT's int64
    domains overflow and HiGHS's doubles round.  A tiny bandwidth (1e-300
    bytes per time unit) is legal as a number but makes a transfer last
    ~1e301 time units: the error names the field that makes the sum too large.
    """
    parts = {
        "data.forward": sum(forward),
        "data.backward": sum(backward),
        "data.bandwidth_out": sum(_transfer_time(activation[i], bandwidth_out, 0) for i in offloadable),
        "data.bandwidth_in": sum(_transfer_time(activation[i], bandwidth_in, 0) for i in offloadable),
        "data.latency": 2 * latency * len(offloadable),
    }
    total = sum(parts.values())
    if total > LARGEST_INTEGER:
        culprit = max(parts, key=lambda name: parts[name])
        what = {
            "data.forward": "the forward times",
            "data.backward": "the backward times",
            "data.bandwidth_out": "the offload times ceil(s_i / bandwidth_out)",
            "data.bandwidth_in": "the prefetch times ceil(s_i / bandwidth_in)",
            "data.latency": "the latencies of the transfers",
        }[culprit]
        raise InvalidInstanceError(
            culprit,
            f"{what} sum to {_rough(parts[culprit])} time units; compute and every transfer together "
            f"({_rough(total)}) must stay at most 2^53 = {LARGEST_INTEGER}",
        )


def _rough(value: int) -> str:
    """``value`` to 3 digits; past a double's range (bandwidth 5e-324 B/unit) as a power of ten."""
    digits = len(str(value))
    return f"{value:.3g}" if digits <= 300 else f"{value // 10 ** (digits - 3) / 100:.2f}e+{digits - 1}"
