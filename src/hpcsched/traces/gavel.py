"""Reader of Gavel's measured co-location throughputs (stanford-futuredata/gavel).

``simulation_throughputs.json``: per GPU type (k80, p100, v100, and
``*_unconsolidated``), per job type string such as
"('ResNet-18 (batch size 16)', 1)" (model, scale factor): the solo
throughput under "null" and, for each co-located partner job type, the pair
[own throughput, partner throughput] in steps per second.
"""

from __future__ import annotations

import ast
import math
import os
from dataclasses import dataclass

from ..core.errors import FormatError
from ..core.io import load_json


@dataclass(frozen=True)
class GavelThroughputs:
    """Throughputs of one GPU type."""

    gpu: str
    solo: dict[str, float]
    pairs: dict[tuple[str, str], tuple[float, float]]

    def job_types(self, scale_factor: int | None = 1) -> list[str]:
        """Job types (optionally of one scale factor), sorted."""
        return sorted(t for t in self.solo if scale_factor is None or scale_of(t) == scale_factor)


def scale_of(job_type: str) -> int | None:
    try:
        parsed = ast.literal_eval(job_type)
    except (ValueError, SyntaxError):
        return None
    return parsed[1] if isinstance(parsed, tuple) and len(parsed) == 2 else None


def _throughput(value: object) -> bool:
    """A finite number >= 0 (JSON's NaN and Infinity, which Python's parser accepts, are not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return value >= 0 and (isinstance(value, int) or math.isfinite(value))  # isfinite overflows on huge ints


def read_gavel(path: str | os.PathLike, gpu: str = "v100") -> GavelThroughputs:
    """Throughputs of ``gpu`` from a Gavel throughputs file."""
    document = load_json(path)
    path = str(path)
    if not isinstance(document, dict):
        raise FormatError(f"{path}: expected an object keyed by GPU type")
    if gpu not in document:
        raise FormatError(f"{path}: no GPU type {gpu!r} (has {', '.join(sorted(document))})")
    table = document[gpu]
    if not isinstance(table, dict):
        raise FormatError(f"{path}: {gpu} must be an object keyed by job type")
    solo, pairs = {}, {}
    for job, entry in table.items():
        if not isinstance(entry, dict) or "null" not in entry:
            raise FormatError(f"{path}: {gpu}.{job} has no solo throughput 'null'")
        value = entry["null"]
        if not _throughput(value):
            raise FormatError(f"{path}: {gpu}.{job}.null must be a finite non-negative number, got {value!r}")
        solo[job] = float(value)
        for partner, pair in entry.items():
            if partner == "null":
                continue
            if not isinstance(pair, list) or len(pair) != 2 or not all(_throughput(v) for v in pair):
                raise FormatError(
                    f"{path}: {gpu}.{job}.{partner} must be [own, partner] finite non-negative throughputs, "
                    f"got {pair!r}"
                )
            pairs[(job, partner)] = (float(pair[0]), float(pair[1]))
    return GavelThroughputs(gpu, solo, pairs)
