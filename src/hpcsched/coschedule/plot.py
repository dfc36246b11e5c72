"""Two-lane Gantt chart of a coschedule schedule.

Segments are coloured by kernel and drawn on two lanes (the two concurrent
slots; lanes are assigned greedily by start time, which suffices because at
most two kernels overlap). Co-run intervals are shaded across both lanes so
the pairs are visible; a preempted kernel's segments are labelled ``k*``.
Drawing never chooses a matplotlib backend (a notebook keeps its own); the
command line saves the figure with `hpcsched.plotting.save_axes`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..plotting import Bar, gantt, new_axes
from .model import Instance, Segment, Solution, evaluate

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_LANES = ("slot 1", "slot 2")


def lanes_of(segments: list[Segment]) -> list[int]:
    """The lane (0 or 1) of each segment, sorted by (start, end), greedily."""
    lane_free = [0.0, 0.0]
    lanes = []
    for s in segments:
        lane = 0 if lane_free[0] <= s.start else 1 if lane_free[1] <= s.start else int(lane_free[1] < lane_free[0])
        lanes.append(lane)
        lane_free[lane] = s.end
    return lanes


def corun_intervals(segments: list[Segment]) -> list[tuple[float, float]]:
    """Maximal-by-event intervals during which two kernels run."""
    events = sorted([(s.start, 1) for s in segments] + [(s.end, -1) for s in segments])
    intervals = []
    active, last = 0, 0.0
    for time, delta in events:
        if active >= 2 and time > last:
            intervals.append((last, time))
        active += delta
        last = time
    return intervals


def plot_solution(instance: Instance, solution: Solution, ax: Axes | None = None) -> Axes:
    """Gantt chart of the two slots, co-run time shaded grey, preempted kernels starred.

    Parameters
    ----------
    instance, solution
        What to draw.
    ax
        Axes to draw on (None: a new figure).

    Returns
    -------
    Axes
        The Axes drawn on.
    """
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    ax = new_axes(11, 2.8) if ax is None else ax
    segments = sorted(solution.segments, key=lambda s: (s.start, s.end))
    runs = Counter(s.kernel for s in segments)
    colours = colormaps["tab20"]
    for start, end in corun_intervals(segments):
        ax.axvspan(start, end, color="0.85", zorder=0)
    bars = [
        Bar(
            lane=lane,
            start=s.start,
            length=s.end - s.start,
            colour=to_hex(colours(s.kernel % 20)),
            label=f"{s.kernel}*" if runs[s.kernel] > 1 else str(s.kernel),
        )
        for s, lane in zip(segments, lanes_of(segments), strict=True)
    ]
    gantt(ax, bars, _LANES, time_unit=instance.time_unit or "", labels=instance.n <= 40)
    kpis = evaluate(instance, solution)
    ax.set_title(
        f"{instance.name}: makespan {kpis['makespan']:.6g}, {int(kpis['preemptions'])} preemptions "
        "(grey: co-run, k*: preempted)",
        fontsize=9,
    )
    return ax
