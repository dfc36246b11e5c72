"""Reader of Orion's per-kernel CSVs (eth-easl/orion, benchmarking/model_kernels).

Columns: Name, Profile (1 compute-bound, 0 memory-bound, -1 unknown),
Memory_footprint, SM_usage (SMs the kernel's blocks would occupy; may exceed
the GPU's SM count when the kernel runs in waves), Duration (ns). Measured
on a Tesla V100-16GB (80 SMs).
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass

from ..core.errors import FormatError

COLUMNS = ("Name", "Profile", "Memory_footprint", "SM_usage", "Duration")
ORION_GPU = {"name": "Tesla V100-16GB", "sms": 80}
PROFILE_CLASS = {1: "compute", 0: "memory", -1: "unknown"}


@dataclass(frozen=True)
class OrionKernel:
    name: str
    profile: int
    memory_footprint: float
    sm_usage: int
    duration_ns: int

    @property
    def kernel_class(self) -> str:
        return PROFILE_CLASS[self.profile]


def read_orion_csv(path: str | os.PathLike) -> tuple[OrionKernel, ...]:
    """Parse one Orion CSV; FormatError names the file, row and column on bad input."""
    path = str(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise FormatError(f"{path}: missing column(s) {', '.join(missing)} (expected {', '.join(COLUMNS)})")
            kernels = []
            for row_number, row in enumerate(reader, start=2):
                try:
                    profile = int(row["Profile"])
                    if profile not in PROFILE_CLASS:
                        raise ValueError(f"Profile must be 1, 0 or -1, got {profile}")
                    sm_usage = int(float(row["SM_usage"]))
                    duration = int(float(row["Duration"]))
                    footprint = float(row["Memory_footprint"])
                    if not math.isfinite(footprint):
                        raise ValueError(f"Memory_footprint must be finite, got {row['Memory_footprint']!r}")
                    if sm_usage < 0 or duration < 0 or footprint < 0:
                        raise ValueError("negative SM_usage, Duration or Memory_footprint")
                except OverflowError:  # int(float("inf"))
                    raise FormatError(f"{path}: row {row_number}: SM_usage and Duration must be finite") from None
                except (TypeError, ValueError) as error:
                    raise FormatError(f"{path}: row {row_number}: {error}") from None
                kernels.append(OrionKernel(row["Name"], profile, footprint, sm_usage, duration))
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise FormatError(f"{path}: not a text CSV ({error})") from None
    return tuple(kernels)
