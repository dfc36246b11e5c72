"""Violation: one broken rule found by a validator."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """A rule of the problem definition that a solution breaks.

    Attributes
    ----------
    rule
        Short identifier of the rule (e.g. ``"memory"``, ``"overlap"``).
    message
        Readable description naming the tasks, times and amounts involved.
    """

    rule: str
    message: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.message}"
