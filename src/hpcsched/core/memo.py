"""One-entry caches keyed by object identity.

The registry calls a problem's ``validate`` and then its ``evaluate`` on the
same (instance, solution) objects; a problem whose check and objective need
the same costly pass (a simulation, numpy arrays of the schedule) keeps the
last one here instead of computing it twice. Identity, not equality: an
equal copy is computed again, so a cached value is never one of another
object (solutions and instances are immutable).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class LastOf(Generic[Value]):
    """The value last computed for a key of objects, returned again while the same objects are asked."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._value: Value | None = None

    def get(self, key: tuple[object, ...], compute: Callable[[], Value]) -> Value:
        """``compute()`` unless ``key`` holds the same objects (``is``) as the last call's."""
        last = self._key
        if last is not None and len(last) == len(key) and all(a is b for a, b in zip(last, key, strict=True)):
            return self._value  # type: ignore[return-value]
        value = compute()
        self._key, self._value = key, value
        return value
