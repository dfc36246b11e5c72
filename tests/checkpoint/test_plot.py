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


def test_plot_two_levels_draws_compute_and_link_rows():
    chain = Instance.create([10] * 5, [10] * 6, [4] * 6, [None] + [4] * 5, 10**6)
    two = chain.with_link(bandwidth_out=1, bandwidth_in=1).with_memory(16)
    result = hpcsched.solve(two, "offload-greedy", time_limit=60)
    fig, ax = plt.subplots()
    assert plot_solution(two, result.solution, ax=ax) is ax
    # one bar per operation (compute and transfers) on the main axes
    bars = sum(len(collection.get_paths()) for collection in ax.collections)
    assert bars == len(result.solution.sequence)
    assert [label.get_text() for label in ax.get_yticklabels()] == ["compute", "to host", "from host"]
    plt.close(fig)
