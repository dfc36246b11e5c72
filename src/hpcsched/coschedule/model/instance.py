"""The coschedule instance: kernels, compatible pairs with their rates, streams; its file schema and checks.

See the package docstring (`hpcsched.coschedule.model`) for the definition and the keys.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    require_dict,
    require_index,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)

KERNEL_CLASSES = ("compute", "memory", "unknown")
#: Keys of the ``data`` section and of its records (module doc); ``profile`` is free-form.
DATA_KEYS = ("kernels", "pairs", "gpu", "streams")
KERNEL_KEYS = ("name", "duration", "profile")
PAIR_KEYS = ("a", "b", "rate_a", "rate_b")
GPU_KEYS = ("name", "sms")

_PROFILE = {
    "type": "object",
    "description": "provenance only, any key (descriptive fields of a kernel go here): sm_demand, "
    "class (compute|memory|unknown), grid, block, registers, shared_memory, app, ...",
}

DATA_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "coschedule data",
    "type": "object",
    "required": ["kernels"],
    "additionalProperties": False,
    "properties": {
        "kernels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["duration"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "duration": {"type": "integer", "minimum": 1, "description": "solo duration in time_unit"},
                    "profile": _PROFILE,
                },
            },
        },
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["a", "b", "rate_a", "rate_b"],
                "additionalProperties": False,
                "properties": {
                    "a": {"type": "integer", "minimum": 0},
                    "b": {"type": "integer", "minimum": 0},
                    "rate_a": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "rate_b": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                },
            },
        },
        "gpu": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"name": {"type": "string"}, "sms": {"type": "integer", "minimum": 1}},
        },
        "streams": {
            "type": "array",
            "description": "ordered kernel lists (CUDA streams): kernels of one stream run one after another "
            "in list order (start of k+1 >= end of k) and never co-run; each kernel in at most one stream; "
            "absent = independent kernels",
            "items": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}},
        },
    },
}


@dataclass(frozen=True)
class Kernel:
    """One kernel: a name, its solo duration and an optional profile."""

    name: str
    duration: int
    profile: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Pair:
    """A compatible pair: ``a`` runs at ``rate_a`` with ``b``, ``b`` at ``rate_b`` with ``a``."""

    a: int
    b: int
    rate_a: float
    rate_b: float


@dataclass(frozen=True)
class Instance:
    """A coschedule instance (build it with `Instance.create` or `from_data`).

    Attributes
    ----------
    name, source, time_unit
        Name, provenance and the unit of the integer durations.
    kernels
        The kernels, indexed 0..n-1.
    pairs
        Compatible pairs with both co-run rates; unlisted pairs never co-run.
    gpu
        Optional ``{"name": ..., "sms": Q}``.
    streams
        Ordered kernel lists (module doc); empty when all kernels are independent.
    """

    name: str
    source: Mapping[str, Any]
    time_unit: str | None
    kernels: tuple[Kernel, ...]
    pairs: tuple[Pair, ...]
    gpu: Mapping[str, Any] | None = None
    streams: tuple[tuple[int, ...], ...] = ()
    _rates: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _stream_of: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _arrays: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rates = {}
        first: list[int] = []
        second: list[int] = []
        first_rate: list[float] = []
        second_rate: list[float] = []
        for pair in self.pairs:
            rates[(pair.a, pair.b)] = pair.rate_a
            rates[(pair.b, pair.a)] = pair.rate_b
            first.append(pair.a)
            second.append(pair.b)
            first_rate.append(pair.rate_a)
            second_rate.append(pair.rate_b)
        object.__setattr__(self, "_rates", rates)
        # The pair arrays are made here, in the loop that reading the instance runs anyway: made
        # later, from 2 million Pair objects, they cost the first method ~1.5 s of its time limit.
        self._arrays["pairs"] = (
            np.array(first, dtype=np.int64),
            np.array(second, dtype=np.int64),
            np.array(first_rate, dtype=float),
            np.array(second_rate, dtype=float),
        )
        object.__setattr__(
            self,
            "_stream_of",
            {k: (s, position) for s, stream in enumerate(self.streams) for position, k in enumerate(stream)},
        )

    # -- queries -----------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.kernels)

    @property
    def durations(self) -> tuple[int, ...]:
        return tuple(kernel.duration for kernel in self.kernels)

    def pair_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, rate_a, rate_b)`` of the listed pairs as arrays, in `pairs` order (made with the instance).

        Methods that look at every pair (the LP, the saving graph) use them: a
        dense instance of 2,000 kernels lists 2 million pairs.
        """
        return self._arrays["pairs"]

    def rate(self, i: int, j: int) -> float | None:
        """Speed of ``i`` (fraction of solo speed) while ``j`` runs; None if incompatible."""
        return self._rates.get((i, j))

    def listed_rate(self, i: int, j: int) -> float:
        """Speed of ``i`` while ``j`` runs, for a listed pair (KeyError otherwise)."""
        return self._rates[(i, j)]

    def compatible(self, i: int, j: int) -> bool:
        """True when i and j may co-run: a listed pair, not of one stream."""
        return (i, j) in self._rates and not self.same_stream(i, j)

    def same_stream(self, i: int, j: int) -> bool:
        a, b = self._stream_of.get(i), self._stream_of.get(j)
        return a is not None and b is not None and a[0] == b[0]

    def predecessor(self, kernel: int) -> int | None:
        """The kernel just before ``kernel`` in its stream (None: first, or in no stream)."""
        place = self._stream_of.get(kernel)
        if place is None or place[1] == 0:
            return None
        return self.streams[place[0]][place[1] - 1]

    def precedences(self) -> list[tuple[int, int]]:
        """Consecutive stream-mates (a, b): b starts after a ends."""
        return [(a, b) for stream in self.streams for a, b in itertools.pairwise(stream)]

    # -- construction --------------------------------------------------------
    @classmethod
    def create(
        cls,
        durations: list[int],
        pairs: list[tuple[int, int, float, float]],
        *,
        name: str = "coschedule",
        names: list[str] | None = None,
        profiles: Sequence[Mapping[str, Any] | None] | None = None,
        gpu: Mapping[str, Any] | None = None,
        time_unit: str | None = "us",
        source: Mapping[str, Any] | None = None,
        streams: list[list[int]] | None = None,
    ) -> Instance:
        """Build an instance in code, through the same checks as `from_data`."""
        kernels = []
        for index, duration in enumerate(durations):
            kernel: dict[str, Any] = {"name": names[index] if names else f"k{index}", "duration": duration}
            profile = profiles[index] if profiles else None
            if profile is not None:
                kernel["profile"] = dict(profile)
            kernels.append(kernel)
        data: dict[str, Any] = {
            "kernels": kernels,
            "pairs": [{"a": a, "b": b, "rate_a": ra, "rate_b": rb} for a, b, ra, rb in pairs],
        }
        if gpu is not None:
            data["gpu"] = dict(gpu)
        if streams:
            data["streams"] = [list(stream) for stream in streams]
        return cls.from_data(data, name=name, time_unit=time_unit, source=dict(source or {}))

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None, source: dict) -> Instance:
        """Check the ``data`` section of an instance file and build the Instance."""
        data = require_dict(data, "data")
        require_known_keys(data, DATA_KEYS, "data", "coschedule data (kernels, pairs, gpu)")
        raw_kernels = require_list(require_key(data, "kernels", "data"), "data.kernels", min_length=1)
        kernels = []
        for index, raw in enumerate(raw_kernels):
            where = f"data.kernels[{index}]"
            raw = require_dict(raw, where)
            require_known_keys(
                raw, KERNEL_KEYS, where, "a kernel (name, duration, profile; descriptive fields go in profile)"
            )
            kernel_name = require_str(raw.get("name", f"k{index}"), f"{where}.name")
            duration = require_int(require_key(raw, "duration", where), f"{where}.duration", minimum=1)
            profile = raw.get("profile")
            if profile is not None:
                profile = _check_profile(require_dict(profile, f"{where}.profile"), f"{where}.profile")
            kernels.append(Kernel(kernel_name, duration, profile))
        n = len(kernels)
        raw_pairs = require_list(data.get("pairs", []), "data.pairs")
        pairs: list[Pair] = []
        seen: dict[tuple[int, int], int] = {}
        for index, raw in enumerate(raw_pairs):
            where = f"data.pairs[{index}]"
            raw = require_dict(raw, where)
            require_known_keys(raw, PAIR_KEYS, where, "a pair (a, b, rate_a, rate_b)")
            a = require_index(require_key(raw, "a", where), f"{where}.a", n, "kernel")
            b = require_index(require_key(raw, "b", where), f"{where}.b", n, "kernel")
            if a == b:
                raise InvalidInstanceError(f"{where}.b", f"a kernel cannot pair with itself (a = b = {a})")
            key = (min(a, b), max(a, b))
            if key in seen:
                raise InvalidInstanceError(where, f"pair {{{a}, {b}}} is listed twice (also data.pairs[{seen[key]}])")
            seen[key] = index
            rate_a = require_number(
                require_key(raw, "rate_a", where), f"{where}.rate_a", maximum=1.0, strictly_positive=True
            )
            rate_b = require_number(
                require_key(raw, "rate_b", where), f"{where}.rate_b", maximum=1.0, strictly_positive=True
            )
            pairs.append(Pair(a, b, rate_a, rate_b))
        gpu = data.get("gpu")
        if gpu is not None:
            gpu = require_dict(gpu, "data.gpu")
            require_known_keys(gpu, GPU_KEYS, "data.gpu", "gpu (name, sms)")
            if "sms" in gpu:
                require_int(gpu["sms"], "data.gpu.sms", minimum=1)
            if "name" in gpu:
                require_str(gpu["name"], "data.gpu.name")
            gpu = dict(gpu)
        streams = _check_streams(data.get("streams", []), n)
        return cls(
            name=name,
            source=dict(source),
            time_unit=time_unit,
            kernels=tuple(kernels),
            pairs=tuple(pairs),
            gpu=gpu,
            streams=streams,
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        kernels = []
        for kernel in self.kernels:
            entry: dict[str, Any] = {"name": kernel.name, "duration": kernel.duration}
            if kernel.profile is not None:
                entry["profile"] = dict(kernel.profile)
            kernels.append(entry)
        data: dict[str, Any] = {
            "kernels": kernels,
            "pairs": [{"a": p.a, "b": p.b, "rate_a": p.rate_a, "rate_b": p.rate_b} for p in self.pairs],
        }
        if self.gpu is not None:
            data["gpu"] = dict(self.gpu)
        if self.streams:
            data["streams"] = [list(stream) for stream in self.streams]
        return data


def _check_streams(raw: Any, n: int) -> tuple[tuple[int, ...], ...]:
    """Streams: lists of kernel ids, each kernel in at most one stream (module doc)."""
    raw = require_list(raw, "data.streams")
    seen: dict[int, str] = {}
    streams = []
    for s, stream in enumerate(raw):
        stream = require_list(stream, f"data.streams[{s}]", min_length=1)
        for position, kernel in enumerate(stream):
            where = f"data.streams[{s}][{position}]"
            kernel = require_index(kernel, where, n, "kernel")
            if kernel in seen:
                raise InvalidInstanceError(
                    where, f"kernel {kernel} is already in {seen[kernel]}: a kernel belongs to at most one stream, once"
                )
            seen[kernel] = where
        streams.append(tuple(stream))
    return tuple(streams)


def _check_profile(profile: dict, where: str) -> dict:
    """Profile fields are free-form provenance, but the known ones are typed."""
    if "sm_demand" in profile:
        require_number(profile["sm_demand"], f"{where}.sm_demand", minimum=0)
    if "class" in profile:
        require_str(profile["class"], f"{where}.class", choices=KERNEL_CLASSES)
    for key in ("registers", "shared_memory", "memory_footprint"):
        if key in profile and profile[key] is not None:
            require_number(profile[key], f"{where}.{key}", minimum=0)
    for key in ("grid", "block"):
        if key in profile and profile[key] is not None:
            for axis, value in enumerate(require_list(profile[key], f"{where}.{key}")):
                require_int(value, f"{where}.{key}[{axis}]", minimum=0)
    return dict(profile)
