"""Pictures of a transfers schedule: Gantt chart (link, device) over the memory profile."""

from __future__ import annotations

from pathlib import Path

from .model import Instance, Solution, evaluate


def plot_solution(instance: Instance, solution: Solution, path: str | Path, *, title: str | None = None,
                  labels: bool | None = None, **options) -> None:
    """Save a two-lane Gantt chart (link, device) above the held memory versus the capacity.

    Parameters
    ----------
    instance, solution
        What to draw.
    path
        Image file (format from the suffix, e.g. ``.png``, ``.svg``).
    title
        Figure title (default: instance name and makespan).
    labels
        Write task names in the bars (default: when n <= 30).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = instance.tasks
    labels = instance.n <= 30 if labels is None else labels
    makespan = evaluate(instance, solution)["makespan"]
    colours = plt.get_cmap("tab20")
    figure, (gantt, profile) = plt.subplots(2, 1, sharex=True, figsize=(10, 5), height_ratios=[1, 1.3])
    for i, task in enumerate(tasks):
        colour = colours(i % 20)
        for lane, start, length in ((1, solution.transfer_start[i], task.transfer), (0, solution.compute_start[i], task.compute)):
            gantt.broken_barh([(start, length)], (lane - 0.4, 0.8), facecolors=colour, edgecolor="black", linewidth=0.3)
            if labels and length > 0:
                gantt.text(start + length / 2, lane, task.name, ha="center", va="center", fontsize=7)
    gantt.set_yticks([0, 1], ["device", "link"])
    gantt.set_title(title or f"{instance.name}: makespan {makespan:g}")
    # Memory profile: apply all events of an instant together (releases before allocations).
    deltas: dict[int, int] = {}
    for i, task in enumerate(tasks):
        end = solution.compute_start[i] + task.compute
        if end > solution.transfer_start[i]:
            deltas[solution.transfer_start[i]] = deltas.get(solution.transfer_start[i], 0) + task.memory
            deltas[end] = deltas.get(end, 0) - task.memory
    times, levels, held = [0], [0], 0
    for time in sorted(deltas):
        held += deltas[time]
        times.append(time)
        levels.append(held)
    profile.step(times, levels, where="post", label="held memory")
    profile.axhline(instance.capacity, color="red", linestyle="--", label=f"capacity {instance.capacity}")
    profile.set_ylabel("bytes")
    profile.set_xlabel(f"time ({instance.time_unit})" if instance.time_unit else "time")
    profile.legend(loc="upper right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
