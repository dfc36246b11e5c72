"""Per-GPU Gantt chart and memory profile of a partition schedule (`hpcsched.plotting.gantt`)."""

from __future__ import annotations

from typing import Any

from ..plotting import Bar, gantt
from .model import Instance, Solution, evaluate, memory_profile

_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive")


def plot_memory(instance: Instance, solution: Solution, ax: Any = None) -> Any:
    """Memory held per GPU over time (the dynamic model's sweep; with static memory also drawn, for information) and
    M."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 3), layout="constrained")
    for gpu, steps in sorted(memory_profile(instance, solution).items()):
        times = [t for t, _ in steps]
        levels = [level for _, level in steps]
        ax.step(times, levels, where="post", label=f"GPU {gpu}", color=_COLOURS[gpu % len(_COLOURS)])
    ax.axhline(instance.memory, color="black", linestyle="--", linewidth=0.8, label="M")
    ax.set_xlabel(f"time ({instance.time_unit})" if instance.time_unit else "time")
    ax.set_ylabel("bytes held")
    ax.legend(fontsize=7, loc="upper right")
    return ax


def plot_solution(instance: Instance, solution: Solution, ax: Any = None, **options: Any) -> Any:
    """Per-GPU Gantt chart on ``ax``; with ``ax=None`` a new figure with the Gantt and, below, the memory profile.

    Returns the Gantt's Axes. Never calls ``matplotlib.use``.
    """
    memory_ax = None
    if ax is None:
        import matplotlib.pyplot as plt

        _, (ax, memory_ax) = plt.subplots(
            2,
            1,
            figsize=options.get("figsize", (10, 0.4 * instance.gpus + 4)),
            layout="constrained",
            height_ratios=(max(1, instance.gpus), 2),
        )
    bars = [
        Bar(lane=gpu, start=start, length=node.time, colour=_COLOURS[gpu % len(_COLOURS)], label=node.name)
        for node, gpu, start in zip(instance.nodes, solution.gpu, solution.start, strict=False)
    ]
    gantt(
        ax,
        bars,
        [f"GPU {g}" for g in range(instance.gpus)],
        time_unit=instance.time_unit or "",
        labels=options.get("labels", True),
    )
    kpis = evaluate(instance, solution)
    ax.set_title(
        options.get("title")
        or f"{instance.name}: makespan {kpis['makespan']:g}, "
        f"{kpis['cut_edges']:g} cut edges, peak memory {kpis['peak_memory_fraction']:.0%} of M"
    )
    if memory_ax is not None:
        plot_memory(instance, solution, memory_ax)
    return ax


def save_plot(instance: Instance, solution: Solution, path: Any, **options: Any) -> None:
    """Save the Gantt and memory profile to ``path`` (what ``hpcsched solve --plot`` calls)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 0.4 * instance.gpus + 4), layout="constrained")
    gantt_ax, memory_ax = figure.subplots(2, 1, height_ratios=(max(1, instance.gpus), 2))
    plot_solution(instance, solution, gantt_ax, **options)
    plot_memory(instance, solution, memory_ax)
    figure.savefig(path)
