"""The report's figures: performance profiles and gap versus size, drawn without pyplot."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...core.result import gap_of
from .profiles import performance_ratios, profile_curve
from .summary import HAS_SOLUTION, configuration_labels, questions, references


def _colors(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One colour per configuration, the same in every figure."""
    import matplotlib  # plotting is optional: imported only when a report is drawn

    labels = sorted(set(configuration_labels(rows)))
    palette = matplotlib.colormaps["tab10" if len(labels) <= 10 else "tab20"]
    return {label: palette(i % palette.N) for i, label in enumerate(labels)}


def _new_figure() -> Any:
    """A figure that belongs to no pyplot state: report files are drawn without
    choosing a backend, so a notebook that calls `report` keeps its own."""
    from matplotlib.figure import Figure

    return Figure(figsize=(6.5, 4.2))


def plot_profile(rows: Sequence[Mapping[str, Any]], measure: str, path: Path, title: str) -> None:
    """Draw the performance profile of ``measure`` (``"objective"`` or ``"runtime"``) to ``path``."""
    import numpy as np

    ratios = performance_ratios(rows, measure)
    colors = _colors(rows)
    finite = [r for values in ratios.values() for r in values if math.isfinite(r)]
    top = max([*finite, 1.0]) * 1.05
    top = max(top, 1.01)
    taus = np.geomspace(1.0, top, 400)
    figure = _new_figure()
    axes = figure.subplots()
    for configuration, values in ratios.items():
        axes.step(taus, profile_curve(values, taus), where="post", label=configuration, color=colors[configuration])
    axes.set_xscale("log")
    axes.set_xlabel("τ (ratio to the best configuration on the problem)")
    axes.set_ylabel("fraction of problems with ratio ≤ τ")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small", loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def plot_gap_vs_size(rows: Sequence[Mapping[str, Any]], path: Path) -> bool:
    """Draw the mean gap per instance size and configuration to ``path``.

    Returns False, and draws nothing, when no run has both a size and a gap.
    """
    best_bound = references(rows).best_bound
    points: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    # One label per row: the lengths agree.
    for label, row, question in zip(configuration_labels(rows), rows, questions(rows), strict=True):
        if question is not None or row["size"] is None or row["status"] not in HAS_SOLUTION:
            continue  # another question's runs are not charged a gap (see the definitions)
        gap = gap_of(row["objective"], best_bound.get(row["instance_sha256"]))
        if gap is not None:
            points[label][row["size"]].append(gap)
    if not points:
        return False
    colors = _colors(rows)
    figure = _new_figure()
    axes = figure.subplots()
    for label in sorted(points):
        sizes = sorted(points[label])
        axes.plot(
            sizes,
            [100 * sum(points[label][s]) / len(points[label][s]) for s in sizes],
            marker="o",
            label=label,
            color=colors[label],
        )
    axes.set_xlabel("instance size")
    axes.set_ylabel("mean gap to the best bound (%)")
    axes.set_title("Gap versus size")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return True
