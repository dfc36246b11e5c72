"""Reports of a results file: gap tables, performance profiles, gap versus size.

Definitions (written into every report, because gap tables are only honest
when they say what they measure):

- A *configuration* is a method with its options (and its time limit, when
  the results hold several time limits). Seeds are pooled.
- For each instance (by data sha256), the *best known* objective is the least
  objective any run found; the *best bound* is the greatest proven lower
  bound any run reported (a bound is only ever reported when proven).
- *gap* of a run = (objective − best bound) / objective, computed with
  `hpcsched.core.result.gap_of`, over runs with a solution on instances with a
  known bound. This is the gap a heuristic without bounds of its own is
  charged, and it is never smaller than the run's own gap.
- *ratio* = objective / best known (≥ 1); its geometric mean is over runs with
  a solution (an instance whose best known is 0 counts ratio 1 when the run
  also found 0, and is left out otherwise).
- *proven optimal* = fraction of runs whose status is OPTIMAL; this and
  *solved* (fraction with a solution) are over the applicable runs (a special
  case asked outside its class answers NOT_APPLICABLE, counted apart).
- Performance profiles (Dolan & Moré, Math. Program. 91, 2002): for each
  configuration s, ρ_s(τ) = fraction of problems p (an instance with a seed,
  and a time limit unless it is part of the configuration) with
  r_{p,s} = m_{p,s} / min_s m_{p,s} ≤ τ, where m is the objective (a run
  without solution has m = ∞) or the runtime to a solution (runtimes floored
  at 1 ms; no solution: ∞). Only problems on which every configuration has a
  run count: a configuration run on fewer seeds has not failed the runs it
  never made (the report gives how many problems are common).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.io import atomic_write_text
from ..core.result import gap_of
from .store import read_rows, write_csv

_HAS_SOLUTION = ("OPTIMAL", "FEASIBLE")
_RUNTIME_FLOOR_S = 1e-3

SUMMARY_COLUMNS = (
    "configuration",
    "runs",
    "not_applicable",
    "solved",
    "proven_optimal",
    "mean_gap",
    "worst_gap",
    "geomean_ratio",
    "errors",
    "time_limit_no_solution",
    "mean_runtime_s",
)


@dataclass(frozen=True)
class Report:
    """Paths and table of a written report."""

    markdown: Path
    summary_csv: Path
    figures: tuple[Path, ...]
    table: list[dict[str, Any]]


def configuration_labels(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The configuration of each row (see module docstring)."""
    several_limits = len({row["time_limit"] for row in rows}) > 1
    labels = []
    for row in rows:
        label = row["method"]
        if row["options"] not in ("", "{}", None):
            label += f" {row['options']}"
        if several_limits:
            limit = row["time_limit"]
            label += " @none" if limit is None else f" @{limit:g}s"
        labels.append(label)
    return labels


def _references(rows: Sequence[Mapping[str, Any]]) -> tuple[dict[str, float], dict[str, float]]:
    best_known: dict[str, float] = {}
    best_bound: dict[str, float] = {}
    for row in rows:
        sha = row["instance_sha256"]
        if row["status"] in _HAS_SOLUTION and row["objective"] is not None:
            best_known[sha] = min(best_known.get(sha, math.inf), row["objective"])
        if row["status"] != "ERROR" and row["bound"] is not None:
            best_bound[sha] = max(best_bound.get(sha, -math.inf), row["bound"])
    return best_known, best_bound


def _ratio(objective: float, best: float) -> float | None:
    if best == 0:
        return 1.0 if objective == 0 else None
    if best < 0 or objective < 0:
        return None  # ratios of signed objectives mean nothing
    return objective / best


@dataclass(frozen=True)
class _References:
    """The best known objective and the best proven bound of each instance (by data sha256)."""

    best_known: dict[str, float]
    best_bound: dict[str, float]


def summary_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One line per configuration (see module docstring for the columns)."""
    references = _References(*_references(rows))
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for label, row in zip(configuration_labels(rows), rows, strict=False):
        groups[label].append(row)
    return [_summary_line(label, groups[label], references) for label in sorted(groups)]


def _summary_line(label: str, group: Sequence[Mapping[str, Any]], references: _References) -> dict[str, Any]:
    """The summary line of one configuration's runs."""
    # A special case outside its class (NOT_APPLICABLE) is neither a
    # success nor a failure: fractions are over the applicable runs.
    applicable = [r for r in group if r["status"] != "NOT_APPLICABLE"]
    solved = [r for r in group if r["status"] in _HAS_SOLUTION and r["objective"] is not None]
    gaps = [
        g
        for g in (gap_of(r["objective"], references.best_bound.get(r["instance_sha256"])) for r in solved)
        if g is not None
    ]
    ratios = [
        q
        for q in (_ratio(r["objective"], references.best_known[r["instance_sha256"]]) for r in solved)
        if q is not None
    ]
    runtimes = [r["runtime_s"] for r in group if r["runtime_s"] is not None]
    return {
        "configuration": label,
        "runs": len(group),
        "not_applicable": len(group) - len(applicable),
        "solved": _fraction(len(solved), len(applicable)),
        "proven_optimal": _fraction(_count(group, "OPTIMAL"), len(applicable)),
        "mean_gap": _mean(gaps),
        "worst_gap": max(gaps) if gaps else None,
        "geomean_ratio": _geometric_mean(ratios),
        "errors": _count(group, "ERROR"),
        "time_limit_no_solution": _count(group, "TIME_LIMIT_NO_SOLUTION"),
        "mean_runtime_s": _mean(runtimes),
    }


def _count(group: Sequence[Mapping[str, Any]], status: str) -> int:
    return sum(r["status"] == status for r in group)


def _fraction(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _geometric_mean(ratios: Sequence[float]) -> float | None:
    """The geometric mean of positive ``ratios`` (None when empty or when one is not positive)."""
    if not ratios or not all(q > 0 for q in ratios):
        return None
    return math.exp(sum(math.log(q) for q in ratios) / len(ratios))


def _profile_values(rows: Sequence[Mapping[str, Any]], measure: str) -> tuple[dict[tuple, dict[str, float]], list[str]]:
    """m_{p,s} per problem p and configuration s (see module docstring), and the configurations."""
    labels = configuration_labels(rows)
    several_limits = len({row["time_limit"] for row in rows}) > 1
    values: dict[tuple, dict[str, float]] = defaultdict(dict)
    for label, row in zip(labels, rows, strict=False):
        problem = (row["instance_sha256"], row["seed"]) + (() if several_limits else (row["time_limit"],))
        solved = row["status"] in _HAS_SOLUTION and row["objective"] is not None
        if measure == "objective":
            value = row["objective"] if solved else math.inf
        else:
            value = max(row["runtime_s"] or 0.0, _RUNTIME_FLOOR_S) if solved else math.inf
        values[problem].setdefault(label, value)  # a repeated run counts once
    return values, sorted(set(labels))


def profile_coverage(rows: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(problems every configuration ran, all problems) of the performance profiles.

    A configuration run on fewer seeds (or instances) than another has not
    *failed* the runs it never made; profiles compare on the common problems
    only, and the report says how many that is.
    """
    values, configurations = _profile_values(rows, "objective")
    common = sum(len(per_config) == len(configurations) for per_config in values.values())
    return common, len(values)


def performance_ratios(rows: Sequence[Mapping[str, Any]], measure: str) -> dict[str, list[float]]:
    """Dolan–Moré ratios r_{p,s} per configuration; ``measure`` is
    ``"objective"`` or ``"runtime"`` (see module docstring).

    Only problems on which every configuration has a run count (see
    `profile_coverage`): a run that was never made is not a failure.
    """
    values, configurations = _profile_values(rows, measure)
    ratios: dict[str, list[float]] = {c: [] for c in configurations}
    for per_config in values.values():
        if len(per_config) < len(configurations):
            continue
        best = min(per_config.values())
        for configuration in configurations:
            value = per_config[configuration]
            if math.isinf(value) or math.isinf(best):
                ratios[configuration].append(math.inf)
            elif best == 0:
                ratios[configuration].append(1.0 if value == 0 else math.inf)
            elif best < 0:
                ratios[configuration].append(math.inf if value != best else 1.0)
            else:
                ratios[configuration].append(value / best)
    return ratios


def profile_curve(ratios: list[float], taus: Iterable[float]) -> list[float]:
    """ρ(τ) = fraction of ``ratios`` ≤ τ, for each τ."""
    n = len(ratios)
    return [sum(r <= tau for r in ratios) / n if n else 0.0 for tau in taus]


def _colors(rows) -> dict[str, Any]:
    """One colour per configuration, the same in every figure."""
    import matplotlib

    palette = matplotlib.colormaps["tab10" if len(set(configuration_labels(rows))) <= 10 else "tab20"]
    return {label: palette(i % palette.N) for i, label in enumerate(sorted(set(configuration_labels(rows))))}


def _new_figure() -> Any:
    """A figure that belongs to no pyplot state: report files are drawn without
    choosing a backend, so a notebook that calls `report` keeps its own."""
    from matplotlib.figure import Figure

    return Figure(figsize=(6.5, 4.2))


def _plot_profile(rows, measure: str, path: Path, title: str) -> None:
    import numpy as np

    ratios = performance_ratios(rows, measure)
    colors = _colors(rows)
    finite = [r for values in ratios.values() for r in values if math.isfinite(r)]
    top = max([*finite, 1.0]) * 1.05
    top = max(top, 1.01)
    taus = np.geomspace(1.0, top, 400)
    figure = _new_figure()
    axes = figure.subplots()
    for configuration, values in ratios.items():
        axes.step(taus, profile_curve(values, taus), where="post", label=configuration, color=colors[configuration])
    axes.set_xscale("log")
    axes.set_xlabel("τ (ratio to the best configuration on the problem)")
    axes.set_ylabel("fraction of problems with ratio ≤ τ")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small", loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def _plot_gap_vs_size(rows, path: Path) -> bool:
    _, best_bound = _references(rows)
    points: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for label, row in zip(configuration_labels(rows), rows, strict=False):
        if row["size"] is None or row["status"] not in _HAS_SOLUTION:
            continue
        gap = gap_of(row["objective"], best_bound.get(row["instance_sha256"]))
        if gap is not None:
            points[label][row["size"]].append(gap)
    if not points:
        return False
    colors = _colors(rows)
    figure = _new_figure()
    axes = figure.subplots()
    for label in sorted(points):
        sizes = sorted(points[label])
        axes.plot(
            sizes,
            [100 * sum(points[label][s]) / len(points[label][s]) for s in sizes],
            marker="o",
            label=label,
            color=colors[label],
        )
    axes.set_xlabel("instance size")
    axes.set_ylabel("mean gap to the best bound (%)")
    axes.set_title("Gap versus size")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return True


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
    _plot_profile(rows, "objective", figures[0], "Performance profile: objective")
    _plot_profile(rows, "runtime", figures[1], "Performance profile: time to a solution")
    if _plot_gap_vs_size(rows, out / "gap_vs_size.png"):
        figures.append(out / "gap_vs_size.png")

    instances = {row["instance_sha256"] for row in rows}
    problems = sorted({row["problem"] for row in rows})
    limits = sorted({row["time_limit"] for row in rows if row["time_limit"] is not None})
    status_counts: dict[str, int] = defaultdict(int)
    for row in rows:
        status_counts[row["status"]] += 1
    errors = [row for row in rows if row["status"] == "ERROR"][:10]
    lines = [
        f"# Study report: {Path(results_path).name}",
        "",
        f"{len(rows)} runs on {len(instances)} instances of {', '.join(problems)}; "
        f"time limits {', '.join(f'{t:g} s' for t in limits) or 'none'}; "
        f"hosts {', '.join(sorted({row['host'] for row in rows if row['host']}))}.",
        "",
        "Status counts: " + ", ".join(f"{status} {count}" for status, count in sorted(status_counts.items())) + ".",
        "",
        "## Gap table",
        "",
        markdown_table(table),
        "",
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
    if errors:
        lines += ["## Errors (first 10)", ""]
        lines += [f"- {row['instance']} / {row['method']} {row['options']}: {row['error']}" for row in errors]
        lines.append("")
    lines += [
        "## Definitions",
        "",
        __doc__.split(
            "Definitions (written into every report, because gap tables are only honest\n"
            "when they say what they measure):",
            1,
        )[-1].strip(),
        "",
    ]
    markdown = out / "report.md"
    atomic_write_text(markdown, "\n".join(lines))
    return Report(markdown=markdown, summary_csv=out / "summary.csv", figures=tuple(figures), table=table)
