"""Shared drawing helpers: one Gantt chart for every problem, and saving a figure.

Problem packages draw with `gantt` on an Axes they are given (or a new one)
and return it; they never choose a matplotlib backend, so a notebook keeps
its own. Only the command line saves files (`save_axes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: File suffixes `save_axes` writes (matplotlib's common raster and vector formats).
IMAGE_SUFFIXES = (".png", ".pdf", ".svg")


@dataclass(frozen=True)
class Bar:
    """One bar of a Gantt chart: ``length`` time units from ``start`` on ``lane``."""

    lane: int
    start: float
    length: float
    colour: str = "tab:blue"
    label: str | None = None


def new_axes(width: float = 9.0, height: float = 3.5) -> Axes:
    """A fresh Axes on a new figure (pyplot picks the backend: the notebook's, or Agg on a server)."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def gantt(ax: Axes, bars: Iterable[Bar], lanes: Sequence[str], *, time_unit: str = "", labels: bool = True) -> Axes:
    """Draw ``bars`` on ``ax``, one row per lane (lane 0 on top), and return ``ax``.

    Labels are written inside bars only where the chart stays readable (at
    most 60 bars), so a Gantt of thousands of tasks is not a smear of text.
    """
    bars = list(bars)
    write_labels = labels and len(bars) <= 60
    for bar in bars:
        ax.broken_barh(
            [(bar.start, bar.length)], (bar.lane - 0.4, 0.8), facecolors=bar.colour, edgecolor="black", linewidth=0.3
        )
        if write_labels and bar.label and bar.length > 0:
            ax.text(bar.start + bar.length / 2, bar.lane, bar.label, ha="center", va="center", fontsize=7)
    ax.set_yticks(range(len(lanes)), list(lanes))
    ax.set_ylim(len(lanes) - 0.5, -0.5)
    ax.set_xlabel(f"time ({time_unit})" if time_unit else "time")
    ax.grid(axis="x", linewidth=0.3, alpha=0.5)
    return ax


def save_axes(ax: Axes, path: str | Path, *, format: str | None = None, dpi: float = 150) -> None:
    """Save the figure holding ``ax`` to ``path`` and close it.

    ``format`` (``"png"``, ``"pdf"``, ``"svg"``, ...) is needed when ``path``
    has no telling suffix, e.g. a temporary file; ``dpi`` sets the resolution
    of raster formats.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    holder = ax.get_figure()
    if holder is None:
        raise ValueError("save_axes: the axes belong to no figure")
    # Axes drawn in a subfigure are saved with the whole figure that holds it.
    figure = holder if isinstance(holder, Figure) else holder.figure
    figure.savefig(path, dpi=dpi, format=format)
    plt.close(figure)
