"""Cutting a chain of layers into D contiguous pipeline stages: PipeDream's dynamic program, exact.

Layers 0..L-1 in chain order have a compute time c_i (forward + backward of
one micro-batch) and an output whose transfer to the next device takes
x_i (forward activation and backward gradient together). A partition cuts
the chain into D non-empty contiguous stages, stage k on device k. Its
*bottleneck* is

    max( max_k Σ_{i in stage k} c_i,  max over cuts after layer i of x_i )

the time per micro-batch of the slowest device or link in steady state
(Narayanan et al., "PipeDream: Generalized Pipeline Parallelism for DNN
Training", SOSP 2019, section 3.1, without stage replication: stages
compute and links communicate at the same time). Optionally every stage
must fit its device: ``memory(first, last, k)`` <= limit, where k is the
stage's position (1F1B keeps min(N, D - k) micro-batches in flight on
stage k, so its memory depends on k).

`partition` solves it exactly by dynamic programming over prefixes:
A(j, k) = the least bottleneck of layers 0..j-1 cut into k stages =
min over i < j of max(A(i, k - 1), x_{i-1}, C(i, j)) over the last stage
i..j-1 that fits its memory, C the stage's compute. The recursion is exact
because the bottleneck is a maximum of per-stage and per-cut terms, and a
term of the last stage does not depend on how the prefix was cut (the
stage's position k is fixed by the prefix's stage count). O(D L^2) with
prefix sums. `brute_force_partition` enumerates every composition (the
tests' reference).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: memory(first_layer, last_layer, stage_position) -> memory the stage needs on its device.
StageMemory = Callable[[int, int, int], float]


@dataclass(frozen=True)
class Partition:
    """A cut of the chain: ``bounds[k]`` = (first, last) layer of stage k (inclusive); its bottleneck."""

    bounds: tuple[tuple[int, int], ...]
    bottleneck: float


def _bottleneck(compute: Sequence[float], transfer: Sequence[float], bounds: Sequence[tuple[int, int]]) -> float:
    stages = max(sum(compute[first : last + 1]) for first, last in bounds)
    cuts = max((transfer[last] for _, last in bounds[:-1]), default=0.0)
    return max(stages, cuts)


def _checked(compute: Sequence[float], transfer: Sequence[float], devices: int) -> None:
    if devices < 1:
        raise ValueError(f"devices must be >= 1, got {devices}")
    if len(compute) < devices:
        raise ValueError(f"{len(compute)} layers cannot fill {devices} non-empty stages")
    if len(transfer) != len(compute):
        raise ValueError("compute and transfer need one entry per layer")


def partition(
    compute: Sequence[float],
    transfer: Sequence[float],
    devices: int,
    *,
    memory: StageMemory | None = None,
    limit: float | None = None,
) -> Partition | None:
    """The partition into ``devices`` contiguous stages of least bottleneck (module docstring); None if none fits.

    Parameters
    ----------
    compute
        c_i per layer.
    transfer
        x_i per layer: the time to send its output to the next device (and
        its gradient back); the last entry is unused.
    devices
        D, the number of stages (each non-empty).
    memory, limit
        A stage k over layers first..last must have memory(first, last, k)
        <= limit (both None: no memory constraint).
    """
    _checked(compute, transfer, devices)
    layers = len(compute)
    prefix = [0.0, *itertools.accumulate(compute)]
    inf = float("inf")

    def fits(first: int, last: int, k: int) -> bool:
        return memory is None or limit is None or memory(first, last, k) <= limit

    # best[k][j]: least bottleneck of layers 0..j-1 in k stages; cut[k][j]: start of its last stage
    best = [[inf] * (layers + 1) for _ in range(devices + 1)]
    cut = [[-1] * (layers + 1) for _ in range(devices + 1)]
    best[0][0] = 0.0
    for k in range(1, devices + 1):
        for j in range(k, layers - (devices - k) + 1):
            for i in range(k - 1, j):
                if best[k - 1][i] == inf or not fits(i, j - 1, k - 1):
                    continue
                link = transfer[i - 1] if i > 0 else 0.0
                value = max(best[k - 1][i], link, prefix[j] - prefix[i])
                if value < best[k][j]:
                    best[k][j], cut[k][j] = value, i
    if best[devices][layers] == inf:
        return None
    bounds, j = [], layers
    for k in range(devices, 0, -1):
        i = cut[k][j]
        bounds.append((i, j - 1))
        j = i
    return Partition(tuple(reversed(bounds)), best[devices][layers])


def brute_force_partition(
    compute: Sequence[float],
    transfer: Sequence[float],
    devices: int,
    *,
    memory: StageMemory | None = None,
    limit: float | None = None,
) -> Partition | None:
    """The same optimum by enumerating every placement of the D - 1 cuts (for tests; O(C(L-1, D-1) L))."""
    _checked(compute, transfer, devices)
    layers = len(compute)
    found: Partition | None = None
    for cuts in itertools.combinations(range(1, layers), devices - 1):
        edges = (0, *cuts, layers)
        bounds = [(edges[k], edges[k + 1] - 1) for k in range(devices)]
        if (
            memory is not None
            and limit is not None
            and any(memory(first, last, k) > limit for k, (first, last) in enumerate(bounds))
        ):
            continue
        value = _bottleneck(compute, transfer, bounds)
        if found is None or value < found.bottleneck:
            found = Partition(tuple(bounds), value)
    return found
