"""Reports of a results file: gap tables, performance profiles, gap versus size.

Every report states the definitions of what it measures (`DEFINITIONS`, from
`hpcsched.experiments.report.summary`, where they are written out): a
configuration is a method with its options (and its time limit when the
results hold several), gaps are charged against the best proven bound of any
run, and performance profiles (Dolan & Moré) compare configurations only on
the problems that every one of them ran.

The modules, by role: `summary` (the definitions and the gap table),
`profiles` (performance ratios), `figures` (the PNG figures), `writer`
(`report`: the Markdown, the CSV and the figures of a results file).
"""

from .figures import plot_gap_vs_size, plot_profile
from .profiles import performance_ratios, profile_coverage, profile_curve
from .summary import DEFINITIONS, SUMMARY_COLUMNS, References, configuration_labels, references, summary_table
from .writer import Report, markdown_table, report

__all__ = [
    "DEFINITIONS",
    "SUMMARY_COLUMNS",
    "References",
    "Report",
    "configuration_labels",
    "markdown_table",
    "performance_ratios",
    "plot_gap_vs_size",
    "plot_profile",
    "profile_coverage",
    "profile_curve",
    "references",
    "report",
    "summary_table",
]
