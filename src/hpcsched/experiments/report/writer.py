"""The report itself: ``report.md``, ``summary.csv`` and the figures of a results file."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.io import atomic_write_text
from ..store import read_rows, write_csv
from .figures import plot_gap_vs_size, plot_profile
from .profiles import profile_coverage
from .summary import DEFINITIONS, SUMMARY_COLUMNS, not_ranked, summary_table


@dataclass(frozen=True)
class Report:
    """Paths and table of a written report."""

    markdown: Path
    summary_csv: Path
    figures: tuple[Path, ...]
    table: list[dict[str, Any]]


def _cell(value: Any, kind: str = "") -> str:
    if value is None:
        return "–"
    if kind == "percent":
        return f"{100 * value:.1f}%"
    if kind == "ratio":
        return f"{value:.4f}"
    if kind == "seconds":
        return f"{value:.3g}"
    return str(value)


def markdown_table(table: list[dict[str, Any]]) -> str:
    """The summary table as Markdown."""
    header = (
        "| configuration | runs | not applicable | solved | proven optimal | mean gap | worst gap "
        "| geo-mean ratio | errors | no solution in time | mean time (s) |"
    )
    lines = [header, "|" + "---|" * 11]
    for line in table:
        lines.append(
            f"| {line['configuration']} | {line['runs']} | {line['not_applicable']} | "
            f"{_cell(line['solved'], 'percent')} | "
            f"{_cell(line['proven_optimal'], 'percent')} | {_cell(line['mean_gap'], 'percent')} | "
            f"{_cell(line['worst_gap'], 'percent')} | {_cell(line['geomean_ratio'], 'ratio')} | "
            f"{line['errors']} | {line['time_limit_no_solution']} | {_cell(line['mean_runtime_s'], 'seconds')} |"
        )
    return "\n".join(lines)


def _coverage_sentence(rows: Sequence[Mapping[str, Any]]) -> str:
    common, total = profile_coverage(rows)
    if common == total:
        return f"Over all {total} problems: every configuration ran each of them."
    return (
        f"Over the {common} of {total} problems on which every configuration ran; the other "
        f"{total - common} (a configuration run on fewer seeds or instances) are left out, not counted as failures."
    )


def _overview(rows: Sequence[Mapping[str, Any]], results_name: str) -> list[str]:
    """The report's title and its sentences on what the results hold."""
    instances = {row["instance_sha256"] for row in rows}
    problems = sorted({row["problem"] for row in rows})
    limits = sorted({row["time_limit"] for row in rows if row["time_limit"] is not None})
    hosts = sorted({row["host"] for row in rows if row["host"]})
    status_counts = Counter(row["status"] for row in rows)
    return [
        f"# Study report: {results_name}",
        "",
        f"{len(rows)} runs on {len(instances)} instances of {', '.join(problems)}; "
        f"time limits {', '.join(f'{t:g} s' for t in limits) or 'none'}; "
        f"hosts {', '.join(hosts)}.",
        "",
        "Status counts: " + ", ".join(f"{status} {count}" for status, count in sorted(status_counts.items())) + ".",
        "",
    ]


def _markdown(
    rows: Sequence[Mapping[str, Any]], results_name: str, table: list[dict[str, Any]], figures: Sequence[Path]
) -> str:
    """The whole ``report.md``: overview, gap table, profiles, gap versus size, errors, definitions."""
    lines = _overview(rows, results_name)
    lines += [
        "## Gap table",
        "",
        markdown_table(table),
        "",
        *([not_ranked(table), ""] if not_ranked(table) else []),
        "gap = (objective − best proven bound of any run on the instance) / objective; "
        "ratio = objective / best known objective; both over runs with a solution. "
        "Proven optimal: status OPTIMAL (proved by the backend or an exact algorithm).",
        "",
        "## Performance profiles (Dolan–Moré)",
        "",
        _coverage_sentence(rows),
        "",
        f"![objective profile]({figures[0].name})",
        "",
        f"![time profile]({figures[1].name})",
        "",
    ]
    if len(figures) > 2:
        lines += ["## Gap versus size", "", f"![gap versus size]({figures[2].name})", ""]
    errors = [row for row in rows if row["status"] == "ERROR"][:10]
    if errors:
        lines += ["## Errors (first 10)", ""]
        lines += [f"- {row['instance']} / {row['method']} {row['options']}: {row['error']}" for row in errors]
        lines.append("")
    lines += ["## Definitions", "", DEFINITIONS, ""]
    return "\n".join(lines)


def report(results_path: str | os.PathLike, out_dir: str | os.PathLike) -> Report:
    """Write ``report.md``, ``summary.csv`` and PNG figures for a results file.

    Returns the paths and the summary table. Raises ResultsFileError for an
    unreadable file and ValueError for one without rows.
    """
    rows = read_rows(results_path)
    if not rows:
        raise ValueError(f"{results_path}: no rows to report")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = summary_table(rows)
    write_csv(table, out / "summary.csv", SUMMARY_COLUMNS)
    figures = [out / "profile_objective.png", out / "profile_time.png"]
    plot_profile(rows, "objective", figures[0], "Performance profile: objective")
    plot_profile(rows, "runtime", figures[1], "Performance profile: time to a solution")
    if plot_gap_vs_size(rows, out / "gap_vs_size.png"):
        figures.append(out / "gap_vs_size.png")
    markdown = out / "report.md"
    atomic_write_text(markdown, _markdown(rows, Path(results_path).name, table, figures))
    return Report(markdown=markdown, summary_csv=out / "summary.csv", figures=tuple(figures), table=table)
