"""Plot of a traversal: the memory held at each step, with the lower bound."""

from __future__ import annotations

from typing import Any

from .bounds import memreq
from .model import Instance, Solution, memory_levels, memory_profile, out_of_core


def plot_solution(instance: Instance, solution: Solution, ax: Any = None, **options: Any) -> Any:
    """Memory profile of the traversal (step by step) on ``ax`` (a new figure when None); returns the Axes.

    A parallel schedule is drawn as the memory held over time against M; an
    out-of-core solution as the in-core profile of its order and the memory
    with its evictions, against M.

    Never calls ``matplotlib.use``: the caller's backend is kept.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=options.get("figsize", (8, 3)))
    if solution.order is None:
        return _plot_schedule(instance, solution, ax)
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    order = [index[name] for name in solution.order]
    profile = memory_profile(instance, order)
    if instance.question == "out-of-core":
        return _plot_out_of_core(instance, solution, order, profile, ax)
    ax.step(range(len(profile)), profile, where="mid", label="memory during the step")
    top = max(profile)
    ax.axhline(top, color="tab:red", linestyle="--", linewidth=1, label=f"peak {top}")
    ax.axhline(memreq(instance), color="tab:gray", linestyle=":", linewidth=1, label=f"max MemReq {memreq(instance)}")
    ax.set_xlabel("step (position in the order)")
    ax.set_ylabel("memory")
    ax.set_title(instance.name)
    ax.legend(loc="best", fontsize="small")
    return ax


def _plot_out_of_core(instance: Instance, solution: Solution, order: list[int], profile: list[int], ax: Any) -> Any:
    """In-core profile of the order, the profile with the solution's evictions, and M."""
    _, totals = out_of_core.replay(instance, order, solution)
    ax.step(range(len(profile)), profile, where="mid", color="tab:gray", linestyle=":", label="in core (no I/O)")
    ax.step(range(len(profile)), totals["steps"], where="mid", label="with the evictions")
    ax.axhline(instance.memory or 0, color="tab:red", linestyle="--", linewidth=1, label=f"M = {instance.memory}")
    ax.set_xlabel("step (position in the order)")
    ax.set_ylabel("memory")
    ax.set_title(f"{instance.name}: {totals['written']} bytes written ({totals['evictions']} evictions)")
    ax.legend(loc="best", fontsize="small")
    return ax


def _plot_schedule(instance: Instance, solution: Solution, ax: Any) -> Any:
    """Memory held over time by a parallel schedule, against M."""
    start = [solution.start[node.name] for node in instance.nodes]  # type: ignore[index]
    levels = memory_levels(instance, start)
    times = [t for t, _ in levels]
    held = [h for _, h in levels]
    ax.step(times, held, where="post", label="memory held")
    ax.axhline(instance.memory or 0, color="tab:red", linestyle="--", linewidth=1, label=f"M = {instance.memory}")
    ax.set_xlabel("time")
    ax.set_ylabel("memory")
    ax.set_title(f"{instance.name} (p = {instance.processors})")
    ax.legend(loc="best", fontsize="small")
    return ax


def save_plot(instance: Instance, solution: Solution, path: Any, **options: Any) -> None:
    """Save `plot_solution`'s figure to ``path`` (what ``hpcsched solve --plot`` calls)."""
    import matplotlib.pyplot as plt

    ax = plot_solution(instance, solution, **options)
    ax.figure.savefig(path, bbox_inches="tight")
    plt.close(ax.figure)
