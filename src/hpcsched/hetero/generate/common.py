"""The integer-option check shared by the importers and the generators."""

from __future__ import annotations

from typing import Any

from ...core.errors import InvalidInstanceError


def checked_int(value: Any, field: str, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` if it is an int (not a bool) in ``[minimum, maximum]``, else `InvalidInstanceError` on ``field``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        limit = f" and <= {maximum}" if maximum is not None else ""
        raise InvalidInstanceError(field, f"must be an integer >= {minimum}{limit}, got {value!r}")
    return value
