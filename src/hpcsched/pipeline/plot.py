"""Pictures of a pipeline schedule: a Gantt chart per device over the devices' memory levels.

Micro-batches are coloured; forward blocks are plain, backward blocks
hatched ``//`` and weight-gradient blocks ``..`` (unlabelled blocks plain).
A periodic schedule is drawn in its steady state over three periods. Drawing
never chooses a matplotlib backend; the command line saves the figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import new_axes
from .model import Instance, Solution, evaluate, makespan_levels, steady_state_levels

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_HATCH = {"F": "", "B": "//", "W": "..", None: ""}

#: Periods of the steady state a periodic schedule's picture shows.
PERIODS_SHOWN = 3


def executions(instance: Instance, solution: Solution) -> list[tuple[int, int, int]]:
    """``(micro-batch, block, start)`` of the executions drawn (for a period: those in [0, 3P))."""
    if solution.period is None:
        return [(m, b, s) for m, row in enumerate(solution.start) for b, s in enumerate(row)]
    period, window = solution.period, PERIODS_SHOWN * solution.period
    found = []
    for r, row in enumerate(solution.start):
        for b, offset in enumerate(row):
            duration = instance.blocks[b].duration
            k = -((offset + duration) // period) - 1
            while offset + k * period < window:
                start = offset + k * period
                if start + duration > 0:
                    found.append((r + k * instance.micro_batches, b, start))
                k += 1
    first = min(m for m, _, _ in found)  # number the micro-batches shown from 0
    return [(m - first, b, start) for m, b, start in found]


def level_steps(instance: Instance, solution: Solution, device: int) -> tuple[list[int], list[int]]:
    """``(times, level from that time on)`` of ``device``, from time 0 (a period: over the picture's window)."""
    if solution.period is None:
        steps = makespan_levels(instance, solution, device)
        return [0] + [t for t, _ in steps], [0] + [level for _, level in steps]
    phases = steady_state_levels(instance, solution, device)
    times, levels = [], []
    for k in range(PERIODS_SHOWN):
        for phase, level in phases:
            times.append(phase + k * solution.period)
            levels.append(level)
    return [*times, PERIODS_SHOWN * solution.period], [*levels, levels[-1]]


def plot_solution(instance: Instance, solution: Solution, ax: Axes | None = None) -> Axes:
    """Gantt chart per device (colour = micro-batch, hatch = F/B/W) over the memory levels; returns the Gantt Axes.

    Parameters
    ----------
    instance, solution
        What to draw.
    ax
        Axes for the Gantt chart; the memory levels go on a twin y axis.
        None: a new figure with the Gantt chart above the memory levels.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    if ax is None:
        ax = new_axes(11, 2 + 0.6 * instance.devices)
        figure = ax.get_figure()
        assert figure is not None
        grid = figure.add_gridspec(2, 1, height_ratios=[1.3, 1])
        ax.set_subplotspec(grid[0])
        memory_ax = figure.add_subplot(grid[1], sharex=ax)
    else:
        memory_ax = ax.twinx()
    colours = plt.get_cmap("tab20")
    runs = executions(instance, solution)
    write = len(runs) * max(len(b.devices) for b in instance.blocks) <= 80
    for m, b, start in runs:
        block = instance.blocks[b]
        for device in block.devices:
            ax.broken_barh(
                [(start, block.duration)],
                (device - 0.4, 0.8),
                facecolors=to_hex(colours(m % 20)),
                edgecolor="black",
                linewidth=0.3,
                hatch=_HATCH.get(block.kind, ""),
            )
            if write and (solution.period is None or start + block.duration / 2 < PERIODS_SHOWN * solution.period):
                ax.text(start + block.duration / 2, device, f"{block.name}.{m}", ha="center", va="center", fontsize=6)
    ax.set_yticks(range(instance.devices), [f"device {d}" for d in range(instance.devices)])
    ax.set_ylim(instance.devices - 0.5, -0.5)
    ax.grid(axis="x", linewidth=0.3, alpha=0.5)
    value = evaluate(instance, solution)["objective"]
    what = "makespan" if solution.period is None else f"period (steady state, {PERIODS_SHOWN} periods shown)"
    ax.set_title(f"{instance.name}: {what} {value:g}")
    if solution.period is not None:
        ax.set_xlim(0, PERIODS_SHOWN * solution.period)
    for device in range(instance.devices):
        times, levels = level_steps(instance, solution, device)
        memory_ax.step(times, levels, where="post", label=f"device {device}")
    memory_ax.set_ylabel("memory level")
    memory_ax.set_xlabel(f"time ({instance.time_unit})" if instance.time_unit else "time")
    if instance.devices <= 10:
        memory_ax.legend(loc="upper right", fontsize=7)
    return ax
