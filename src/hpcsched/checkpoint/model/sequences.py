"""Sequence families of kind ``chain`` built from the length (and kept set) alone: recompute-all,
segments (Chen, ``checkpoint_sequential``) and kept sets (``greedy``), each with its length counted
without building it.

They sit in the model because the generators (the budget floor is recompute-all's peak) and
`offload_candidates` build them too, not only the heuristics that return them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .data import Instance


def recompute_all_length(length: int) -> int:
    """Operations of `recompute_all_sequence`: L + 1, then k + 2 for each k < L."""
    return length * (length - 1) // 2 + 3 * length + 1


def recompute_all_sequence(length: int) -> list[tuple[str, int]]:
    """x_0 only: ``F 0..L-1, B L``, then for k = L-1..0: ``F 0..k-1, Fall k, B k``."""
    out = [("F", i) for i in range(length)] + [("B", length)]
    for k in range(length - 1, -1, -1):
        out += [("F", i) for i in range(k)] + [("Fall", k), ("B", k)]
    return out


def segments_sequence(length: int, boundaries: list[int]) -> list[tuple[str, int]]:
    """Chen / checkpoint_sequential: boundaries 0 = b_0 < .. < b_n < L start the segments.

    First pass: ``F`` through every segment but the last (its boundary x
    values are read again later, so they stay held), ``Fall`` through the
    last. Backward: the last segment's B's, then each earlier segment is
    recomputed from its boundary with ``Fall`` and its B's run.
    """
    starts = sorted(set(boundaries) | {0})
    ends = [*starts[1:], length]
    out = [("F", i) for i in range(starts[-1])] + [("Fall", i) for i in range(starts[-1], length)]
    out.append(("B", length))
    out += [("B", i) for i in range(length - 1, starts[-1] - 1, -1)]
    for start, end in zip(reversed(starts[:-1]), reversed(ends[:-1]), strict=False):
        out += [("Fall", i) for i in range(start, end)]
        out += [("B", i) for i in range(end - 1, start - 1, -1)]
    return out


def _nearest_held(length: int, kept: set[int]) -> list[int]:
    """nearest[k]: 1 + the largest kept s with s + 1 <= k - 1 (xbar_{s+1} held), else 0 (x_0)."""
    nearest, last = [0] * max(length, 1), 0
    for k in range(2, length):
        if k - 2 in kept:
            last = k - 1
        nearest[k] = last
    return nearest


def kept_sequence_length(instance: Instance, kept: set[int]) -> int:
    """Operations of `kept_sequence` (counted in O(L), without building it)."""
    L = instance.length
    nearest = _nearest_held(L, kept)
    recomputed = sum(k - nearest[k] for k in range(1, L) if k - 1 not in kept)
    return L + 1 + recomputed + (L - len(kept)) + L


def kept_sequence(instance: Instance, kept: set[int]) -> list[tuple[str, int]]:
    """First pass ``Fall i`` for i in ``kept``, ``F i`` otherwise; before ``B k`` (k < L), recompute what is missing.

    x_k is available as xbar_k when k−1 is kept (or k = 0); otherwise it is
    recomputed from the nearest value on its left that is still held (xbar_j
    with j−1 kept, or x_0). xbar_{k+1} is recomputed by ``Fall k`` when k is
    not kept.
    """
    L = instance.length
    nearest = _nearest_held(L, kept)
    out = [("Fall" if i in kept else "F", i) for i in range(L)] + [("B", L)]
    for k in range(L - 1, -1, -1):
        if k >= 1 and (k - 1) not in kept:
            out += [("F", i) for i in range(nearest[k], k)]
        if k not in kept:
            out.append(("Fall", k))
        out.append(("B", k))
    return out


__all__ = [
    "kept_sequence",
    "kept_sequence_length",
    "recompute_all_length",
    "recompute_all_sequence",
    "segments_sequence",
]
