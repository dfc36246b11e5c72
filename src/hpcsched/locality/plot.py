"""Pictures of a locality solution.

Few servers (<= 40): a Gantt chart of every queue, local tasks in blue,
remote ones in orange (objective 2 lengths include the remote cost). Many
servers: the histogram of server loads with the lower bound ``sum p / m``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .model import Instance, Solution


def plot_solution(instance: Instance, solution: Solution, path: str | Path, **options: Any) -> None:
    """Write a PNG (or any matplotlib format) of ``solution`` to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = instance.servers
    server_of_task = solution.server_of_task(instance.num_tasks)
    matrix = instance.replica_matrix()
    local = (matrix == server_of_task[:, None]).any(axis=1)
    cost = instance.remote_cost if instance.objective == "communication" else 0
    length = instance.durations + np.where(local, 0, cost)
    figure, axis = plt.subplots(figsize=options.get("figsize", (8, 4.5)))
    if m <= int(options.get("max_gantt_servers", 40)):
        for server in range(min(m, solution.num_queues)):
            clock = 0
            for task in solution.queue(server).tolist():
                color = "tab:blue" if local[task] else "tab:orange"
                axis.barh(server, length[task], left=clock, color=color, edgecolor="black", linewidth=0.5)
                if instance.num_tasks <= 60:
                    axis.text(clock + length[task] / 2, server, instance.task_name(task), ha="center", va="center", fontsize=7)
                clock += int(length[task])
        axis.set_ylabel("server")
        axis.set_xlabel(f"time ({instance.time_unit or 'units'})")
        axis.invert_yaxis()
        axis.set_title(f"{instance.name}: {int(np.count_nonzero(~local))} non-local tasks (orange)")
    else:
        loads = np.bincount(server_of_task, weights=length, minlength=m)
        axis.hist(loads, bins=min(100, max(10, int(loads.max() - loads.min()) + 1)), color="tab:blue")
        axis.axvline(instance.durations.sum() / m, color="black", linestyle="--", label="sum p / m")
        axis.set_xlabel("server load")
        axis.set_ylabel("servers")
        axis.legend()
        axis.set_title(f"{instance.name}: max load {int(loads.max())}")
    figure.tight_layout()
    figure.savefig(path, dpi=int(options.get("dpi", 120)))
    plt.close(figure)
