"""Heuristics and baselines for partition: ParDNN-style, HEFT with a memory check, Kernighan–Lin and METIS
partitions, round-robin, one GPU.

Every schedule comes from the shared engine (`hpcsched.taskgraph`); memory
is kept by the ledgers of `hpcsched.partition.simulate` (sufficient for
both memory models). No heuristic claims a bound. A heuristic that finds no
assignment within memory answers NOT_APPLICABLE with a note (that proves
nothing about the instance: the exact methods decide).
"""

from .baselines import one_gpu, round_robin
from .common import finish, no_schedule
from .graph_partition import KlParams, kl_partition, metis, metis_parts
from .listing import etf, heft
from .pardnn import ParDnnParams, levels, pardnn, slice_paths

HEURISTIC_METHODS = ("pardnn", "heft", "etf", "kl-partition", "metis")  # metis needs the optional pymetis
BASELINE_METHODS = ("round-robin", "one-gpu")

__all__ = [
    "BASELINE_METHODS",
    "HEURISTIC_METHODS",
    "KlParams",
    "ParDnnParams",
    "etf",
    "finish",
    "heft",
    "kl_partition",
    "levels",
    "metis",
    "metis_parts",
    "no_schedule",
    "one_gpu",
    "pardnn",
    "round_robin",
    "slice_paths",
]
