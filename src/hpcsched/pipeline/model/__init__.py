"""Data model of the pipeline problem: Instance, Solution, evaluate, validate.

`schema` holds the file's JSON Schema; `instance` the blocks, edges and
instance checks (`checks`: acyclic, balanced and never-negative memory);
`solution` the schedules; `rules` the objective and the validator, written
from the definition in docs/pipeline.md.
"""

from __future__ import annotations

from .checks import lowest_level
from .instance import MAX_BLOCKS, MAX_DEVICES, Block, Edge, Instance
from .rules import (
    device_peaks,
    evaluate,
    makespan_levels,
    memory_events,
    require_fits,
    steady_state_levels,
    validate,
)
from .schema import BLOCK_KINDS, DATA_SCHEMA, OBJECTIVES
from .solution import Solution

__all__ = [
    "BLOCK_KINDS",
    "DATA_SCHEMA",
    "MAX_BLOCKS",
    "MAX_DEVICES",
    "OBJECTIVES",
    "Block",
    "Edge",
    "Instance",
    "Solution",
    "device_peaks",
    "evaluate",
    "lowest_level",
    "makespan_levels",
    "memory_events",
    "require_fits",
    "steady_state_levels",
    "validate",
]
