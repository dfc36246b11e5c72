"""Gantt chart of a hetero schedule: one lane per machine (GPUs on top, then CPUs)."""

from __future__ import annotations

from typing import Any

from .model import Instance, Solution, evaluate


def plot_solution(instance: Instance, solution: Solution, ax: Any = None, **options: Any) -> Any:
    """Gantt chart per machine on ``ax`` (a new figure when None); returns the Axes.

    Bars are coloured by type; task names are written when n <= 40 (option
    ``labels``). Never calls ``matplotlib.use``: the caller's backend is kept.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        lanes = instance.cpus + instance.gpus
        _, ax = plt.subplots(figsize=options.get("figsize", (10, 0.35 * lanes + 1.5)))
    labels = options.get("labels", instance.n <= 40)
    lane = {}
    for g in range(instance.gpus):
        lane["gpu", g] = instance.cpus + instance.gpus - 1 - g
    for c in range(instance.cpus):
        lane["cpu", c] = instance.cpus - 1 - c
    colours = {"cpu": "tab:blue", "gpu": "tab:green"}
    for j, (kind, machine, start) in enumerate(zip(solution.type, solution.machine, solution.start, strict=False)):
        length = instance.tasks[j].time(kind) or 0
        y = lane[kind, machine]
        ax.broken_barh([(start, length)], (y - 0.4, 0.8), facecolors=colours[kind], edgecolor="black", linewidth=0.3)
        if labels and length > 0:
            ax.text(start + length / 2, y, instance.tasks[j].name, ha="center", va="center", fontsize=6)
    ticks = sorted(lane, key=lambda key: lane[key])
    ax.set_yticks([lane[key] for key in ticks], [f"{kind.upper()} {machine}" for kind, machine in ticks])
    makespan = evaluate(instance, solution)["makespan"]
    unit = f" ({instance.time_unit})" if instance.time_unit else ""
    ax.set_xlabel(f"time{unit}")
    ax.set_title(options.get("title") or f"{instance.name}: makespan {makespan:g}")
    return ax


def save_plot(instance: Instance, solution: Solution, path: Any, **options: Any) -> None:
    """Save `plot_solution`'s figure to ``path`` (what ``hpcsched solve --plot`` calls)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 0.35 * (instance.cpus + instance.gpus) + 1.5))
    plot_solution(instance, solution, figure.add_subplot(), **options)
    figure.savefig(path, bbox_inches="tight")
