"""Performance profiles (Dolan & Moré): ratios per configuration over the common problems."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .summary import HAS_SOLUTION, configuration_labels, questions

#: Runtimes below this many seconds count as this many (a ratio to 0 s means nothing).
_RUNTIME_FLOOR_S = 1e-3


def _profile_values(rows: Sequence[Mapping[str, Any]], measure: str) -> tuple[dict[tuple, dict[str, float]], list[str]]:
    """m_{p,s} per problem p and configuration s (see the definitions), and the configurations."""
    labels = configuration_labels(rows)
    several_limits = len({row["time_limit"] for row in rows}) > 1
    values: dict[tuple, dict[str, float]] = defaultdict(dict)
    kept = []
    # One label per row: the lengths agree. A configuration answering another question is not profiled.
    for label, row, question in zip(labels, rows, questions(rows), strict=True):
        if question is not None:
            continue
        kept.append(label)
        problem = (row["instance_sha256"], row["seed"]) + (() if several_limits else (row["time_limit"],))
        solved = row["status"] in HAS_SOLUTION and row["objective"] is not None
        if measure == "objective":
            value = row["objective"] if solved else math.inf
        else:
            value = max(row["runtime_s"] or 0.0, _RUNTIME_FLOOR_S) if solved else math.inf
        values[problem].setdefault(label, value)  # a repeated run counts once
    return values, sorted(set(kept))


def profile_coverage(rows: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(problems every configuration ran, all problems) of the performance profiles.

    A configuration run on fewer seeds (or instances) than another has not
    *failed* the runs it never made; profiles compare on the common problems
    only, and the report says how many that is.
    """
    values, configurations = _profile_values(rows, "objective")
    common = sum(len(per_config) == len(configurations) for per_config in values.values())
    return common, len(values)


def performance_ratios(rows: Sequence[Mapping[str, Any]], measure: str) -> dict[str, list[float]]:
    """Dolan–Moré ratios r_{p,s} per configuration; ``measure`` is
    ``"objective"`` or ``"runtime"`` (see the definitions).

    Only problems on which every configuration has a run count (see
    `profile_coverage`): a run that was never made is not a failure.
    """
    values, configurations = _profile_values(rows, measure)
    ratios: dict[str, list[float]] = {c: [] for c in configurations}
    for per_config in values.values():
        if len(per_config) < len(configurations):
            continue
        best = min(per_config.values())
        for configuration in configurations:
            ratios[configuration].append(_performance_ratio(per_config[configuration], best))
    return ratios


def _performance_ratio(value: float, best: float) -> float:
    """r = m / min m on one problem; ∞ where no solution, or where a ratio of signed or zero values means nothing."""
    if math.isinf(value) or math.isinf(best):
        return math.inf
    if best == 0:
        return 1.0 if value == 0 else math.inf
    if best < 0:
        return math.inf if value != best else 1.0
    return value / best


def profile_curve(ratios: list[float], taus: Iterable[float]) -> list[float]:
    """ρ(τ) = fraction of ``ratios`` ≤ τ, for each τ."""
    n = len(ratios)
    return [sum(r <= tau for r in ratios) / n if n else 0.0 for tau in taus]
