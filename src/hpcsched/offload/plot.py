"""Picture of an offload schedule: compute stream and channels (Gantt) over the memory profile.

Drawing never chooses a matplotlib backend (a notebook keeps its own); the
command line saves the figure with `hpcsched.plotting.save_axes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import Bar, gantt, new_axes
from .model import Instance, Solution, memory_profile

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def plot_memory(instance: Instance, solution: Solution, ax: Axes) -> Axes:
    """Draw the memory in use (GiB) against the budget M on ``ax`` and return it."""
    profile = memory_profile(instance, solution)
    ax.step([t for t, _ in profile], [u / 2**30 for _, u in profile], where="post", color="tab:purple", label="in use")
    ax.axhline(instance.memory / 2**30, color="black", linestyle="--", label="budget M")
    ax.set_ylabel("GiB")
    ax.set_xlabel(f"time ({instance.time_unit or 'units'})")
    ax.legend(loc="upper right", fontsize=8)
    return ax


def plot_solution(instance: Instance, solution: Solution, ax: Axes | None = None) -> Axes:
    """Gantt chart of the compute stream (F blue, B orange) and the channels, with the memory profile.

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
    if ax is None:
        ax = new_axes(12, 6)
        figure = ax.get_figure()
        assert figure is not None
        grid = figure.add_gridspec(2, 1, height_ratios=[1, 1.2])
        ax.set_subplotspec(grid[0])
        profile = figure.add_subplot(grid[1], sharex=ax)
    else:
        profile = ax.twinx()
    full = instance.duplex == "full"
    lanes = ["compute F/B", "offload (out)", "prefetch (in)"] if full else ["compute F/B", "link (half duplex)"]
    out_lane, in_lane = (1, 2) if full else (1, 1)
    bars = []
    for k in range(instance.n_layers):
        bars.append(Bar(0, solution.forward_start[k], instance.forward[k], "tab:blue"))
        bars.append(Bar(0, solution.backward_start[k], instance.backward[k], "tab:orange"))
    for i in solution.offloaded:
        bars.append(Bar(out_lane, solution.offload_start[i], instance.offload_time(i), "tab:green", f"a{i}"))
        bars.append(Bar(in_lane, solution.prefetch_start[i], instance.prefetch_time(i), "tab:red", f"a{i}"))
    gantt(ax, bars, lanes, time_unit=instance.time_unit or "")
    ax.set_title(f"{instance.name}: {len(solution.offloaded)} activations offloaded")
    plot_memory(instance, solution, profile)
    return ax
