"""A library call without a stop hook, run in a forked child that is killed at the deadline.

Some library algorithms (networkx's blossom matching, Kernighan–Lin) cannot be
interrupted. `call_within` runs one in a child made by ``fork``: the child
inherits the arguments (nothing is pickled on the way in, which matters for a
graph of millions of edges: a process pool pickles its arguments, ~seconds), sends
back only the answer through a pipe, and is killed when the time is up.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any


class ChildFailedError(RuntimeError):
    """The function raised in the child; the message is its type and text."""


def call_within(function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> tuple[bool, Any]:
    """``(True, function(*args))`` when the child answers within ``seconds``, else ``(False, None)``.

    Raises
    ------
    ChildFailedError
        When ``function`` raised in the child, or the child ended without an answer.
    """
    if seconds <= 0:
        return False, None
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_answer, args=(sender, function, args), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            return False, None
        try:
            done, answer = receiver.recv()
        except EOFError:
            done, answer = False, "the child process ended without an answer"
        if not done:
            raise ChildFailedError(f"{getattr(function, '__name__', function)} failed: {answer}")
        return True, answer
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()


def _answer(sender: Connection, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """The child's work: ``(True, value)``, or ``(False, the error)`` sent to the parent."""
    try:
        message: tuple[bool, object] = (True, function(*args))
    except Exception as error:  # reported to the parent, which raises it
        message = (False, f"{type(error).__name__}: {error}")
    sender.send(message)
    sender.close()
