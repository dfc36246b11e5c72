"""Make the figures of the problem pages: docs/figures/<problem>.png and the gap plot.

Run from the repository root::

    .venv/bin/python docs/make_figures.py            # every figure
    .venv/bin/python docs/make_figures.py transfers  # some of them

Each problem figure is drawn by the package itself: the problem's ``plot``
(``plot_solution(instance, solution, ax=None) -> Axes``) on the solution a
fast method finds for a small shipped instance, saved with
`hpcsched.plotting.save_axes`. The gap plot runs heuristics and the exact
CP-SAT model of transfers through `hpcsched.solve` on a few shipped instances.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a script, not a notebook: write files, open no window

import hpcsched
from hpcsched.plotting import save_axes

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures"
DPI = 100  # the PNGs are committed: keep them small
TIME_LIMIT = 10.0

#: problem -> (shipped instance, fast method); the default method is tried when the method fails.
FIGURES_OF = {
    "transfers": ("instances/transfers/uniform-n10-m1.5-s2.json", "neh"),
    "offload": ("instances/offload/squeezenet1_0-pcie3-60.json", "greedy-size"),
    "coschedule": ("instances/coschedule/orion-n10.json", "lpt"),
    "burstbuffer": ("instances/burstbuffer/periodic-k3-n8-sharing.json", "greedy-marginal"),
    "locality": ("instances/locality/unit-n40-m8-r1.json", "lpt"),
    "checkpoint": ("instances/checkpoint/random-n6-b0.5-s2.json", "dp"),
    "treemem": ("instances/treemem/random-tree-n30-s2.json", "liu-optimal"),
    "hetero": ("instances/hetero/layered-n12-s2.json", "heft"),
    "partition": ("instances/partition/training-n41-K2-s5.json", "heft"),
}

GAP_INSTANCES = (
    "instances/transfers/uniform-n10-m1.5-s2.json",
    "instances/transfers/uniform-n15-m1.5-s3.json",
    "instances/transfers/correlated-n8-m1-s7.json",
    "instances/transfers/hf-like-n10-m1.5-s11.json",
    "instances/transfers/ccsd-like-n12-m1.5-s16.json",
)
GAP_HEURISTICS = ("neh", "dynamic-johnson", "sort-ratio-asc", "fifo")


def save(ax, path: Path) -> None:
    """`save_axes` at DPI when it takes a dpi; otherwise the figure's own savefig at DPI."""
    if "dpi" in inspect.signature(save_axes).parameters:
        save_axes(ax, path, dpi=DPI)
        return
    import matplotlib.pyplot as plt

    figure = ax.get_figure()
    figure = getattr(figure, "figure", figure)  # an Axes in a subfigure: the whole figure
    figure.savefig(path, dpi=DPI)
    plt.close(figure)


def solved(problem: str, path: str, method: str):
    """The instance and a validated solution: ``method``'s, or the default method's when it has none."""
    instance = hpcsched.read_instance(ROOT / path)
    for name in (method, hpcsched.get_problem(problem).default_method):
        result = hpcsched.solve(instance, name, time_limit=TIME_LIMIT)
        if result.solution is not None and result.status in (hpcsched.Status.OPTIMAL, hpcsched.Status.FEASIBLE):
            return instance, result
    raise RuntimeError(f"{problem}: no solution for {path} ({result.status}: {result.notes})")


def problem_figure(problem: str) -> Path:
    """Draw ``problem``'s solution of its small instance with the package's own plot."""
    path, method = FIGURES_OF[problem]
    instance, result = solved(problem, path, method)
    plot = hpcsched.get_problem(problem).plot
    if plot is None:
        raise RuntimeError(f"{problem} registers no plot")
    out = FIGURES / f"{problem}.png"
    if "ax" in inspect.signature(plot).parameters:
        save(plot(instance, result.solution), out)
    else:  # a package not yet migrated: plot_solution(instance, solution, path) writes the file itself
        plot(instance, result.solution, out)
    return out


def gap_figure() -> Path:
    """Heuristics' distance to the optimum (or to the best proven bound) on a few transfers instances."""
    import matplotlib.pyplot as plt

    names, rows = [], []
    for path in GAP_INSTANCES:
        instance = hpcsched.read_instance(ROOT / path)
        exact = hpcsched.solve(instance, "cpsat", time_limit=TIME_LIMIT, workers=1)
        runs = [hpcsched.solve(instance, name, time_limit=TIME_LIMIT) for name in GAP_HEURISTICS]
        bound = max(r.bound for r in [exact, *runs] if r.bound is not None)
        reference = exact.objective if exact.status is hpcsched.Status.OPTIMAL else bound
        names.append(instance.name + ("" if exact.status is hpcsched.Status.OPTIMAL else "\n(vs proven bound)"))
        rows.append([100 * (r.objective / reference - 1) for r in runs])
    _, ax = plt.subplots(figsize=(9, 3.5), layout="constrained")
    width = 0.8 / len(GAP_HEURISTICS)
    for k, method in enumerate(GAP_HEURISTICS):
        ax.bar([i + k * width for i in range(len(names))], [row[k] for row in rows], width, label=method)
    ax.set_xticks([i + width * (len(GAP_HEURISTICS) - 1) / 2 for i in range(len(names))], names, fontsize=8)
    ax.set_ylabel("% above the optimum\n(or the best bound)")
    ax.set_title("transfers: heuristics against the CP-SAT optimum (hpcsched.solve)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", linewidth=0.3)
    out = FIGURES / "transfers-gaps.png"
    save(ax, out)
    return out


def main(argv: list[str]) -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    wanted = argv or [*FIGURES_OF, "gaps"]
    for name in wanted:
        out = gap_figure() if name == "gaps" else problem_figure(name)
        print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main(sys.argv[1:])
