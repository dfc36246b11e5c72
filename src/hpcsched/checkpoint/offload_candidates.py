"""The remat sequences `offload_greedy` adds offloads to (its module docstring, step 1).

In the order they are made and tried: store-all (nothing to compute), the
remat ``greedy`` heuristic's sequences at several budgets (no DP table, but
a simulation per prefix of its drop order: 8 s on a 300-stage homogeneous
chain), then rotor's persistent DP's at the same budgets (O(S·L³) each), so
that a time limit cutting a later phase still leaves the earlier ones tried.
"""

from __future__ import annotations

from ..core.deadline import Deadline
from ..core.errors import InfeasibleError, InvalidInstanceError
from .model import Instance, Solution, store_all_peak, store_all_sequence


def remat_candidates(
    instance: Instance, count: int, slots: int, deadline: Deadline, recompute: bool = True
) -> list[tuple[str, tuple]]:
    """(label, remat sequence) for store-all and (``recompute``) `greedy_remat_candidates` and `dp_candidates` at
    ``count`` budgets between M and the peak, each sequence once (the first label kept)."""
    found = [store_all_candidate(instance)]
    if recompute:
        found += greedy_remat_candidates(instance, count, deadline) + dp_candidates(instance, count, slots, deadline)
    return unique_sequences(found)


def unique_sequences(found: list[tuple[str, tuple]]) -> list[tuple[str, tuple]]:
    """Each sequence once, at its first place."""
    first = {sequence: k for k, (_, sequence) in reversed(list(enumerate(found)))}
    return [found[k] for k in sorted(first.values())]


def _roomy_chain(instance: Instance) -> Instance:
    """The instance as a chain whose budget is at least the store-all peak (M itself may be below the remat
    floor); the candidates are valid remat sequences of it."""
    return instance.with_memory(max(store_all_peak(instance), instance.memory)).as_chain()


def store_all_candidate(instance: Instance) -> tuple[str, tuple]:
    """(label, sequence) of store-all: every stage forwarded once, with its xbar (offload only)."""
    return ("store-all", tuple(store_all_sequence(instance.length)))


def greedy_remat_candidates(instance: Instance, count: int, deadline: Deadline) -> list[tuple[str, tuple]]:
    """`greedy_candidates` on the instance's chain, at ``count`` budgets from M to the store-all peak."""
    return greedy_candidates(_roomy_chain(instance), instance.memory, count, deadline)


def dp_candidates(instance: Instance, count: int, slots: int, deadline: Deadline) -> list[tuple[str, tuple]]:
    """(label, sequence) of rotor's persistent DP at ``count`` budgets M' between M and the store-all peak
    (``slots`` slots each; a budget with no persistent sequence is skipped)."""
    from .model import validate as validate_chain
    from .persistent import DpTableTooLarge, DpTooSlow, persistent_dp

    peak, chain = store_all_peak(instance), _roomy_chain(instance)  # the peak of Fall 0..L-1, B L..0
    found = []
    for k in range(count):
        deadline.check("remat sequences")
        budget = instance.memory + max(0, peak - instance.memory) * k // count
        try:
            candidate = chain.with_memory(budget)
        except (InvalidInstanceError, InfeasibleError):
            continue
        try:
            plan = persistent_dp(candidate, slots, deadline)
        except (DpTooSlow, DpTableTooLarge):
            break  # refused before any work (the other budgets' tables are as large): the later tries go on
        if plan.time is not None and not validate_chain(candidate, Solution(plan.sequence)):
            found.append((f"persistent DP at M' = {budget}", tuple(plan.sequence)))
    return found


def greedy_candidates(chain: Instance, memory: int, count: int, deadline: Deadline) -> list[tuple[str, tuple]]:
    """(label, sequence) of the remat ``greedy`` heuristic at ``count`` budgets M' from ``memory`` to the peak.

    The heuristic's rule (`heuristics.greedy`): drop the xbar of the stages in
    increasing forward-time-per-byte order until the simulated peak fits M'.
    The kept sets are nested, so the peak of each prefix of the drop order is
    computed once; at an M' below every prefix's peak the last prefix (every
    activation dropped, the least memory the rule reaches) is taken. Duplicates
    are returned once.
    """
    from .model.sequences import kept_sequence
    from .simulate import peak as simulated_peak

    L, peak = chain.length, store_all_peak(chain)
    # the order of heuristics.greedy: the forward time xbar_{i+1} saves per byte it holds
    order = sorted(range(L), key=lambda i: (chain.fw[i] / max(1, chain.xbar[i + 1]), -i))
    prefixes = []  # (kept, peak, sequence) for the first 0, 1, ... stages of the order dropped
    for dropped in range(L + 1):
        deadline.check("greedy remat sequences")
        kept = set(order[dropped:])
        sequence = tuple(kept_sequence(chain, kept))
        prefixes.append((len(kept), simulated_peak(chain, sequence), sequence))
        if prefixes[-1][1] <= memory:
            break  # the heuristic stops here at M, so at every larger M' too
    found: list[tuple[str, tuple]] = []
    for k in range(count):
        budget = memory + max(0, peak - memory) * k // count
        kept_count, _, sequence = next((p for p in prefixes if p[1] <= budget), prefixes[-1])
        if all(sequence != other for _, other in found):
            found.append((f"greedy at M' = {budget} ({kept_count} of {L} kept)", sequence))
    return found


__all__ = [
    "dp_candidates",
    "greedy_candidates",
    "greedy_remat_candidates",
    "remat_candidates",
    "store_all_candidate",
    "unique_sequences",
]
