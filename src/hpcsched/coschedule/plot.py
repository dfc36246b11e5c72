"""Two-lane Gantt chart of a coschedule schedule.

Segments are colored by kernel and drawn on two lanes (the two concurrent
slots; lanes are assigned greedily by start time, which suffices because at
most two kernels overlap). Co-run intervals are shaded across both lanes so
the pairs are visible; preempted kernels get a hatched border.
"""

from __future__ import annotations

from typing import Any

from .model import Instance, Solution, evaluate


def plot_solution(instance: Instance, solution: Solution, path: Any, *, title: str | None = None, labels: bool | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    segments = sorted(solution.segments, key=lambda s: (s.start, s.end))
    lane_free = [0.0, 0.0]
    lane_of = []
    for s in segments:
        lane = 0 if lane_free[0] <= s.start else 1 if lane_free[1] <= s.start else int(lane_free[1] < lane_free[0])
        lane_of.append(lane)
        lane_free[lane] = s.end
    counts: dict[int, int] = {}
    for s in segments:
        counts[s.kernel] = counts.get(s.kernel, 0) + 1
    colors = plt.get_cmap("tab20")
    figure, axes = plt.subplots(figsize=(11, 2.8))
    # Shade co-run intervals (both lanes busy).
    events = sorted([(s.start, 1) for s in segments] + [(s.end, -1) for s in segments])
    active, last = 0, 0.0
    for time, delta in events:
        if active >= 2 and time > last:
            axes.axvspan(last, time, color="0.85", zorder=0)
        active += delta
        last = time
    show_labels = labels if labels is not None else instance.n <= 40
    for s, lane in zip(segments, lane_of):
        axes.barh(
            1 - lane,
            s.end - s.start,
            left=s.start,
            height=0.8,
            color=colors(s.kernel % 20),
            edgecolor="black",
            linewidth=0.4,
            hatch="//" if counts[s.kernel] > 1 else None,
            zorder=2,
        )
        if show_labels:
            axes.text((s.start + s.end) / 2, 1 - lane, str(s.kernel), ha="center", va="center", fontsize=7, zorder=3)
    kpis = evaluate(instance, solution)
    axes.set_yticks([1, 0], ["slot 1", "slot 2"])
    axes.set_xlabel(f"time ({instance.time_unit or 'units'})")
    axes.set_title(
        title
        or f"{instance.name}: makespan {kpis['makespan']:.6g}, {int(kpis['preemptions'])} preemptions (grey: co-run, hatched: preempted)",
        fontsize=9,
    )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
