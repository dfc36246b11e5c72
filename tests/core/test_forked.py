"""core.forked.call_within: the answer of a forked child, or nothing once its time is up (and the child gone)."""

from __future__ import annotations

import multiprocessing
import threading

import pytest

from hpcsched.core.forked import ChildFailedError, call_within

SAFETY = 60.0  # a generous wait for answers that come at once: never reached on a working system


def _never_answers() -> None:
    threading.Event().wait()  # blocks until the child is killed


def _fails(text: str) -> None:
    raise ValueError(text)


def test_the_child_answer_comes_back():
    graph_like = {k: list(range(k)) for k in range(200)}  # inherited by the child, not sent to it
    assert call_within(sum, (graph_like[150],), SAFETY) == (True, sum(range(150)))


def test_a_child_that_does_not_answer_in_time_is_killed():
    assert call_within(_never_answers, (), 0.2) == (False, None)
    assert multiprocessing.active_children() == []


def test_no_time_left_starts_no_child():
    assert call_within(_never_answers, (), 0.0) == (False, None)
    assert multiprocessing.active_children() == []


def test_an_error_in_the_child_is_raised_with_its_text():
    with pytest.raises(ChildFailedError, match="_fails failed: ValueError: broken on purpose"):
        call_within(_fails, ("broken on purpose",), SAFETY)
