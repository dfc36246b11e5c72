"""The simulator's memory profile: a sorted event list whose queries cost the events they need.

`simulate` asks two kinds of question, each at about the time its clock has reached:

- `Profile.earliest_fit`: the first t >= t0 at which a step's memory fits
  for good (and its workspace for its duration). The usage at t0 comes from a
  cursor or from the total, whichever is nearer, and the walk after t0 stops
  once the usage fits and no later event adds memory: past the last positive
  event the usage only falls.
- `Profile.earliest_lasting_fit`: the same without a workspace, for the
  prefetches, whose t0 (the in-channel's free time) never decreases but may
  lie far behind the clock when prefetches run ahead of the backward steps.
  The maximum usage after t0 comes from a monotone queue of suffix maxima,
  so the region between the prefetches and the clock is not walked again at
  every prefetch.

Without these, one simulation of L layers walked O(L) events per step: 2.5 s
at 4,096 layers, 13 s at 10,000.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from itertools import accumulate


class Profile:
    """Memory in use as a sorted event list; open intervals count forever."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.times: list[int] = []
        self.deltas: list[int] = []
        self.total = 0  # usage after the last event
        # Two cursors (an index, and the sum of the deltas before it): the steps' queries move the first,
        # the prefetches' the second; a query starts from the nearest, so each stream of queries costs the
        # events it moves over.
        self.cursors = [[0, 0], [0, 0]]
        self.last_positive = -1  # the latest time at which some event adds memory
        # Suffix maxima of the points after `anchor` (the last point excluded: its usage is the total),
        # as (time, usage - offset) with usages strictly decreasing; None until a lasting query builds it
        # or after an insertion that it cannot follow.
        self.anchor = -1
        self.maxima: deque[tuple[int, int]] | None = None
        self.offset = 0

    def add(self, time: int, delta: int) -> None:
        times = self.times
        last = times[-1] if times else None
        index = bisect_right(times, time)
        times.insert(index, time)
        self.deltas.insert(index, delta)
        before = self.total
        self.total += delta
        for cursor in self.cursors:
            if index < cursor[0]:
                cursor[0] += 1
                cursor[1] += delta
        if delta > 0 and time > self.last_positive:
            self.last_positive = time
        if self.maxima is not None:
            self._follow(time, delta, last, before)

    def _follow(self, time: int, delta: int, last: int | None, before: int) -> None:
        """Keep the suffix maxima exact after an event (time, delta); ``last``, ``before``: the old last point."""
        maxima = self.maxima
        assert maxima is not None
        if time <= self.anchor:
            self.offset += delta  # every point after the anchor moves by delta
        elif last is None or time > last:
            if last is not None and last > self.anchor:  # the old last point is final: a new entry
                while maxima and maxima[-1][1] + self.offset <= before:
                    maxima.pop()
                maxima.append((last, before - self.offset))
        elif time < last:
            self.maxima = None  # inside the queue's range: rebuilt by the next lasting query

    def _usage_before(self, index: int, own: int) -> int:
        """Sum of the deltas before ``index``, from the nearest cursor or the total; cursor ``own`` moves there."""
        deltas = self.deltas
        near = min(self.cursors, key=lambda cursor: abs(index - cursor[0]))
        if len(deltas) - index < abs(index - near[0]):
            usage = self.total - sum(deltas[index:])
        elif index >= near[0]:
            usage = near[1] + sum(deltas[near[0] : index])
        else:
            usage = near[1] - sum(deltas[index : near[0]])
        self.cursors[own] = [index, usage]
        return usage

    def earliest_fit(self, t0: int, lasting: int, extra: int = 0, duration: int = 0) -> int | None:
        """First t >= t0 with usage + lasting <= M on [t, inf) and usage + lasting + extra <= M on [t, t+duration)."""
        times, deltas, count = self.times, self.deltas, len(self.times)
        index = bisect_right(times, t0)
        usage = self._usage_before(index, 0)
        room = self.capacity - lasting
        fit: tuple[int, int, int] | None = (t0, index, usage) if usage <= room else None
        if fit is not None:
            # The usual case, decided at C speed: no partial sum up to the last positive event exceeds
            # the room (the points are among the partial sums), so t0 fits for good.
            stop = bisect_right(times, self.last_positive, index)
            if stop == index or max(accumulate(deltas[index:stop], initial=usage)) <= room:
                index = count
        fit = self._first_for_good(fit, index, usage, room)
        if fit is None:
            return None
        if extra == 0 or duration == 0:
            return fit[0]
        return self._window_fit(fit, room - extra, duration)

    def earliest_lasting_fit(self, t0: int, lasting: int) -> int | None:
        """`earliest_fit` without a workspace, fast when t0 never decreases from one call to the next.

        The answer becomes the queue's anchor: the caller adds its event there.
        """
        index = bisect_right(self.times, t0)
        usage = self._usage_before(index, 1)
        room = self.capacity - lasting
        highest = max(usage, self._highest_after(t0, index))
        if highest <= room:
            return t0
        if self.total > room:
            return None  # the last point's usage counts forever
        # The answer is the first point after the last one above the room. That point is a suffix
        # maximum (every later point is lower), and the maxima above the room are the queue's head
        # (usages decrease along it): pop them, as advancing to the answer would, so each costs once.
        maxima = self.maxima
        assert maxima is not None
        last_above = t0
        while maxima and maxima[0][1] + self.offset > room:
            last_above = maxima.popleft()[0]
        fit = self.times[bisect_right(self.times, last_above)]
        self._advance(fit)
        return fit

    def _highest_after(self, t0: int, index: int) -> int:
        """The highest usage at the points after t0 (the anchor moves to t0)."""
        if self.maxima is None or t0 < self.anchor:
            self._rebuild(t0, index)
        else:
            self._advance(t0)
        assert self.maxima is not None
        highest = self.maxima[0][1] + self.offset if self.maxima else -1
        if self.times and self.times[-1] > t0:
            highest = max(highest, self.total)
        return highest

    def _advance(self, time: int) -> None:
        maxima = self.maxima
        if maxima is None:
            return
        while maxima and maxima[0][0] <= time:
            maxima.popleft()
        self.anchor = time

    def _rebuild(self, t0: int, index: int) -> None:
        """The suffix maxima of the points in (t0, last point), from the events after ``index``."""
        times, deltas = self.times, self.deltas
        usage = self._usage_before(index, 1)
        points: list[tuple[int, int]] = []
        end = bisect_right(times, times[-1] - 1, index) if times else index  # the last point's events excluded
        while index < end:
            time = times[index]
            while index < end and times[index] == time:
                usage += deltas[index]
                index += 1
            points.append((time, usage))
        maxima: deque[tuple[int, int]] = deque()
        for time, usage in reversed(points):
            if not maxima or usage > maxima[0][1]:
                maxima.appendleft((time, usage))
        self.maxima, self.anchor, self.offset = maxima, t0, 0

    def _first_for_good(
        self, fit: tuple[int, int, int] | None, index: int, usage: int, room: int
    ) -> tuple[int, int, int] | None:
        """From ``index``: the first point after the last one whose usage exceeds ``room`` (time, next index, usage).

        "Fits for good" is monotone, so that point is the answer. Past the last positive event the usage
        only falls, so the walk stops at the first point that fits.
        """
        times, deltas, count = self.times, self.deltas, len(self.times)
        while index < count:
            time = times[index]
            if fit is not None and time > self.last_positive:
                break
            while index < count and times[index] == time:
                usage += deltas[index]
                index += 1
            if usage > room:
                fit = None
            elif fit is None:
                fit = (time, index, usage)
        return fit

    def _window_fit(self, fit: tuple[int, int, int], room: int, duration: int) -> int | None:
        """First point from ``fit`` (time, next index, usage) whose usage stays <= room for ``duration``."""
        times, deltas, count = self.times, self.deltas, len(self.times)
        time, index, usage = fit
        candidate: int | None = time if usage <= room else None
        while index < count:
            time = times[index]
            if candidate is not None and time >= candidate + duration:
                return candidate
            while index < count and times[index] == time:
                usage += deltas[index]
                index += 1
            if usage > room:
                candidate = None
            elif candidate is None:
                candidate = time
        return candidate
