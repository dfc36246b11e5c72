"""Deadlines: one clock for every method, checked while models are built.

A time limit covers the whole method, model building included: a MILP with
millions of rows can take longer to build than the limit allows. Methods
create one `Deadline` from their ``time_limit`` and call `Deadline.check`
between phases and inside long build loops; when the limit has passed, it
raises `TimeLimitReached`, which the registry turns into a
``TIME_LIMIT_NO_SOLUTION`` result (or, when the method caught it and has an
incumbent, the method returns FEASIBLE itself). `Deadline.remaining` is what
a backend solve may still use.

Every deadline in the package reads one clock, `now`. It is
`time.monotonic` unless a test replaces `clock` (``tests/workclock.py``
makes it deterministic: the deadline passes after a chosen number of clock
reads, and the work done after that is counted in Python calls, not
seconds), so that time-limit behaviour is tested without the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .errors import HpcschedError

#: Seconds every method gets when the caller gives no time limit (CLI and API alike).
DEFAULT_TIME_LIMIT = 60.0

#: The clock every deadline reads (seconds; monotonic). Replaced only by tests.
clock: Callable[[], float] = time.monotonic


def now() -> float:
    """The deadline clock's reading in seconds: compare it only with other readings of `now`."""
    return clock()


class TimeLimitReached(HpcschedError):
    """The method's time limit passed before it had a solution; the message says in which phase."""


@dataclass(frozen=True)
class Deadline:
    """An absolute point on the monotonic clock (``None``: no limit).

    Create one with `Deadline.after`; pass it down to builders and phases.
    """

    at: float | None

    @classmethod
    def after(cls, time_limit: float | None) -> Deadline:
        """The deadline ``time_limit`` seconds from now (no limit when None)."""
        return cls(None if time_limit is None else now() + float(time_limit))

    def remaining(self, floor: float = 0.0) -> float | None:
        """Seconds left (at least ``floor``), or None without a limit."""
        if self.at is None:
            return None
        return max(floor, self.at - now())

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.at is not None and now() >= self.at

    def check(self, phase: str) -> None:
        """Raise `TimeLimitReached` naming ``phase`` if the deadline has passed."""
        if self.expired():
            raise TimeLimitReached(f"time limit reached while {phase}")
