"""First-fit gap search on one machine's busy intervals (HEFT with insertion).

`earliest_start_linear` is the reference scan (the tests' oracle); `BusyIntervals` answers the same query in
O(B + log(t/B)) with blocks of intervals and a max segment tree of their largest gaps (see `engine`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence


def earliest_start_linear(intervals: Sequence[tuple[float, float]], ready: float, length: float) -> float:
    """The reference first-fit scan: earliest start >= ready of a task of ``length`` between ``intervals``.

    ``intervals`` are disjoint non-empty busy intervals sorted by start. The
    candidates are ``ready`` and the ends of the intervals after it, tried in
    order; the first one whose task ends by the next interval's start wins
    (``start + length <= begin``), else the last end. O(number of intervals):
    kept as the test oracle of `BusyIntervals.earliest_start`.
    """
    position = bisect.bisect_left(intervals, (ready, ready))
    start = ready
    if position > 0:
        start = max(start, intervals[position - 1][1])
    for index in range(position, len(intervals)):
        begin, end = intervals[index]
        if start + length <= begin:
            return start
        start = max(start, end)
    return start


class BusyIntervals:
    """The busy intervals of one machine with a sub-linear first-fit query (HEFT's insertion).

    The intervals (disjoint, non-empty, sorted by start) are kept in blocks
    of at most ``2 * block`` consecutive intervals. For each block we keep
    the largest *gap* ``begin_i - end_{i-1}`` that ends in it (the gap before
    its first interval is measured from the previous block's last end), and
    a max segment tree over the blocks. `earliest_start` returns exactly what
    `earliest_start_linear` returns on the same intervals:

    * after the interval that precedes ``ready`` every candidate start is the
      end of an interval, and it fits iff ``end_{i-1} + length <= begin_i``
      (the same float comparison as the scan, so the same answer);
    * a block whose largest gap is below ``length`` minus a margin far above
      the rounding error of ``begin - end`` cannot contain a fitting gap, so
      the segment tree skips it; the blocks it does not skip are scanned
      with the exact comparison, in order.

    Cost: O(block + log(n / block)) per query, O(block) per insertion plus
    O(n / block) when a block splits (every ``block`` insertions at most).
    """

    def __init__(self, block: int = 32):
        self.block = block
        self.blocks: list[list[tuple[float, float]]] = []
        self.firsts: list[tuple[float, float]] = []
        self.largest_gap: list[float] = []
        self.tree: list[float] = []
        self.leaves = 1
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        for block in self.blocks:
            yield from block

    # -- segment tree over the blocks' largest gaps ---------------------------------------------
    def _rebuild(self) -> None:
        leaves = 1
        while leaves < len(self.blocks):
            leaves *= 2
        self.leaves = leaves
        tree = [-math.inf] * (2 * leaves)
        tree[leaves : leaves + len(self.largest_gap)] = self.largest_gap
        for node in range(leaves - 1, 0, -1):
            tree[node] = max(tree[2 * node], tree[2 * node + 1])
        self.tree = tree

    def _set_gap(self, index: int) -> None:
        block = self.blocks[index]
        previous_end = self.blocks[index - 1][-1][1] if index > 0 else None
        largest = -math.inf
        for begin, end in block:
            if previous_end is not None and begin - previous_end > largest:
                largest = begin - previous_end
            previous_end = end
        self.largest_gap[index] = largest
        node = self.leaves + index
        self.tree[node] = largest
        node //= 2
        while node:
            self.tree[node] = max(self.tree[2 * node], self.tree[2 * node + 1])
            node //= 2

    def _first_block_at_least(self, first: int, threshold: float) -> int | None:
        """The smallest block index >= first whose largest gap is >= threshold (None if none)."""
        if first >= len(self.blocks):
            return None
        tree, leaves = self.tree, self.leaves
        node = leaves + first
        if tree[node] >= threshold:
            return first
        # climb until a right sibling holds a candidate, then descend to its leftmost candidate
        while True:
            if node % 2 == 0 and tree[node + 1] >= threshold:
                node += 1
                break
            node //= 2
            if node <= 1:
                return None
        while node < leaves:
            node = 2 * node if tree[2 * node] >= threshold else 2 * node + 1
        index = node - leaves
        return index if index < len(self.blocks) else None

    # -- updates and queries --------------------------------------------------------------------
    def insert(self, interval: tuple[float, float]) -> None:
        """Add a non-empty busy interval (disjoint from the others)."""
        self.count += 1
        if not self.blocks:
            self.blocks.append([interval])
            self.firsts.append(interval)
            self.largest_gap.append(-math.inf)
            self._rebuild()
            return
        index = max(0, bisect.bisect_right(self.firsts, interval) - 1)
        block = self.blocks[index]
        bisect.insort(block, interval)
        self.firsts[index] = block[0]
        touched = 2  # this block, and the next one (the gap before its first interval may have changed)
        if len(block) > 2 * self.block:
            half = len(block) // 2
            self.blocks[index : index + 1] = [block[:half], block[half:]]
            self.firsts[index : index + 1] = [block[0], block[half]]
            self.largest_gap[index : index + 1] = [-math.inf, -math.inf]
            self._rebuild()
            touched = 3
        for changed in range(index, min(index + touched, len(self.blocks))):
            self._set_gap(changed)

    def last_end(self) -> float:
        return self.blocks[-1][-1][1]

    def earliest_start(self, ready: float, length: float) -> float:
        """What `earliest_start_linear` returns on these intervals, in O(block + log n)."""
        blocks = self.blocks
        if not blocks:
            return ready
        last_end = blocks[-1][-1][1]
        if ready >= last_end:
            return ready  # the scan: start = max(ready, last end) and nothing after
        key = (ready, ready)
        index = max(0, bisect.bisect_right(self.firsts, key) - 1)
        block = blocks[index]
        local = bisect.bisect_left(block, key)
        if local == len(block):  # the position is the first interval of the next block
            if index + 1 == len(blocks):
                return last_end  # ready falls inside the last interval: the scan returns its end
            index, local = index + 1, 0
            block = blocks[index]
        # the interval before the position (within the block or the previous block's last)
        if local > 0:
            previous_end = block[local - 1][1]
        elif index > 0:
            previous_end = blocks[index - 1][-1][1]
        else:
            previous_end = None
        start = ready if previous_end is None else max(ready, previous_end)
        begin, end = block[local]
        if start + length <= begin:
            return start
        previous_end = end  # from here on every candidate is an interval's end
        for begin, end in block[local + 1 :]:
            if previous_end + length <= begin:
                return previous_end
            previous_end = end
        # skip whole blocks whose largest gap cannot hold the task; the margin dwarfs rounding
        margin = 1e-9 * (abs(length) + abs(last_end) + abs(blocks[0][0][0]))
        threshold = length - margin
        following = index + 1
        while True:
            found = self._first_block_at_least(following, threshold)
            if found is None:
                return last_end
            previous_end = blocks[found - 1][-1][1]
            for begin, end in blocks[found]:
                if previous_end + length <= begin:
                    return previous_end
                previous_end = end
            following = found + 1
