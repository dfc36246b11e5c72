"""The study file's error and the checks of its values, each naming the key it checks."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ...core.errors import HpcschedError
from ...core.fields import LARGEST_SEED


class StudyFileError(HpcschedError):
    """A study file that cannot be used: names the file and the key."""

    def __init__(self, file: str | Path, key: str, reason: str):
        self.file, self.key, self.reason = str(file), key, reason
        super().__init__(f"{file}: {key}: {reason}" if key else f"{file}: {reason}")


class Checker:
    """Checks the values of one study file; every failure is a `StudyFileError` naming ``file`` and the key."""

    def __init__(self, file: Path):
        self.file = file

    def fail(self, key: str, reason: str) -> StudyFileError:
        return StudyFileError(self.file, key, reason)

    def unknown_keys(self, table: dict, allowed: set[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                prefix = f"{where}." if where else ""
                raise self.fail(f"{prefix}{key}", f"unknown key (allowed: {', '.join(sorted(allowed))})")

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"must be a non-empty string, got {value!r}")
        return value

    def integer(self, value: Any, key: str, minimum: int | None = None, maximum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be an integer, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self.fail(key, f"must be <= {maximum}, got {value}")
        return value

    def seed(self, value: Any, key: str) -> int:
        """A method seed: an integer in ``0..LARGEST_SEED`` (the solvers' seeds are 32-bit)."""
        return self.integer(value, key, minimum=0, maximum=LARGEST_SEED)

    def seconds(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise self.fail(key, f"must be a positive number of seconds, got {value!r}")
        return float(value)

    def array(self, value: Any, key: str, *, nonempty: bool = True) -> list:
        if not isinstance(value, list):
            raise self.fail(key, f"must be an array, got {type(value).__name__}")
        if nonempty and not value:
            raise self.fail(key, "must not be empty")
        return value

    def table(self, value: Any, key: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table, got {type(value).__name__}")
        return value
