"""Per-application contents of the shared buffer under each drain policy (bookkeeping only).

The drain policy decides whose data leaves the shared buffer first; admission
depends on the total occupancy only, so nothing here changes an event, a
completion or a verdict on the total (``dynamic_events``). The closed forms
are in ``docs/burstbuffer.md`` ("Per-application contents of the shared
buffer"). They are evaluated once per event and application, so the event
simulator tabulates them only for small instances (`dynamic_events.DETAIL_CELLS`).
"""

from __future__ import annotations

import math
from collections import deque

from .trace import SNAP


def _proportional_contents(before, inflow, q0, q1, step, bandwidth, total_drain):
    """Per-application contents after a step when B is shared in proportion to backlog.

    Closed form of b_k' = a_k - B b_k / Q with Q linear (see docs/burstbuffer.md).
    """
    count = len(before)
    total_in = sum(inflow)
    if q1 <= 0:
        return [0.0] * count
    if q0 <= 0:
        # Filling from empty: every unit that stays is a mixture in proportion to the inflows.
        return [a * q1 / total_in for a in inflow] if total_in > 0 else [0.0] * count
    growth = total_in - total_drain
    if total_drain <= 0:
        return [b + a * step for b, a in zip(before, inflow, strict=True)]
    if abs(growth) <= 1e-12 * max(total_in, total_drain):
        decay = math.exp(-total_drain * step / q0)
        return [a * q0 / total_drain + (b - a * q0 / total_drain) * decay for b, a in zip(before, inflow, strict=True)]
    ratio = (q1 / q0) ** (-total_drain / growth)
    if total_in <= 0:
        return [b * q1 / q0 for b in before]
    return [a * q1 / total_in + (b - a * q0 / total_in) * ratio for b, a in zip(before, inflow, strict=True)]


def _equal_share_contents(before, inflow, step, total_drain):
    """Per-application contents after a step when the drain is split equally among non-empty buffers.

    An empty buffer cannot drain faster than its inflow, so the split is a
    water-filling with caps a_k on empty buffers; it changes whenever a buffer
    empties, hence the sub-steps.
    """
    contents = list(before)
    left = step
    scale = max(max(before), max(inflow) * step, 1e-300)
    for _ in range(4 * len(contents) + 4):
        if left <= 0:
            break
        active = [k for k in range(len(contents)) if contents[k] > 1e-12 * scale or inflow[k] > 0]
        if not active:
            break
        caps = {k: (math.inf if contents[k] > 1e-12 * scale else inflow[k]) for k in active}
        shares = {k: 0.0 for k in active}
        budget, open_ = total_drain, sorted(active, key=lambda k: caps[k])
        while open_:
            equal = budget / len(open_)
            if caps[open_[0]] <= equal:
                k = open_.pop(0)
                shares[k] = caps[k]
                budget -= caps[k]
            else:
                for k in open_:
                    shares[k] = equal
                break
        sub = left
        for k in active:
            net = inflow[k] - shares[k]
            if net < 0 and contents[k] > 0:
                sub = min(sub, contents[k] / -net)
        for k in active:
            contents[k] = max(0.0, contents[k] + (inflow[k] - shares[k]) * sub)
        left -= sub
    return contents


class FifoContents:
    """First in, first out: the drain takes the oldest segments of the admitted mixture first."""

    def __init__(self, count: int, volume_scale: float) -> None:
        self.count, self.volume_scale = count, volume_scale
        self.segments: deque[list] = deque()  # [amount, composition] segments, oldest first

    def step(self, level: float, inflow: list[float], step: float, total_in: float, new_level: float) -> list[float]:
        drained = max(0.0, level + total_in * step - new_level)
        if total_in > 0 and step > 0:
            self.segments.append([total_in * step, [a / total_in for a in inflow]])
        while drained > 0 and self.segments:
            head = self.segments[0]
            taken = min(head[0], drained)
            head[0] -= taken
            drained -= taken
            if head[0] <= SNAP * self.volume_scale:
                self.segments.popleft()
        if new_level == 0.0:
            self.segments.clear()
        return [sum(seg[0] * seg[1][k] for seg in self.segments) for k in range(self.count)]
