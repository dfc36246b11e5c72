"""What the trace importers share: trace paths, seeded sampling, option checks, the size guard, provenance.

PATH is a file, a comma-separated list of files, or a folder with ``files=a,b``.
Before building pairs, importers count them and refuse above ``max_pairs``
(default 2,000,000, about 1 GB), with the figures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ...core.errors import FormatError, InvalidInstanceError
from ...core.fields import require_int
from ...core.io import file_sha256
from .synthetic import check_alpha, check_n, check_name, check_seed

T = TypeVar("T")


def importer_options(path: str | os.PathLike, check: Callable[[], T]) -> T:
    """``check()``, with a bad option's error attributed to the trace ``path``."""
    try:
        return check()
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def checked_importer_options(n: Any, seed: Any, alpha: Any, name: Any) -> tuple[int | None, int, float, str | None]:
    n = None if n is None else check_n(n)
    return n, check_seed(seed), check_alpha(alpha), check_name(name)


def trace_paths(path: str | os.PathLike, files: str | list | None) -> list[Path]:
    text = str(path)
    if files is not None and not (
        isinstance(files, str) or (isinstance(files, list) and all(isinstance(name, str) for name in files))
    ):
        raise InvalidInstanceError(
            "files", f"must be comma-separated file names or a list of them, got {files!r}", text
        )
    if files:
        names = files.split(",") if isinstance(files, str) else list(files)
        return [Path(text) / name.strip() for name in names]
    if "," in text:
        return [Path(p.strip()) for p in text.split(",")]
    if Path(text).is_dir():
        found = sorted(p for p in Path(text).iterdir() if p.is_file() and not p.name.startswith(("LICENSE", "README")))
        if not found:
            raise FormatError(f"{text}: folder holds no trace files")
        return found
    return [Path(text)]


def sample(groups: list[list[Any]], n: int | None, rng: np.random.Generator) -> list[tuple[int, Any]]:
    """``n`` items spread evenly over the groups (all when n is None), as (group, item)."""
    if n is None:
        return [(g, item) for g, items in enumerate(groups) for item in items]
    shares = quotas(groups, n)
    chosen = []
    for g, items in enumerate(groups):
        picks = rng.choice(len(items), size=shares[g], replace=False)
        chosen += [(g, items[int(i)]) for i in sorted(picks)]
    return chosen


def windows(groups: list[list[Any]], n: int | None, rng: np.random.Generator) -> list[tuple[int, Any]]:
    """``n`` items spread evenly over the groups, a window of *consecutive* items of each group.

    Used where the order within a group is data (a stream): a seeded random
    stretch of each application's kernel sequence, in file order.
    """
    if n is None:
        return [(g, item) for g, items in enumerate(groups) for item in items]
    shares = quotas(groups, n)
    chosen = []
    for g, items in enumerate(groups):
        offset = int(rng.integers(0, len(items) - shares[g] + 1))
        chosen += [(g, item) for item in items[offset : offset + shares[g]]]
    return chosen


#: Importers refuse instances with more co-run pairs than this (option ``max_pairs`` raises it):
#: each pair costs about `BYTES_PER_PAIR` in memory (records, rate table, JSON), and the exact
#: methods build a row block per pair. 2 million pairs is about 1 GB.
DEFAULT_MAX_PAIRS = 2_000_000
BYTES_PER_PAIR = 500


def check_size(kernels: int, pairs: int, max_pairs: Any, where: str) -> None:
    """Refuse, with the figures, an instance whose pair count is above ``max_pairs``, before building it."""
    limit = require_int(max_pairs, "max_pairs", minimum=0)
    if pairs > limit:
        raise InvalidInstanceError(
            "max_pairs",
            f"{kernels:,} kernels give {pairs:,} co-run pairs (about {pairs * BYTES_PER_PAIR / 1e9:.1f} GB to build), "
            f"above max_pairs = {limit:,}: ask for fewer kernels (option n) or raise max_pairs",
            where,
        )


def quotas(groups: list[list[Any]], n: int) -> list[int]:
    total = sum(len(items) for items in groups)
    if n > total:
        raise InvalidInstanceError("n", f"asks for {n} kernels but the sources hold {total}")
    shares = [n // len(groups)] * len(groups)
    for g in range(n - sum(shares)):
        shares[g] += 1
    # Move quota from groups too small to the others.
    for g, items in enumerate(groups):
        excess = shares[g] - len(items)
        if excess > 0:
            shares[g] = len(items)
            for h in range(len(groups)):
                room = len(groups[h]) - shares[h]
                take = min(room, excess)
                shares[h] += take
                excess -= take
    return shares


def provenance(files: list[Path]) -> list[dict[str, str]]:
    return [{"file": f.name, "sha256": file_sha256(f)} for f in files]
