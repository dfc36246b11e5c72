"""Plot of a checkpoint sequence: memory held during each operation, recomputations marked."""

from __future__ import annotations

from typing import Any

from .model import Instance, Solution, memory_profile


def plot_solution(instance: Instance, solution: Solution, ax: Any = None) -> Any:
    """Bars of the bytes held during each operation (forward blue, recomputed forward orange,
    backward green) with the budget M as a line; returns the Axes (never calls ``matplotlib.use``)."""
    import matplotlib.pyplot as plt

    if ax is None:
        # constrained layout keeps the axis labels and the legend (outside the axes) inside the figure
        _, ax = plt.subplots(figsize=(10, 3.5), layout="constrained")
    if instance.kind == "chain-offload":
        return _plot_two_levels(instance, solution, ax)
    profile = memory_profile(instance, solution)
    seen: set[int] = set()
    colours, recomputed = [], 0
    for name, stage in solution.sequence:
        if name == "B":
            colours.append("tab:green")
        elif stage in seen:
            colours.append("tab:orange")
            recomputed += 1
        else:
            colours.append("tab:blue")
            seen.add(stage)
    ax.bar(range(len(profile)), profile, color=colours, width=1.0, linewidth=0)
    ax.axhline(instance.memory, color="black", linestyle="--", linewidth=1, label=f"M = {instance.memory}")
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    handles = [
        Patch(color="tab:blue", label="forward"),
        Patch(color="tab:orange", label=f"recomputed ({recomputed})"),
        Patch(color="tab:green", label="backward"),
    ]
    # outside, right of the axes: inside it would cover the bars and the M line, both near the top
    ax.legend(handles=[*handles, ax.get_lines()[0]], loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.set_xlabel("operation")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # operations are numbered 0, 1, ...
    ax.set_ylabel("bytes held")
    ax.set_title(f"{instance.name}: L = {instance.length}")
    return ax


def _plot_two_levels(instance: Instance, solution: Solution, ax: Any) -> Any:
    """Kind ``chain-offload``: a Gantt chart (compute row, link rows) over time, memory held on a twin axis."""
    from matplotlib.patches import Patch

    from .model.two_levels import default_start, duration, memory_over_time

    start = solution.start if solution.start is not None else default_start(instance, solution.sequence)
    rows = {"compute": 2, "out": 1, "in": 0} if instance.duplex == "full" else {"compute": 1, "out": 0, "in": 0}
    colour = {
        "F": "tab:orange",
        "Fall": "tab:blue",
        "B": "tab:green",
        "Off": "tab:purple",
        "Offall": "tab:purple",
        "Pre": "tab:red",
        "Preall": "tab:red",
    }
    seen: set[int] = set()
    for (name, stage), t in zip(solution.sequence, start, strict=True):
        stream = "out" if name in ("Off", "Offall") else "in" if name in ("Pre", "Preall") else "compute"
        row = rows[stream]
        fill = colour[name]
        if name in ("F", "Fall"):
            fill = "tab:orange" if stage in seen else "tab:blue"
            seen.add(stage)
        ax.broken_barh(
            [(t, duration(instance, name, stage))], (row - 0.4, 0.8), facecolors=fill, edgecolor="white", linewidth=0.3
        )
    labels = ["compute", "to host", "from host"] if instance.duplex == "full" else ["compute", "link"]
    ax.set_yticks(sorted(set(rows.values()), reverse=True), labels)
    ax.set_xlabel(f"time ({instance.time_unit or 'units'})")
    memory_axis = ax.twinx()
    profile = memory_over_time(instance, solution)
    if profile:
        times = [t for t, _ in profile]
        memory_axis.step(times, [held for _, held in profile], where="post", color="black", linewidth=1)
    memory_axis.axhline(instance.memory, color="black", linestyle="--", linewidth=1)
    memory_axis.set_ylim(0, 1.05 * max([instance.memory, *(held for _, held in profile)]))
    memory_axis.set_ylabel("bytes held (line); M dashed")
    handles = [
        Patch(color="tab:blue", label="forward"),
        Patch(color="tab:orange", label="recomputed"),
        Patch(color="tab:green", label="backward"),
        Patch(color="tab:purple", label="offload"),
        Patch(color="tab:red", label="prefetch"),
    ]
    # below the time axis, in one row: the memory line and M (dashed) span the whole height, and the
    # right side holds the memory axis and its label
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7, ncol=5, frameon=False)
    ax.set_ylim(-0.6, max(rows.values()) + 0.6)
    makespan = max(
        (t + duration(instance, n, s) for (n, s), t in zip(solution.sequence, start, strict=True)), default=0
    )
    ax.set_title(f"{instance.name}: L = {instance.length}, makespan {makespan}")
    return ax
