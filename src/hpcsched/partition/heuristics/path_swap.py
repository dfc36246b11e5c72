"""ParDNN's path swapping: exchange the GPUs of two secondary clusters when the mapping's criterion improves.

Qararyah et al. (Parallel Computing 2021), refinement stage, at the cluster
level: "swap a cluster c with c' within the span of c, such that swapping c
with c' improves the quality" (seed 002). The paper's quality measure is not
in spec/seeds; we read it as the criterion the mapping already uses (ours,
not their code): for a cluster X on GPU G, the work G already has inside
X's span of top levels (overlap would serialize) plus the transfers of X's
cut edges. A swap is made when it lowers that sum over both clusters.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

from ...core.deadline import Deadline
from ..model import Instance


class WorkProfile(Protocol):
    """Work per time bucket of one GPU, with prefix sums (the mapping's Fenwick tree)."""

    def add(self, index: int, value: int) -> None: ...

    def prefix(self, index: int) -> int: ...


class Span(NamedTuple):
    """First and last time bucket a cluster occupies (inclusive)."""

    low: int
    high: int


class _Swapper:
    """The clusters, their spans and GPUs, and the work profiles, kept in step as swaps are made."""

    def __init__(
        self,
        instance: Instance,
        paths: Sequence[Sequence[int]],
        gpu_of: list[int],
        work: Sequence[WorkProfile],
        node_bucket: Sequence[int],
        spans: Sequence[Span],
        incident: Sequence[Sequence[tuple[int, int]]],
    ) -> None:
        self.times = instance.times
        self.paths, self.gpu_of, self.work = paths, gpu_of, work
        self.node_bucket, self.spans, self.incident = node_bucket, spans, incident

    def _work_in(self, cluster: int, span: Span) -> int:
        """Work of ``cluster``'s nodes that falls in ``span``'s buckets."""
        return sum(self.times[v] for v in self.paths[cluster] if span.low <= self.node_bucket[v] <= span.high)

    def _overlap(self, cluster: int, gpu: int, leaving: int) -> int:
        """Work on ``gpu`` in ``cluster``'s span, without ``cluster`` itself and the cluster ``leaving`` it."""
        span = self.spans[cluster]
        total = self.work[gpu].prefix(span.high + 1) - self.work[gpu].prefix(span.low)
        for other in (cluster, leaving):
            if self.gpu_of[self.paths[other][0]] == gpu:
                total -= self._work_in(other, span)
        return total

    def _cut_transfer(self, members: set[int], moved: Callable[[int], int]) -> int:
        """Σ c over the cut edges touching ``members`` (each edge once) under the GPU map ``moved``."""
        total = 0
        for v in members:
            for other, cost in self.incident[v]:
                if other in members and other < v:
                    continue
                if moved(v) != moved(other):
                    total += cost
        return total

    def change(self, first: int, second: int) -> int:
        """How much swapping the GPUs of ``first`` and ``second`` changes overlap + cut transfers."""
        gpu_first, gpu_second = self.gpu_of[self.paths[first][0]], self.gpu_of[self.paths[second][0]]
        before = self._overlap(first, gpu_first, second) + self._overlap(second, gpu_second, first)
        after = self._overlap(first, gpu_second, second) + self._overlap(second, gpu_first, first)
        in_first, in_second = set(self.paths[first]), set(self.paths[second])
        members = in_first | in_second

        def swapped(v: int) -> int:
            return gpu_second if v in in_first else gpu_first if v in in_second else self.gpu_of[v]

        cut_change = self._cut_transfer(members, swapped) - self._cut_transfer(members, self.gpu_of.__getitem__)
        return after - before + cut_change

    def swap(self, first: int, second: int) -> None:
        gpu_first, gpu_second = self.gpu_of[self.paths[first][0]], self.gpu_of[self.paths[second][0]]
        for cluster, source, target in ((first, gpu_first, gpu_second), (second, gpu_second, gpu_first)):
            for v in self.paths[cluster]:
                self.work[source].add(self.node_bucket[v], -self.times[v])
                self.work[target].add(self.node_bucket[v], self.times[v])
                self.gpu_of[v] = target


def swap_paths(
    instance: Instance,
    paths: Sequence[Sequence[int]],
    gpu_of: list[int],
    work: Sequence[WorkProfile],
    node_bucket: Sequence[int],
    spans: Sequence[Span],
    incident: Sequence[Sequence[tuple[int, int]]],
    *,
    primaries: int,
    candidates: int,
    deadline: Deadline,
) -> int:
    """One pass of path swapping over the secondary clusters, in place; returns the number of swaps.

    Parameters
    ----------
    instance
        The partition instance.
    paths
        The linear clusters of `slice_paths`; the first ``primaries`` are
        the primary ones (one per GPU) and are never swapped.
    gpu_of
        GPU of every node after the mapping (updated in place).
    work
        Per GPU, the work profile over time buckets (updated in place).
    node_bucket
        Time bucket of every node's top level (where its work is counted).
    spans
        Per cluster, its buckets (as the mapping computed them).
    incident
        Per node, ``(neighbour, transfer)`` over its edges.
    primaries
        Number of primary clusters.
    candidates
        Clusters c' examined per cluster c (those whose span lies within
        c's, by their first bucket): bounds the pass to O(n x candidates).
    deadline
        Checked every 256 clusters.

    Returns
    -------
    int
        Swaps made; each lowers the mapping's criterion strictly.
    """
    swapper = _Swapper(instance, paths, gpu_of, work, node_bucket, spans, incident)
    secondary = sorted(range(primaries, len(paths)), key=lambda c: (spans[c].low, c))
    lows = [spans[c].low for c in secondary]
    swaps = 0
    for index, cluster in enumerate(range(primaries, len(paths))):
        if index % 256 == 0:
            deadline.check("swapping paths")
        span, gpu = spans[cluster], gpu_of[paths[cluster][0]]
        best_change, best_partner = 0, -1
        examined = 0
        for position in range(bisect.bisect_left(lows, span.low), len(secondary)):
            partner = secondary[position]
            if lows[position] > span.high or examined >= candidates:
                break
            if partner == cluster or spans[partner].high > span.high or gpu_of[paths[partner][0]] == gpu:
                continue
            examined += 1
            change = swapper.change(cluster, partner)
            if change < best_change:
                best_change, best_partner = change, partner
        if best_partner >= 0:
            swapper.swap(cluster, best_partner)
            swaps += 1
    return swaps
