"""Data model of the checkpoint problem: Instance, Solution, evaluate, validate.

`data` holds the instances, `solution` the solutions; `floors` the memory floors checked
when an instance is built; `chain` the semantics of kind ``chain`` (held values
of a sequence, rules 1-5 of the definition); `two_levels` those of kind
``chain-offload`` (the chain plus a host level, over time); `sequences` the recompute-all,
segment and kept-set sequence families. `evaluate` and `validate` pick the kind's own.
"""

from __future__ import annotations

from ...core.violation import Violation
from .chain import evaluate_chain, memory_profile, validate_chain
from .data import (
    COMPUTE_OPERATIONS,
    DATA_SCHEMA,
    DUPLEX_MODES,
    KINDS,
    LINK_OPERATIONS,
    OPERATIONS,
    Instance,
)
from .floors import (
    memory_lower_bound,
    memory_lower_bound_with_reason,
    offload_memory_lower_bound_with_reason,
    store_all_peak,
    store_all_sequence,
)
from .solution import CHECK_ALLOWANCE_S, CHECK_SECONDS_PER_OPERATION, Solution, stage_range, too_long_to_check
from .two_levels import evaluate_two_levels, validate_two_levels


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """The objective and KPIs of ``solution`` (total time for kind ``chain``, makespan for ``chain-offload``)."""
    if instance.kind == "chain-offload":
        return evaluate_two_levels(instance, solution)
    return evaluate_chain(instance, solution)


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = valid), for the instance's kind."""
    if instance.kind == "chain-offload":
        return validate_two_levels(instance, solution)
    return validate_chain(instance, solution)


__all__ = [
    "CHECK_ALLOWANCE_S",
    "CHECK_SECONDS_PER_OPERATION",
    "COMPUTE_OPERATIONS",
    "DATA_SCHEMA",
    "DUPLEX_MODES",
    "KINDS",
    "LINK_OPERATIONS",
    "OPERATIONS",
    "Instance",
    "Solution",
    "evaluate",
    "memory_lower_bound",
    "memory_lower_bound_with_reason",
    "memory_profile",
    "offload_memory_lower_bound_with_reason",
    "stage_range",
    "store_all_peak",
    "store_all_sequence",
    "too_long_to_check",
    "validate",
]
