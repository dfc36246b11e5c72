"""The Markdown table of tessel_peer.py records (``--json`` files), Tessel and ours side by side.

    .venv/bin/python benchmarks/pipeline/tessel_table.py benchmarks/pipeline/results/tessel-*.json

One row per record: the placement, D, Tessel's memory limit M and search
(``compose_n(N)`` or ``compose_fast``); Tessel's search CPU seconds (wall in
parentheses; ``> cap`` when its child was killed at the CPU limit) and the
period of its repetend; our validator's verdict on Tessel's repetend (as a
periodic schedule) and on its whole plan (as a makespan schedule of its N
micro-batches); each of our methods' CPU seconds (wall) and period on the same
period instance; the CPU ratio Tessel / ours, ours being the fastest of our
methods that reached a period no longer than Tessel's, both measured in the
same run (``> r`` against Tessel's CPU cap when it was killed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _records(paths: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        data = json.loads(Path(path).read_text())
        rows.extend(data if isinstance(data, list) else [data])
    return rows


def _tessel(record: dict[str, Any]) -> tuple[str, str, str, float | None]:
    """(time, period, validator verdict, search CPU s or None) of Tessel's side."""
    if "tessel_search_cpu_s" not in record:
        reason = record.get("tessel", "")
        if reason.startswith("not run"):
            return "not run", "–", "–", None
        if "CPU limit" in reason:
            return f"> {record['tessel_caps']['cpu_s']:g} (killed; {record['tessel_wall_s']:.0f})", "–", "–", None
        return f"{record['tessel_cpu_s']:.1f} ({reason})", "–", "–", None
    cpu, wall = record["tessel_search_cpu_s"], record["tessel_search_wall_s"]
    if "period" not in record:
        return f"{cpu:.2f} ({wall:.2f})", record.get("tessel", "–"), "–", cpu
    verdicts = [
        "valid" if record[kind]["valid"] else f"INVALID: {record[kind]['violations'][:1]}"
        for kind in ("period", "makespan")
    ]
    verdict = f"{verdicts[0]} / {verdicts[1]} (N={record['makespan']['micro_batches']})"
    return f"{cpu:.2f} ({wall:.2f})", f"{record['period'].get('objective', '–'):g}", verdict, cpu


def _ours(record: dict[str, Any], target: float | None) -> tuple[str, float | None]:
    """Our methods' cells and the least CPU seconds of those that reached Tessel's period (any, if none)."""
    cells, reached = [], None
    for row in record.get("ours", []):
        if row["objective"] is None:
            continue
        status = "" if row["status"] == "OPTIMAL" else f" {row['status'].lower()}"
        cells.append(f"{row['method']} {row['cpu_s']:.2f} ({row['runtime_s']:.2f}): {row['objective']:g}{status}")
        if target is None or row["objective"] <= target:
            reached = row["cpu_s"] if reached is None else min(reached, row["cpu_s"])
    return "; ".join(cells) or "–", reached


def _times(ratio: float) -> str:
    return f"{ratio:.2g}×" if ratio < 10 else f"{ratio:,.0f}×"


def table(records: list[dict[str, Any]]) -> str:
    lines = [
        "| placement | D | M | Tessel search | Tessel CPU s (wall) | Tessel period "
        "| our validator on Tessel: repetend / whole plan | ours: CPU s (wall): period | Tessel / ours CPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for record in records:
        time, period, verdict, tessel_cpu = _tessel(record)
        target = float(period) if period.replace(".", "").isdigit() else None
        ours, ours_cpu = _ours(record, target)
        ratio = "–"
        if tessel_cpu is not None and target is not None and ours_cpu:  # no ratio when Tessel found nothing
            ratio = _times(tessel_cpu / ours_cpu)
        elif time.startswith(">") and ours_cpu:
            ratio = "> " + _times(record["tessel_caps"]["cpu_s"] / ours_cpu)
        search = record["search"] if tessel_cpu is not None or time.startswith(">") else "–"
        lines.append(
            f"| {record['case']} | {record['devices']} | {record['memory']} | {search} | {time} | {period} "
            f"| {verdict} | {ours} | {ratio} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(_records(sys.argv[1:])))
