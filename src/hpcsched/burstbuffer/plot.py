"""Pictures of a burstbuffer solution.

Top: buffer occupancy over time, stacked per application, with the capacity
line (platform S for sharing, the solution's size for sizing). Bottom: one
timeline per application (compute, I/O at full rate, throttled I/O), drawn
with `hpcsched.plotting.gantt`. Both come from the validator's event
simulation (contents are drawn linearly between events; under the
``proportional`` dynamic policy the per-application split is exact at the
events only, the total is exact everywhere). Drawing never chooses a
matplotlib backend; the command line saves the figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..plotting import Bar, gantt, new_axes
from .model import Instance, Solution
from .model.fluid import simulate
from .model.trace import Trace

if TYPE_CHECKING:
    from matplotlib.axes import Axes

COLOURS = {"compute": "#9e9e9e", "io": "#1f77b4", "throttled": "#d62728"}


def _occupancy(top: Axes, instance: Instance, solution: Solution, trace: Trace) -> None:
    times = np.array(trace.times)
    labels = [app.name for app in instance.applications]
    if trace.contents:
        top.stackplot(times, np.array(trace.contents).T / 1e9, labels=labels, alpha=0.8)
    else:  # too many applications to tabulate: the total only
        top.fill_between(times, np.array(trace.total) / 1e9, alpha=0.8, label="all applications")
    capacity = instance.platform.capacity if instance.objective == "sharing" else solution.size(instance)
    top.axhline(capacity / 1e9, color="black", linestyle="--", label="capacity")
    top.set_ylabel("buffer occupancy (GB)")
    top.legend(loc="upper right", fontsize="small", ncol=2)
    top.set_title(f"{instance.name} ({solution.allocation} allocation, objective {instance.objective})")
    top.tick_params(labelbottom=False)


def plot_solution(instance: Instance, solution: Solution, ax: Axes | None = None) -> Axes:
    """Draw the occupancy (above) and each application's timeline (on ``ax``); return ``ax``.

    Parameters
    ----------
    instance, solution
        What to draw (simulated by the validator's event simulator).
    ax
        Axes for the timelines (a new figure when None); the occupancy panel
        is appended above it on the same figure.

    Returns
    -------
    Axes
        The timeline axes (``ax.figure`` holds both panels).
    """
    from matplotlib.patches import Rectangle
    from mpl_toolkits.axes_grid1 import make_axes_locatable  # type: ignore[import-untyped]

    trace = simulate(instance, solution)
    count = instance.num_applications
    if ax is None:
        ax = new_axes(10.0, 3 + 0.4 * count + 3)
    top = make_axes_locatable(ax).append_axes(
        "top", size=f"{100 * 3 / max(1.0, 0.4 * count):.0f}%", pad=0.15, sharex=ax
    )
    _occupancy(top, instance, solution, trace)
    bars = [Bar(k, start, end - start, COLOURS[state]) for k in range(count) for start, end, state in trace.segments[k]]
    gantt(ax, bars, [app.name for app in instance.applications], time_unit="s", labels=False)
    handles = [Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    ax.legend(handles, list(COLOURS), loc="upper right", fontsize="small", ncol=3)
    return ax
