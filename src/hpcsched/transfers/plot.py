"""Pictures of a transfers schedule: Gantt chart (link, device) over the memory profile.

Drawing never chooses a matplotlib backend (a notebook keeps its own); the
command line saves the figure with `hpcsched.plotting.save_axes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import Bar, gantt, new_axes
from .model import Instance, Solution, evaluate

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_LANES = ("link", "device")


def memory_profile(instance: Instance, solution: Solution) -> tuple[list[int], list[int]]:
    """``(times, held bytes from that time on)``, starting at (0, 0); all events of an instant applied together."""
    deltas: dict[int, int] = {}
    for i, task in enumerate(instance.tasks):
        end = solution.compute_start[i] + task.compute
        if end > solution.transfer_start[i]:
            deltas[solution.transfer_start[i]] = deltas.get(solution.transfer_start[i], 0) + task.memory
            deltas[end] = deltas.get(end, 0) - task.memory
    times, levels, held = [0], [0], 0
    for time in sorted(deltas):
        held += deltas[time]
        times.append(time)
        levels.append(held)
    return times, levels


def plot_memory(instance: Instance, solution: Solution, ax: Axes) -> Axes:
    """Draw the held memory against the capacity on ``ax`` and return it."""
    times, levels = memory_profile(instance, solution)
    ax.step(times, levels, where="post", label="held memory")
    ax.axhline(instance.capacity, color="red", linestyle="--", label=f"capacity {instance.capacity}")
    ax.set_ylabel("bytes")
    ax.set_xlabel(f"time ({instance.time_unit})" if instance.time_unit else "time")
    ax.legend(loc="upper right", fontsize=8)
    return ax


def plot_solution(instance: Instance, solution: Solution, ax: Axes | None = None) -> Axes:
    """Gantt chart of the link and the device (one colour per task) with the memory profile; returns the Gantt Axes.

    Parameters
    ----------
    instance, solution
        What to draw.
    ax
        Axes for the Gantt chart; the memory profile goes on a twin y axis.
        None: a new figure with the Gantt chart above the memory profile.

    Returns
    -------
    Axes
        The Axes of the Gantt chart (its figure holds both panels).
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    if ax is None:
        ax = new_axes(10, 5)
        figure = ax.get_figure()
        assert figure is not None
        grid = figure.add_gridspec(2, 1, height_ratios=[1, 1.3])
        ax.set_subplotspec(grid[0])
        profile = figure.add_subplot(grid[1], sharex=ax)
    else:
        profile = ax.twinx()
    colours = plt.get_cmap("tab20")
    bars = []
    for i, task in enumerate(instance.tasks):
        colour = to_hex(colours(i % 20))
        bars.append(Bar(0, solution.transfer_start[i], task.transfer, colour, task.name))
        bars.append(Bar(1, solution.compute_start[i], task.compute, colour, task.name))
    gantt(ax, bars, _LANES, time_unit=instance.time_unit or "", labels=instance.n <= 30)
    ax.set_title(f"{instance.name}: makespan {evaluate(instance, solution)['makespan']:g}")
    plot_memory(instance, solution, profile)
    return ax
