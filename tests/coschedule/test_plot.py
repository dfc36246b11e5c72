"""The Gantt chart is drawn for preemptive and non-preemptive schedules, without touching the backend."""

import matplotlib

from hpcsched import solve
from hpcsched.coschedule import generate_uniform, plot_solution
from hpcsched.plotting import save_axes


def test_gantt_png(tmp_path):
    instance = generate_uniform(seed=2, n=8, density=0.8)
    backend = matplotlib.get_backend()
    for method in ("lp-preemptive", "lp-merge"):
        result = solve(instance, method)
        ax = plot_solution(instance, result.solution)
        assert len(ax.patches) + len(ax.collections) >= instance.n  # one bar (at least) per kernel
        path = tmp_path / f"{method}.png"
        save_axes(ax, path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert matplotlib.get_backend() == backend


def test_preempted_kernels_are_starred():
    instance = generate_uniform(seed=0, n=4, density=1.0, r_min=0.6)
    result = solve(instance, "lp-preemptive")
    ax = plot_solution(instance, result.solution)
    labels = {text.get_text() for text in ax.texts}
    preempted = result.kpis["preemptions"] > 0
    assert any(label.endswith("*") for label in labels) == preempted
