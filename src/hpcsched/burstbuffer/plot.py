"""Pictures of a burstbuffer solution (matplotlib, Agg).

Top: buffer occupancy over time, stacked per application, with the capacity
line (platform S for sharing, the solution's size for sizing). Bottom: one
timeline per application: compute, I/O at full rate, throttled I/O. Both
come from the validator's event simulation (contents are drawn linearly
between events; under the ``proportional`` dynamic policy the per-application
split is exact at the events only, the total is exact everywhere).
"""

from __future__ import annotations

from .fluid import simulate
from .model import Instance, Solution

COLOURS = {"compute": "#9e9e9e", "io": "#1f77b4", "throttled": "#d62728"}


def plot_solution(instance: Instance, solution: Solution, path, *, title: str | None = None, **options) -> None:
    """Save the occupancy and timeline figure of ``solution`` to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    trace = simulate(instance, solution)
    count = instance.num_applications
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(10, 3 + 0.4 * count + 3), sharex=True,
                                         gridspec_kw={"height_ratios": [3, max(1, 0.4 * count)]})
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
    kind = solution.allocation
    top.set_title(title or f"{instance.name} ({kind} allocation, objective {instance.objective})")
    for k in range(count):
        for start, end, state in trace.segments[k]:
            bottom.broken_barh([(start, end - start)], (k - 0.4, 0.8), color=COLOURS[state])
    bottom.set_yticks(range(count))
    bottom.set_yticklabels(labels)
    bottom.set_xlabel("time (s)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    bottom.legend(handles, list(COLOURS), loc="upper right", fontsize="small", ncol=3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
