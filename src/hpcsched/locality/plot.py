"""Pictures of a locality solution.

Few servers (<= 40): a Gantt chart of every queue, local tasks in blue,
remote ones in orange (objective 2 lengths include the remote cost). Many
servers: the histogram of server loads with the lower bound ``sum p / m``.
Drawing never chooses a matplotlib backend (a notebook keeps its own); the
command line saves the figure with `hpcsched.plotting.save_axes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..plotting import Bar, gantt, new_axes
from .model import Instance, Solution

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Above this many servers the picture is the histogram of loads instead of a Gantt chart.
MAX_GANTT_SERVERS = 40

_LOCAL, _REMOTE = "tab:blue", "tab:orange"


def _lengths(instance: Instance, solution: Solution) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(server of each task, whether it is local there, its length there)."""
    server_of_task = solution.server_of_task(instance.num_tasks)
    local = (instance.replica_matrix() == server_of_task[:, None]).any(axis=1)
    cost = instance.remote_cost if instance.objective == "communication" else 0
    return server_of_task, local, instance.durations + np.where(local, 0, cost)


def _gantt(instance: Instance, solution: Solution, ax: Axes, local: np.ndarray, length: np.ndarray) -> Axes:
    bars = []
    for server in range(min(instance.servers, solution.num_queues)):
        clock = 0
        for task in solution.queue(server).tolist():
            bars.append(
                Bar(server, clock, int(length[task]), _LOCAL if local[task] else _REMOTE, instance.task_name(task))
            )
            clock += int(length[task])
    gantt(
        ax,
        bars,
        [str(server) for server in range(instance.servers)],
        time_unit=instance.time_unit or "units",
        labels=instance.num_tasks <= 60,
    )
    ax.set_ylabel("server")
    ax.set_title(f"{instance.name}: {int(np.count_nonzero(~local))} non-local tasks (orange)")
    return ax


def _histogram(instance: Instance, ax: Axes, server_of_task: np.ndarray, length: np.ndarray) -> Axes:
    loads = np.bincount(server_of_task, weights=length, minlength=instance.servers)
    ax.hist(loads, bins=min(100, max(10, int(loads.max() - loads.min()) + 1)), color=_LOCAL)
    ax.axvline(instance.durations.sum() / instance.servers, color="black", linestyle="--", label="sum p / m")
    ax.set_xlabel("server load")
    ax.set_ylabel("servers")
    ax.legend()
    ax.set_title(f"{instance.name}: max load {int(loads.max())}")
    return ax


def plot_solution(instance: Instance, solution: Solution, ax: Axes | None = None) -> Axes:
    """Draw ``solution``: a Gantt chart of the queues (<= 40 servers) or the histogram of server loads.

    Parameters
    ----------
    instance, solution
        What to draw.
    ax
        Where to draw; None: a new figure.

    Returns
    -------
    Axes
        The Axes drawn on.
    """
    if ax is None:
        ax = new_axes(8, 4.5)
    server_of_task, local, length = _lengths(instance, solution)
    if instance.servers <= MAX_GANTT_SERVERS:
        return _gantt(instance, solution, ax, local, length)
    return _histogram(instance, ax, server_of_task, length)
