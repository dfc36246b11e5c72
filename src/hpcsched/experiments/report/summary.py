"""Summary tables of a results file, and the definitions that every report states.

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
- A method that *answers another question* (marked †: a preemptive
  relaxation, a reference outside the solution space; `hpcsched methods`
  says which question) is reported but never ranked: its runs set no best
  known objective or best bound, it has no gap or ratio here, and it is
  left out of the performance profiles and of gap versus size. A dispatcher
  counts as the method it chose on each instance.
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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.result import gap_of

_DEFINITIONS_HEADING = (
    "Definitions (written into every report, because gap tables are only honest\nwhen they say what they measure):"
)
#: The definitions above, as every report writes them.
DEFINITIONS = (__doc__ or "").split(_DEFINITIONS_HEADING, 1)[-1].strip()

#: The statuses of a run that found a solution.
HAS_SOLUTION = ("OPTIMAL", "FEASIBLE")

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
    "answers",
)

#: The mark of a configuration that answers another question (not ranked).
OTHER_QUESTION_MARK = "†"


def questions(rows: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """The other question each row's method answers (`hpcsched.core.registry.answers_of`), None: the problem's."""
    from ...core.errors import UnknownProblemError
    from ...core.registry import answers_of, get_problem

    problems: dict[str, Any] = {}
    for name in {str(row["problem"]) for row in rows}:  # each looked up once (an unknown one: entry points)
        try:
            problems[name] = get_problem(name)
        except UnknownProblemError:
            problems[name] = None  # a plugin not loaded: its methods answer its own question
    return [
        None
        if problems[str(row["problem"])] is None
        else answers_of(problems[str(row["problem"])], str(row["method"]), str(row.get("notes") or ""))
        for row in rows
    ]


def not_ranked(table: Sequence[Mapping[str, Any]]) -> str:
    """The sentence naming the summary lines that answer another question, grouped by question ("" if none)."""
    by_question: dict[str, list[str]] = defaultdict(list)
    for line in table:
        if line.get("answers"):
            by_question[line["answers"]].append(str(line["configuration"]).removesuffix(f" {OTHER_QUESTION_MARK}"))
    if not by_question:
        return ""
    groups = "; ".join(f"{', '.join(names)} ({question})" for question, names in sorted(by_question.items()))
    return f"{OTHER_QUESTION_MARK} answers another question, not ranked (no gap, no ratio, not profiled): {groups}."


def ranked(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows that answer their problem's own question: the only ones ranked (see the definitions)."""
    return [row for row, question in zip(rows, questions(rows), strict=True) if question is None]


def configuration_labels(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The configuration of each row (see the definitions)."""
    several_limits = len({row["time_limit"] for row in rows}) > 1
    labels = []
    for row, question in zip(rows, questions(rows), strict=True):
        label = row["method"]
        if row["options"] not in ("", "{}", None):
            label += f" {row['options']}"
        if several_limits:
            limit = row["time_limit"]
            label += " @none" if limit is None else f" @{limit:g}s"
        if question is not None:  # a dispatcher's runs split by the question its choice answered
            label += f" {OTHER_QUESTION_MARK}"
        labels.append(label)
    return labels


@dataclass(frozen=True)
class References:
    """The best known objective and the best proven bound of each instance (by data sha256)."""

    best_known: dict[str, float]
    best_bound: dict[str, float]


def references(rows: Sequence[Mapping[str, Any]]) -> References:
    """The best known objective and best bound of each instance, over the ranked ``rows`` (`ranked`)."""
    best_known: dict[str, float] = {}
    best_bound: dict[str, float] = {}
    for row in ranked(rows):
        sha = row["instance_sha256"]
        if row["status"] in HAS_SOLUTION and row["objective"] is not None:
            best_known[sha] = min(best_known.get(sha, math.inf), row["objective"])
        if row["status"] != "ERROR" and row["bound"] is not None:
            best_bound[sha] = max(best_bound.get(sha, -math.inf), row["bound"])
    return References(best_known, best_bound)


def _ratio(objective: float, best: float) -> float | None:
    if best == 0:
        return 1.0 if objective == 0 else None
    if best < 0 or objective < 0:
        return None  # ratios of signed objectives mean nothing
    return objective / best


def summary_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One line per configuration (see the definitions for the columns)."""
    known = references(rows)
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    answers: dict[str, str | None] = {}
    # One label per row: the lengths agree.
    for label, row, question in zip(configuration_labels(rows), rows, questions(rows), strict=True):
        groups[label].append(row)
        answers[label] = question
    return [_summary_line(label, groups[label], known, answers[label]) for label in sorted(groups)]


def _summary_line(
    label: str, group: Sequence[Mapping[str, Any]], known: References, answers: str | None = None
) -> dict[str, Any]:
    """The summary line of one configuration's runs (no gap or ratio when it ``answers`` another question)."""
    # A special case outside its class (NOT_APPLICABLE) is neither a
    # success nor a failure: fractions are over the applicable runs.
    applicable = [r for r in group if r["status"] != "NOT_APPLICABLE"]
    solved = [r for r in group if r["status"] in HAS_SOLUTION and r["objective"] is not None]
    ranked_solved = solved if answers is None else []  # another question's objective is not charged
    gaps = [
        g
        for g in (gap_of(r["objective"], known.best_bound.get(r["instance_sha256"])) for r in ranked_solved)
        if g is not None
    ]
    ratios = [
        q
        for q in (_ratio(r["objective"], known.best_known[r["instance_sha256"]]) for r in ranked_solved)
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
        "answers": answers or "",
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
