"""Reader of PyTorch profiler / Kineto Chrome traces into plain kernel records.

Both schemas are read:

- older Kineto (``pytorch/kineto`` samples): kernel events have ``cat``
  "Kernel", ``tid`` like "stream 7";
- newer Kineto (HolisticTraceAnalysis test data): ``cat`` "kernel",
  integer ``tid``; some traces (the AMD MI250 one) have no launch fields
  (grid, block, registers, shared memory), which are then None.

Kernel events are complete events (``ph`` "X") with ``ts`` and ``dur`` in
microseconds. The trace's ``deviceProperties`` (one entry per GPU: numSms,
maxThreadsPerMultiprocessor, regsPerMultiprocessor, sharedMemPerMultiprocessor
or maxSharedMemoryPerMultiProcessor, ...) are returned as they are. This
module knows no problem: problem packages turn records into instances.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..core.errors import FormatError
from ..core.io import load_json

KERNEL_CATEGORIES = ("kernel", "Kernel")


@dataclass(frozen=True)
class KernelRecord:
    """One GPU kernel execution of a trace (times in microseconds)."""

    name: str
    start_us: float
    duration_us: float
    device: int | None
    stream: int | None
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    registers_per_thread: int | None
    shared_memory: int | None

    @property
    def threads_per_block(self) -> int | None:
        return None if self.block is None else self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int | None:
        return None if self.grid is None else self.grid[0] * self.grid[1] * self.grid[2]


@dataclass(frozen=True)
class ChromeTrace:
    """Kernel records and device properties of one trace file."""

    path: str
    schema: str
    kernels: tuple[KernelRecord, ...]
    device_properties: tuple[dict[str, Any], ...]

    def device(self, index: int | None) -> dict[str, Any] | None:
        """Properties of device ``index`` (the first one when there is a single device)."""
        for props in self.device_properties:
            if props.get("id") == index:
                return props
        return self.device_properties[0] if len(self.device_properties) == 1 else None


def _dim3(value: Any, field: str, path: str) -> tuple[int, int, int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or not 1 <= len(value) <= 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise FormatError(
            f"{path}: kernel field {field} must be a list of up to 3 non-negative integers, got {value!r}"
        )
    padded = list(value) + [1] * (3 - len(value))
    return (padded[0], padded[1], padded[2])


def _stream(event: dict[str, Any]) -> int | None:
    args = event.get("args") or {}
    if isinstance(args.get("stream"), int):
        return args["stream"]
    tid = event.get("tid")
    if isinstance(tid, int):
        return tid
    if isinstance(tid, str) and tid.startswith("stream "):
        try:
            return int(tid.split()[1])
        except ValueError:
            return None
    return None


def _optional_int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_chrome_trace(path: str | os.PathLike) -> ChromeTrace:
    """Parse a Chrome trace (``.json`` or ``.json.gz``) into a `ChromeTrace`.

    Raises
    ------
    FormatError
        Malformed JSON, no ``traceEvents`` list, or a kernel event with a bad
        ``dur`` or launch field (the message names the file and the event).
    """
    document = load_json(path)
    path = str(path)
    events: Any
    properties: Any
    if isinstance(document, list):
        events, properties = document, []
    elif isinstance(document, dict):
        events = document.get("traceEvents")
        properties = document.get("deviceProperties") or []
    else:
        raise FormatError(f"{path}: a Chrome trace is a JSON object with traceEvents")
    if not isinstance(events, list):
        raise FormatError(f"{path}: traceEvents is missing or not a list")
    if not isinstance(properties, list) or not all(isinstance(p, dict) for p in properties):
        raise FormatError(f"{path}: deviceProperties must be a list of objects")
    kernels = []
    schemas = set()
    for index, event in enumerate(events):
        if not isinstance(event, dict) or event.get("cat") not in KERNEL_CATEGORIES or event.get("ph", "X") != "X":
            continue
        schemas.add("kineto-old" if event["cat"] == "Kernel" else "kineto-new")
        kernels.append(_kernel_record(event, path, f"traceEvents[{index}]"))
    schema = "+".join(sorted(schemas)) or "no-kernels"
    return ChromeTrace(path=path, schema=schema, kernels=tuple(kernels), device_properties=tuple(properties))


def _kernel_record(event: dict[str, Any], path: str, name: str) -> KernelRecord:
    """The record of one kernel event (``path`` and ``name``, e.g. ``traceEvents[3]``, name it in errors)."""
    where = f"{path}: {name}"
    duration, start = event.get("dur"), event.get("ts")
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or duration < 0:
        raise FormatError(f"{where}.dur must be a non-negative number, got {duration!r}")
    if isinstance(start, bool) or not isinstance(start, (int, float)):
        raise FormatError(f"{where}.ts must be a number, got {start!r}")
    args = event.get("args") or {}
    if not isinstance(args, dict):
        raise FormatError(f"{where}.args must be an object")
    return KernelRecord(
        name=str(event.get("name", "")),
        start_us=float(start),
        duration_us=float(duration),
        device=_optional_int(args.get("device")),
        stream=_stream(event),
        grid=_dim3(args.get("grid"), f"{name}.args.grid", path),
        block=_dim3(args.get("block"), f"{name}.args.block", path),
        registers_per_thread=_optional_int(args.get("registers per thread")),
        shared_memory=_optional_int(args.get("shared memory")),
    )
