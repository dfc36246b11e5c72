"""Heuristics and baselines for the checkpoint problem (each sequence is checked against M here
and validated again by the registry; a heuristic whose sequence cannot fit says so).

* ``recompute-all``: keep only x_0; before each ``B k`` recompute x_k from x_0.
* ``chen``: Chen et al. (2016) √L segments: store the segment boundaries in a
  first forward pass, recompute one segment at a time with ``Fall``.
* ``checkpoint-sequential``: PyTorch ``checkpoint_sequential(functions,
  segments=k)`` semantics (the first k−1 segments of ⌊L/k⌋ stages are
  checkpointed, the last one keeps everything), best k that fits.
* ``revolve-repaired``: Revolve's sequence for the homogenized chain, with the
  most checkpoints whose real peak fits M (the repair); when even c = 1 does
  not fit, it cannot be repaired and says so.
* ``greedy``: keep the xbar of the stages with the largest
  recompute-time-per-byte; drop the others, recomputed from the nearest kept
  value before their backward, until the peak fits.
* ``dp-coarse``: the persistent DP with few slots (fast, feasible).
"""

from __future__ import annotations

import math

from ..core.deadline import Deadline, TimeLimitReached
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, store_all_sequence, too_long_to_check
from .model.sequences import (
    kept_sequence,
    kept_sequence_length,
    recompute_all_length,
    recompute_all_sequence,
    segments_sequence,
)
from .simulate import peak as simulated_peak
from .simulate import total_time
from .special_cases import revolve_length, revolve_sequence


def _peak(instance: Instance, sequence) -> int:
    return simulated_peak(instance, sequence)


def _time(instance: Instance, sequence) -> int:
    return total_time(instance, sequence)


def _too_long(why: str, notes: tuple[str, ...] = ()) -> Result:
    """The answer when the sequence cannot be checked within the limit (`too_long_to_check`)."""
    return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(why, *notes))


def _answer(instance: Instance, sequence, notes: tuple[str, ...] = (), deadline: Deadline | None = None) -> Result:
    """The heuristic's Result for ``sequence``: checked to fit M (and to be checkable in time), with `bounds.best`."""
    deadline = deadline or Deadline(None)
    why = too_long_to_check(instance.kind, len(sequence), deadline)
    if why is not None:
        return _too_long(why, notes)
    peak = _peak(instance, sequence)
    if peak > instance.memory:
        return Result(
            status=Status.NOT_APPLICABLE, notes=(f"its sequence needs {peak} bytes > M = {instance.memory}", *notes)
        )
    bound = bounds.best(instance, deadline)
    status = Status.OPTIMAL if _time(instance, sequence) <= bound else Status.FEASIBLE
    return Result(status=status, solution=Solution(tuple(sequence)), bound=float(bound), notes=notes)


# ----------------------------------------------------------------------------------------------
# Methods
# ----------------------------------------------------------------------------------------------


def recompute_all(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Keep only x_0 and recompute every activation before its backward (the least memory, the most time).

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        FEASIBLE with the heuristic's sequence (OPTIMAL when its time reaches the
        lower bound); NOT_APPLICABLE when it does not fit M.
    """
    deadline = Deadline.after(time_limit)
    why = too_long_to_check(instance.kind, recompute_all_length(instance.length), deadline)
    if why is not None:  # known before building it (L(L-1)/2 + 3L + 1 operations)
        return _too_long(why)
    return _answer(instance, recompute_all_sequence(instance.length), deadline=deadline)


def chen(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Chen et al. √L segments (segment length ⌈√L⌉).

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        FEASIBLE with the heuristic's sequence (OPTIMAL when its time reaches the
        lower bound); NOT_APPLICABLE when it does not fit M.
    """
    L = instance.length
    step = max(1, math.ceil(math.sqrt(L)))
    sequence = segments_sequence(L, list(range(0, L, step)))
    return _answer(instance, sequence, (f"segments of {step} stages",), Deadline.after(time_limit))


def pytorch_boundaries(length: int, segments: int) -> list[int]:
    """Segment starts of ``torch.utils.checkpoint.checkpoint_sequential(functions, segments)``."""
    size = length // segments
    if size == 0:
        return list(range(length))
    return [start for start in range(0, size * (segments - 1) + 1, size)] if segments > 1 else [0]


def checkpoint_sequential(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """PyTorch ``checkpoint_sequential`` semantics, the best number of segments that fits.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        FEASIBLE with the heuristic's sequence (OPTIMAL when its time reaches the
        lower bound); NOT_APPLICABLE when it does not fit M.
    """
    deadline = Deadline.after(time_limit)
    best, tried = None, instance.length
    for segments in range(1, instance.length + 1):
        if deadline.expired():
            if best is None:
                raise TimeLimitReached("time limit reached while trying segment counts")
            tried = segments - 1  # the best count tried so far (said in the notes)
            break
        sequence = segments_sequence(instance.length, pytorch_boundaries(instance.length, segments))
        if _peak(instance, sequence) <= instance.memory:
            value = _time(instance, sequence)
            if best is None or value < best[0]:
                best = (value, segments, sequence)
    if best is None:
        return Result(status=Status.NOT_APPLICABLE, notes=("no number of segments fits M",))
    cut = "" if tried == instance.length else f" (the best of 1..{tried}: the time limit cut the search)"
    return _answer(instance, best[2], (f"segments = {best[1]}{cut}",), deadline)


def revolve_repaired(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Revolve on the homogenized chain, with the most checkpoints whose real peak fits (says when none does).

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        FEASIBLE with the heuristic's sequence (OPTIMAL when its time reaches the
        lower bound); NOT_APPLICABLE when it does not fit M.
    """
    deadline = Deadline.after(time_limit)
    L = instance.length
    low, high, best, too_long = 1, L, None, None
    while low <= high:
        deadline.check("repairing Revolve")
        middle = (low + high) // 2
        # fewer checkpoints, longer sequences: one too long to check sends the search to more checkpoints
        why = too_long_to_check(instance.kind, revolve_length(L, middle), deadline)
        too_long = too_long or why
        sequence = None if why else revolve_sequence(L, middle, deadline)
        if sequence is None or _peak(instance, sequence) <= instance.memory:
            best, low = (best if sequence is None else (middle, sequence)), middle + 1
        else:
            high = middle - 1
    if best is None and too_long is not None:
        return _too_long(too_long)
    if best is None:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=("cannot be repaired: Revolve with one checkpoint (x_0) exceeds M on the real sizes",),
        )
    return _answer(instance, best[1], (f"c = {best[0]} checkpoints on the homogenized chain",), deadline)


def greedy(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Keep the activations with the largest recompute-time-per-byte until the peak fits.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : None
        This method has no options.

    Returns
    -------
    Result
        FEASIBLE with the heuristic's sequence (OPTIMAL when its time reaches the
        lower bound); NOT_APPLICABLE when it does not fit M.
    """
    deadline = Deadline.after(time_limit)
    L = instance.length
    kept = set(range(L))
    # value of keeping xbar_{i+1}: the forward time it saves per byte it holds
    order = sorted(range(L), key=lambda i: (instance.fw[i] / max(1, instance.xbar[i + 1]), -i))
    sequence = kept_sequence(instance, kept)
    for stage in order:
        if _peak(instance, sequence) <= instance.memory:
            break
        deadline.check("dropping activations")
        kept.discard(stage)
        # each drop lengthens the sequence (up to ~L²/2 operations): count it before building it
        why = too_long_to_check(instance.kind, kept_sequence_length(instance, kept), deadline)
        if why is not None:
            return _too_long(why, (f"{len(kept)} of {L} activations kept and the peak does not fit M yet",))
        sequence = kept_sequence(instance, kept)
    return _answer(instance, sequence, (f"{len(kept)} of {L} activations kept",), deadline)


#: Heuristic names and their functions (for registration and benchmarks).
HEURISTICS = {
    "chen": chen,
    "checkpoint-sequential": checkpoint_sequential,
    "revolve-repaired": revolve_repaired,
    "greedy": greedy,
}

__all__ = [
    "HEURISTICS",
    "checkpoint_sequential",
    "chen",
    "greedy",
    "kept_sequence",
    "kept_sequence_length",
    "pytorch_boundaries",
    "recompute_all",
    "recompute_all_length",
    "recompute_all_sequence",
    "revolve_repaired",
    "segments_sequence",
    "store_all_sequence",
]
