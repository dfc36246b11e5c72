"""Plot of a checkpoint sequence: memory held during each operation, recomputations marked."""

from __future__ import annotations

from typing import Any

from .model import Instance, Solution, memory_profile


def plot_solution(instance: Instance, solution: Solution, ax: Any = None) -> Any:
    """Bars of the bytes held during each operation (forward blue, recomputed forward orange,
    backward green) with the budget M as a line; returns the Axes (never calls ``matplotlib.use``)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.5))
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

    handles = [Patch(color="tab:blue", label="forward"), Patch(color="tab:orange", label=f"recomputed ({recomputed})"),
               Patch(color="tab:green", label="backward")]
    ax.legend(handles=[*handles, ax.get_lines()[0]], loc="upper right", fontsize=8)
    ax.set_xlabel("operation")
    ax.set_ylabel("bytes held")
    ax.set_title(f"{instance.name}: L = {instance.length}")
    return ax
