"""Checked generator and importer options (shared by both)."""

from __future__ import annotations

import math
from typing import Any

from ...core.errors import InvalidInstanceError
from ..model import MEMORY_MODELS

#: The largest ``training`` and ``chain`` graphs (docs/architecture.md "Generator sizes"): 10^5 training
#: nodes take 6 s of CPU and 0.45 GB to generate, write and read back; 10^6 nodes, 69 s and 4 GB.
MAX_GENERATED_NODES = 500_000


def int_option(value: Any, field: str, minimum: int, maximum: int | None = None) -> int:
    """``value`` when it is an integer in [minimum, maximum] (no bool), else `InvalidInstanceError` on ``field``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        limit = f" and <= {maximum}" if maximum is not None else ""
        raise InvalidInstanceError(field, f"must be an integer >= {minimum}{limit}, got {value!r}")
    return value


def number_option(value: Any, field: str, low: float, high: float) -> float:
    """``value`` as a float when it is a number in (low, high] (no bool), else `InvalidInstanceError` on ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low < value <= high):
        raise InvalidInstanceError(field, f"must be a number in ({low}, {high}], got {value!r}")
    return float(value)


def model_option(value: Any) -> str:
    """``value`` when it is a memory model of `hpcsched.partition.model.MEMORY_MODELS`."""
    if value not in MEMORY_MODELS:
        raise InvalidInstanceError("options.memory_model", f"must be one of {', '.join(MEMORY_MODELS)}, got {value!r}")
    return value


def memory_for(total: int, gpus: int, slack: float) -> int:
    """M = ⌈slack × total / K⌉, at least 1: the generators' memory per GPU for ``total`` bytes of demand."""
    return max(1, math.ceil(slack * total / gpus))
