"""Heuristics and baselines of the pipeline problem, one function each (one module per family).

`classic` (GPipe, 1F1B, interleaved 1F1B), `zero_bubble` (ZB-H1, ZB-H2),
`greedy` (memory-aware list schedules, one function per rule),
`local_search` (adjacent swaps of per-device orders), `periodic` (the
repetends every period heuristic returns) and the baseline `sequential`.
"""

from .classic import gpipe, interleaved_1f1b, one_f_one_b
from .greedy import RULES, greedy, greedy_backward_first, greedy_critical_path, greedy_memory_tight
from .local_search import LocalSearchParams, local_search
from .sequential import sequential
from .zero_bubble import zb_h1, zb_h2

__all__ = [
    "RULES",
    "LocalSearchParams",
    "gpipe",
    "greedy",
    "greedy_backward_first",
    "greedy_critical_path",
    "greedy_memory_tight",
    "interleaved_1f1b",
    "local_search",
    "one_f_one_b",
    "sequential",
    "zb_h1",
    "zb_h2",
]
