"""The memory floors of both kinds: bytes every valid schedule needs, with the operation that forces them.

`Instance` refuses a budget below its kind's floor when it is built; the
floors take the instance's lists only (no import of `data` at run time, so
`data` can import this module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .data import Instance


def memory_lower_bound_with_reason(instance: Instance) -> tuple[int, str]:
    """The largest of the footprints below, which every valid sequence reaches, and which one.

    Proof (each item is an operation every valid sequence contains, with the
    values the definition makes it hold; x_0 is held from the start until
    ``B 0``, the last backward, so it is held during every operation below):

    * ``B L`` (rule 4) holds x_0, what serves x_L (>= x_L bytes) and the delta_L it produces.
    * ``B i``, 1 <= i < L, holds x_0, the server of x_i (>= x_i), xbar_{i+1},
      delta_{i+1}, the delta_i it produces, and btmp_i. ``B 0`` holds x_0
      (read, served by x_0), xbar_1, delta_1, delta_0 and btmp_0.
    * ``B L`` reads x_L, so every stage i < L is forwarded at least once
      before it (the chain of producers goes back to x_0): that forward holds
      x_0, its input (>= x_i) and its output (>= x_{i+1}) plus ftmp_i.
    * ``B i`` (i < L) reads xbar_{i+1}, produced by a ``Fall i`` that runs
      either after ``B i+1`` (then it holds x_0, its input >= x_i, xbar_{i+1},
      delta_{i+1} and ftmp_i) or before it (then xbar_{i+1} is held during
      ``B i+1``, in place of the >= x_{i+1} bytes counted there): the smaller
      of the two footprints is reached.
    """
    L, x, xb = instance.length, instance.x, instance.xbar
    candidates: list[tuple[int, str]] = []

    def backward_footprint(i: int, server: int) -> int:
        if i == L:
            return x[0] + server + x[L] + instance.btmp[L]
        if i == 0:
            return x[0] + xb[1] + x[1] + x[0] + instance.btmp[0]
        return x[0] + server + xb[i + 1] + x[i + 1] + x[i] + instance.btmp[i]

    for i in range(L + 1):
        candidates.append((backward_footprint(i, x[i]), f"B {i} alone"))
    for i in range(L):
        candidates.append(((x[0] if i > 0 else 0) + x[i] + x[i + 1] + instance.ftmp[i], f"the forward of stage {i}"))
        after = (x[0] if i > 0 else 0) + x[i] + xb[i + 1] + x[i + 1] + instance.ftmp[i]
        before = backward_footprint(i + 1, xb[i + 1])
        candidates.append((min(after, before), f"the Fall {i} that B {i} reads"))
    return max(candidates)


def memory_lower_bound(instance: Instance) -> int:
    """Bytes every valid sequence needs (see `memory_lower_bound_with_reason` for the proof)."""
    return memory_lower_bound_with_reason(instance)[0]


def store_all_sequence(length: int) -> tuple[tuple[str, int], ...]:
    """``Fall 0 .. Fall L-1, B L .. B 0``: the sequence that recomputes nothing."""
    return tuple([("Fall", i) for i in range(length)] + [("B", i) for i in range(length, -1, -1)])


def store_all_peak(instance: Instance) -> int:
    """Peak memory of `store_all_sequence` under the definition's liveness (budgets are fractions of it).

    During ``Fall i``: x_0, xbar_1..xbar_{i+1}, ftmp_i (x_i is served by
    xbar_i, i >= 1). During ``B L``: x_0, xbar_1..xbar_L, delta_L, btmp_L.
    During ``B i`` (i < L): x_0, xbar_1..xbar_{i+1}, delta_{i+1}, delta_i, btmp_i.
    """
    L, x, xb = instance.length, instance.x, instance.xbar
    prefix = [0] * (L + 1)  # prefix[i] = xbar_1 + .. + xbar_i
    for i in range(1, L + 1):
        prefix[i] = prefix[i - 1] + xb[i]
    peak = max(x[0] + prefix[i + 1] + instance.ftmp[i] for i in range(L))
    peak = max(peak, x[0] + prefix[L] + x[L] + instance.btmp[L])
    for i in range(L):
        peak = max(peak, x[0] + prefix[i + 1] + x[i + 1] + x[i] + instance.btmp[i])
    return peak


def offload_memory_lower_bound_with_reason(instance: Instance) -> tuple[int, str]:
    """Bytes every valid two-level schedule needs, and which operation forces them.

    Proof: every schedule runs ``B L .. B 0`` (rule 2) and, since ``B L``
    reads x_L, a forward of every stage. While ``B i`` (1 <= i < L) runs it
    holds the server of x_i (>= x_i bytes), xbar_{i+1}, delta_{i+1} (read),
    delta_i (produced) and btmp_i; ``B L`` the server of x_L, delta_L and
    btmp_L; ``B 0`` x_0, xbar_1, delta_1, delta_0, btmp_0. A forward of stage
    i holds its input (>= x_i) and its output (>= x_{i+1}) and ftmp_i. Unlike
    kind ``chain``, x_0 is not counted during the other operations: it may be
    offloaded.
    """
    L, x, xb = instance.length, instance.x, instance.xbar
    candidates = [(x[L] + x[L] + instance.btmp[L], f"B {L} alone")]
    for i in range(L):
        server = x[0] if i == 0 else x[i]
        candidates.append((server + xb[i + 1] + x[i + 1] + x[i] + instance.btmp[i], f"B {i} alone"))
        candidates.append((x[i] + x[i + 1] + instance.ftmp[i], f"the forward of stage {i}"))
    return max(candidates)
