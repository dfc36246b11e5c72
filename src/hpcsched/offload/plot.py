"""Picture of an offload schedule: compute stream, both channels, memory vs budget."""

from __future__ import annotations

from .model import Instance, Solution, memory_profile


def plot_solution(instance: Instance, solution: Solution, path, *, title: str | None = None) -> None:
    """Gantt of F/B steps and transfers above the memory profile, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = instance.n_layers
    fig, (gantt, memory) = plt.subplots(2, 1, figsize=(12, 6), sharex=True, gridspec_kw={"height_ratios": [1, 1.2]})
    rows = {"compute": 2, "out": 1, "in": 0} if instance.duplex == "full" else {"compute": 1, "out": 0, "in": 0}
    for k in range(n):
        gantt.broken_barh([(solution.forward_start[k], instance.forward[k])], (rows["compute"] - 0.4, 0.8),
                          facecolor="tab:blue", edgecolor="white", linewidth=0.3)
        gantt.broken_barh([(solution.backward_start[k], instance.backward[k])], (rows["compute"] - 0.4, 0.8),
                          facecolor="tab:orange", edgecolor="white", linewidth=0.3)
    for i in solution.offloaded:
        gantt.broken_barh([(solution.offload_start[i], instance.offload_time(i))], (rows["out"] - 0.4, 0.8),
                          facecolor="tab:green", edgecolor="black", linewidth=0.3)
        gantt.broken_barh([(solution.prefetch_start[i], instance.prefetch_time(i))], (rows["in"] - 0.4, 0.8),
                          facecolor="tab:red", edgecolor="black", linewidth=0.3)
    labels = ["prefetch (in)", "offload (out)", "compute F/B"] if instance.duplex == "full" else ["link (half duplex)", "compute F/B"]
    gantt.set_yticks(range(len(labels)))
    gantt.set_yticklabels(labels)
    gantt.set_title(title or f"{instance.name}: {len(solution.offloaded)} activations offloaded")
    profile = memory_profile(instance, solution)
    times = [t for t, _ in profile]
    usage = [u / 2**30 for _, u in profile]
    memory.step(times, usage, where="post", color="tab:purple", label="in use")
    memory.axhline(instance.memory / 2**30, color="black", linestyle="--", label="budget M")
    memory.set_ylabel("GiB")
    memory.set_xlabel(f"time ({instance.time_unit or 'units'})")
    memory.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
