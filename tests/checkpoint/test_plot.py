"""plot_solution draws on the given Axes and marks recomputations."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # the test picks the backend; plot_solution never does

import matplotlib.pyplot as plt

import hpcsched
from hpcsched.checkpoint import Instance, plot_solution


def test_plot_marks_recomputed_forwards():
    instance = Instance.create([1] * 5, [1] * 6, [1] * 6, [None] + [1] * 5, 5)
    result = hpcsched.solve(instance, "brute-force", time_limit=60)
    fig, ax = plt.subplots()
    assert plot_solution(instance, result.solution, ax=ax) is ax
    assert len(ax.patches) == len(result.solution.sequence)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert any("recomputed (6)" in label for label in labels)
    plt.close(fig)
