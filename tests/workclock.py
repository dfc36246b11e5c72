"""A deterministic clock for the tests that a method stops at its time limit.

Wall-clock assertions (``elapsed < limit + slack``) fail on a loaded machine
and pass on a fast one whatever the code does. These tests use no wall clock:

- the deadline clock (`hpcsched.core.deadline.clock`, read by every
  `Deadline` and every ``core.deadline.now()``) reads 0.0 for its first
  ``reads`` readings and then jumps a million seconds at every reading, so
  every deadline passes at the same point of the method's run, on any
  machine (one made after that point passes at the next reading);
- or the deadline passes once the code has run ``lines`` Python lines: the
  point a wall clock would pass in the middle of a long stretch of work
  between two readings (a method that builds a whole model before it next
  reads the clock is caught only this way; counting from the start traces
  the whole run, so it suits small instances);
- from that point on, the work the method still does is counted in Python
  lines executed (``sys.settrace``; every frame on the stack and every new
  one), and past ``budget`` lines `WorkBudgetExceeded` is raised inside the
  method, so the test fails with the line where the work was going on.

`assert_stops_promptly` then compares the lines run after the deadline with
the lines of checking the answer (the problem's validator and objective,
which the registry runs on every solution and which belong in the limit): a
method that honours its limit checks the deadline inside every long phase,
so after it has passed it only returns its incumbent (or one cheap
fallback) and has it checked; one that builds a whole model or runs a
quadratic loop first does many times that work, at any size where it would
overrun the wall clock. The count is the same on every run of the same code
on the same instance, whatever the machine's load. Work done in
C (a numpy expression, a backend's solve) is not counted: a backend gets
``deadline.remaining()``, which is 0 once the deadline has passed.

Import it as ``from workclock import solve_past_deadline`` (``tests/`` is on
``sys.path``). The deadline passing after a number of lines also makes a
deterministic work budget: "the method answers within ``lines`` lines" holds
or fails the same way at any load.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

import pytest

from hpcsched import Result, solve
from hpcsched.core import deadline as deadline_module
from hpcsched.core.registry import get_problem

#: Lines after the deadline at which a run is stopped whatever the test then asserts (a safety
#: stop, ~10 s of traced Python: the tests' real measure is `assert_stops_promptly`).
DEFAULT_BUDGET = 50_000_000

#: What `assert_stops_promptly` allows after the deadline: this many times the lines of checking
#: the answer (the registry validates and evaluates it), plus `SLACK_LINES`.
CHECK_FACTOR = 3.0
SLACK_LINES = 200_000

#: Seconds the clock jumps at every reading once the deadline has passed (more than any time limit).
_JUMP = 1.0e6


class WorkBudgetExceeded(BaseException):
    """Raised inside the method when it runs more than the budget's lines after its deadline.

    A BaseException, so that a method's ``except Exception`` cannot swallow it.
    """


@dataclass
class WorkClock:
    """The state of one `deadline_after` block: clock readings, and lines run before and after the deadline.

    The deadline passes at the ``reads + 1``-th reading of the deadline clock or, with ``lines``,
    once the code has run that many Python lines (whichever comes first). A reading measures no
    work: a method that does much work between two readings is caught only by ``lines``, which
    lets the deadline pass in the middle of that work, as the wall clock would.
    """

    reads: int | None
    budget: int
    lines: int | None = None
    readings: int = 0
    lines_before: int = 0
    lines_after: int = 0
    passed_at_reading: int | None = None
    exceeded_at: str | None = None
    counting: bool = False

    @property
    def expired(self) -> bool:
        """True once the deadline clock has jumped past every deadline."""
        return self.passed_at_reading is not None or (self.lines is not None and self.lines_before >= self.lines)

    def clock(self) -> float:
        self.readings += 1
        if self.passed_at_reading is None:
            if not self.expired and (self.reads is None or self.readings <= self.reads):
                return 0.0
            self.passed_at_reading = self.readings - 1
        if not self.counting and threading.current_thread() is threading.main_thread():
            self._start_counting(sys._getframe(1))  # the first reading past the deadline in the main thread
        return _JUMP * (self.readings - self.passed_at_reading)

    def _start_counting(self, frame: FrameType | None) -> None:
        self.counting = True
        while frame is not None:  # the frames already running count too (their loops go on)
            frame.f_trace = self._trace
            frame = frame.f_back
        sys.settrace(self._trace)

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event != "line":
            return self._trace
        if not self.expired:
            self.lines_before += 1
            return self._trace
        self.lines_after += 1
        if self.lines_after > self.budget and self.exceeded_at is None:
            self.exceeded_at = f"{frame.f_code.co_filename}:{frame.f_lineno} ({frame.f_code.co_name})"
            sys.settrace(None)
            raise WorkBudgetExceeded(f"more than {self.budget} Python lines after the deadline, at {self.exceeded_at}")
        return self._trace


@contextmanager
def deadline_after(
    reads: int | None = None, *, lines: int | None = None, budget: int = DEFAULT_BUDGET
) -> Iterator[WorkClock]:
    """Every deadline passes at the deadline clock's ``reads + 1``-th reading or after ``lines`` lines; then count lines.

    Parameters
    ----------
    reads
        Readings of the deadline clock before every deadline has passed (0: the
        deadline has passed at the method's first check; None: no such limit).
    lines
        Python lines the code runs before every deadline has passed (None: no such
        limit). Counting them traces the whole block (~10-20x slower Python), so use it
        on small instances.
    budget
        Python lines the code may run after that before `WorkBudgetExceeded`.
    """
    if reads is None and lines is None:
        raise ValueError("deadline_after needs reads or lines")
    state = WorkClock(reads, budget, lines)
    original = deadline_module.clock
    deadline_module.clock = state.clock
    if lines is not None:
        state._start_counting(None)
    try:
        yield state
    finally:
        sys.settrace(None)
        deadline_module.clock = original


def count_lines(function: Any, /, *args: Any) -> int:
    """Python lines that ``function(*args)`` runs (the same count `deadline_after` makes)."""
    state = WorkClock(reads=0, budget=DEFAULT_BUDGET)
    state.passed_at_reading, state.counting = 0, True  # counting, without touching the deadline clock
    sys.settrace(state._trace)
    try:
        function(*args)
    finally:
        sys.settrace(None)
    return state.lines_after


def check_lines(instance: Any, result: Result) -> int:
    """Lines the registry's check of ``result`` runs: the problem's validator and objective (0 without a solution)."""
    if result.solution is None:
        return 0
    problem = get_problem(result.problem)
    return count_lines(problem.validate, instance, result.solution) + count_lines(
        problem.evaluate, instance, result.solution
    )


def assert_stops_promptly(
    instance: Any,
    result: Result,
    state: WorkClock,
    *,
    plus: int = 0,
    factor: float = CHECK_FACTOR,
    slack: int = SLACK_LINES,
) -> None:
    """After its deadline the method ran at most ``factor`` × the lines of checking its answer + ``plus`` + ``slack``.

    ``plus`` is the work a method may legitimately do once the deadline has
    passed, measured with `count_lines` on the operation itself (offload:
    the one simulation of its offload-all fallback), never a guessed number.
    """
    assert state.expired, f"the deadline clock was read only {state.readings} times: the deadline never passed"
    checking = check_lines(instance, result)
    allowed = factor * checking + plus + slack
    assert state.lines_after <= allowed, (
        f"{result.method}: {state.lines_after} Python lines after the deadline, more than {allowed:.0f} "
        f"({factor} x {checking} to check the answer + {plus} + {slack}); notes: {result.notes}"
    )


def solve_past_deadline(
    instance: Any,
    method: str,
    /,
    *,
    reads: int | None = None,
    lines: int | None = None,
    budget: int = DEFAULT_BUDGET,
    time_limit: float = 1.0,
    **options: Any,
) -> tuple[Result, WorkClock]:
    """``hpcsched.solve`` with the deadline passing after ``reads`` clock readings or ``lines`` lines (default: reads=0).

    Fails the calling test (with the line where the work went on) when the
    method, validation included, runs more than ``budget`` Python lines after
    its deadline.
    """
    if reads is None and lines is None:
        reads = 0
    with deadline_after(reads, lines=lines, budget=budget) as state:
        try:
            result = solve(instance, method, time_limit=time_limit, **options)
        except WorkBudgetExceeded as exceeded:
            pytest.fail(f"{method}: {exceeded}", pytrace=False)
    return result, state
