"""Reports: the numbers of the gap table and the profiles, from hand-made rows."""

from __future__ import annotations

import math

import pytest

from hpcsched.experiments.report import performance_ratios, profile_curve, report, summary_table
from hpcsched.experiments.runs import COLUMNS
from hpcsched.experiments.store import write_csv


def row(instance, method, status, objective=None, bound=None, runtime=1.0, size=10, seed=0, time_limit=10.0):
    values = dict.fromkeys(COLUMNS, "")
    values.update(
        instance=instance,
        instance_sha256=f"sha-{instance}",
        problem="toy",
        size=size,
        method=method,
        options="{}",
        seed=seed,
        time_limit=time_limit,
        status=status,
        objective=objective,
        bound=bound,
        gap=None,
        runtime_s=runtime,
        host="h",
    )
    return values


# Two instances. X: exact proves 10, the heuristic finds 12. Y: exact finds 20
# with bound 16 (not proven), the heuristic also 20. "crash" fails on both.
ROWS = [
    row("X", "exact", "OPTIMAL", 10.0, 10.0, runtime=2.0),
    row("X", "heur", "FEASIBLE", 12.0, runtime=0.5),
    row("X", "crash", "ERROR"),
    row("Y", "exact", "FEASIBLE", 20.0, 16.0, runtime=10.0, size=20),
    row("Y", "heur", "FEASIBLE", 20.0, runtime=0.5, size=20),
    row("Y", "crash", "TIME_LIMIT_NO_SOLUTION", runtime=11.0, size=20),
]


def test_gap_table_by_hand():
    table = {line["configuration"]: line for line in summary_table(ROWS)}
    heur, exact, crash = table["heur"], table["exact"], table["crash"]
    # Gaps to the best proven bound: X (12-10)/12, Y (20-16)/20.
    assert heur["mean_gap"] == pytest.approx((2 / 12 + 4 / 20) / 2)
    assert heur["worst_gap"] == pytest.approx(0.2)
    assert heur["geomean_ratio"] == pytest.approx(math.sqrt(12 / 10 * 20 / 20))
    assert heur["proven_optimal"] == 0 and heur["solved"] == 1
    assert exact["mean_gap"] == pytest.approx(0.1) and exact["proven_optimal"] == 0.5
    assert exact["geomean_ratio"] == pytest.approx(1.0)
    assert crash["solved"] == 0 and crash["mean_gap"] is None and crash["errors"] == 1
    assert crash["time_limit_no_solution"] == 1
    assert exact["mean_runtime_s"] == pytest.approx(6.0)


def test_performance_ratios_and_profile_by_hand():
    objective = performance_ratios(ROWS, "objective")
    assert sorted(objective["heur"]) == pytest.approx([1.0, 1.2])
    assert objective["exact"] == [1.0, 1.0]
    assert objective["crash"] == [math.inf, math.inf]
    assert profile_curve(objective["heur"], [1.0, 1.1, 1.2]) == [0.5, 0.5, 1.0]
    runtime = performance_ratios(ROWS, "runtime")
    assert sorted(runtime["exact"]) == pytest.approx([4.0, 20.0])
    assert runtime["heur"] == [1.0, 1.0]


def test_not_applicable_runs_are_counted_apart():
    rows = [*ROWS, row("X", "special", "NOT_APPLICABLE"), row("Y", "special", "OPTIMAL", 18.0, 18.0)]
    special = {line["configuration"]: line for line in summary_table(rows)}["special"]
    assert special["runs"] == 2 and special["not_applicable"] == 1
    assert special["solved"] == 1.0 and special["proven_optimal"] == 1.0
    # Y's best bound is now 18, so the heuristic's gap on Y is (20-18)/20.
    heur = {line["configuration"]: line for line in summary_table(rows)}["heur"]
    assert heur["worst_gap"] == pytest.approx(2 / 12)


def test_several_time_limits_are_separate_configurations():
    rows = [
        row("X", "exact", "OPTIMAL", 10.0, 10.0, time_limit=1.0),
        row("X", "exact", "OPTIMAL", 10.0, 10.0, time_limit=5.0),
    ]
    assert sorted(line["configuration"] for line in summary_table(rows)) == ["exact @1s", "exact @5s"]


def test_report_writes_markdown_csv_and_pngs(tmp_path):
    write_csv(ROWS, tmp_path / "results.csv")
    written = report(tmp_path / "results.csv", tmp_path / "report")
    text = written.markdown.read_text()
    assert "| heur | 2 | 0 | 100.0% | 0.0% | 18.3% | 20.0% | 1.0954 |" in text
    assert "profile_objective.png" in text and "gap_vs_size.png" in text
    for figure in written.figures:
        assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(written.figures) == 3
    assert written.summary_csv.read_text().startswith("configuration,runs,not_applicable,solved")


def test_report_of_an_empty_file_is_an_error(tmp_path):
    write_csv([], tmp_path / "results.csv")
    with pytest.raises(ValueError, match="no rows"):
        report(tmp_path / "results.csv", tmp_path / "report")
