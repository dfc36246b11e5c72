"""Plot of a traversal: the memory held at each step, with the lower bound."""

from __future__ import annotations

from typing import Any

from .bounds import memreq
from .model import Instance, Solution, memory_profile


def plot_solution(instance: Instance, solution: Solution, ax: Any = None, **options: Any) -> Any:
    """Memory profile of the traversal (step by step) on ``ax`` (a new figure when None); returns the Axes.

    Never calls ``matplotlib.use``: the caller's backend is kept.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=options.get("figsize", (8, 3)))
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    profile = memory_profile(instance, [index[name] for name in solution.order])
    ax.step(range(len(profile)), profile, where="mid", label="memory during the step")
    top = max(profile)
    ax.axhline(top, color="tab:red", linestyle="--", linewidth=1, label=f"peak {top}")
    ax.axhline(memreq(instance), color="tab:gray", linestyle=":", linewidth=1, label=f"max MemReq {memreq(instance)}")
    ax.set_xlabel("step (position in the order)")
    ax.set_ylabel("memory")
    ax.set_title(instance.name)
    ax.legend(loc="best", fontsize="small")
    return ax


def save_plot(instance: Instance, solution: Solution, path: Any, **options: Any) -> None:
    """Save `plot_solution`'s figure to ``path`` (what ``hpcsched solve --plot`` calls)."""
    import matplotlib.pyplot as plt

    ax = plot_solution(instance, solution, **options)
    ax.figure.savefig(path, bbox_inches="tight")
    plt.close(ax.figure)
