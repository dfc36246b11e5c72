"""Typed errors of hpcsched.

Every error a user can provoke with bad input derives from `HpcschedError`, so
the command line can turn it into one clear line without a traceback. The
messages name the file (when known) and the field path inside it.
"""

from __future__ import annotations


class HpcschedError(Exception):
    """Base class of every error hpcsched raises on purpose."""


class InvalidInstanceError(HpcschedError, ValueError):
    """An instance (or instance file) breaks its schema.

    Parameters
    ----------
    field
        Path of the offending field, e.g. ``"data.tasks[3].memory"``.
    reason
        What is wrong with it, in words.
    file
        The file it was read from, when known.
    """

    def __init__(self, field: str, reason: str, file: str | None = None):
        self.field = field
        self.reason = reason
        self.file = file
        super().__init__(self._message())

    def _message(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{where}{self.field}: {self.reason}"

    def in_file(self, file: str) -> InvalidInstanceError:
        """The same error, attributed to ``file``."""
        return type(self)(self.field, self.reason, file)


class InvalidSolutionError(InvalidInstanceError):
    """A solution file breaks its schema (not: the schedule is infeasible)."""


class FormatError(HpcschedError, ValueError):
    """A file cannot be parsed at all (malformed JSON, unknown format)."""


class InfeasibleError(HpcschedError):
    """The instance has no feasible solution; the message says why."""


class SolverUnavailableError(HpcschedError, ImportError):
    """A backend is not installed or not usable; the message says how to get it."""

    def __init__(self, backend: str, hint: str):
        self.backend = backend
        self.hint = hint
        super().__init__(f"solver backend '{backend}' is not available: {hint}")


class UnknownProblemError(HpcschedError, KeyError):
    """No problem of that name is registered."""

    def __str__(self) -> str:  # KeyError would print the repr with quotes
        return str(self.args[0])


class UnknownMethodError(HpcschedError, KeyError):
    """The problem has no method of that name."""

    def __str__(self) -> str:
        return str(self.args[0])


class OptionError(HpcschedError, ValueError):
    """A method option is unknown, of the wrong type or out of range (the instance is fine).

    Parameters
    ----------
    field
        ``"options.<name>"``.
    reason
        What is wrong with it, in words.
    """

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class NotAnInstanceError(InvalidInstanceError):
    """A JSON file that is recognizably not an instance file at all (no
    ``problem`` and no ``data`` key, e.g. a ``solved.json`` table or a solution
    file), as opposed to an instance file with a broken field."""


class OutputPathError(HpcschedError, OSError):
    """An output file cannot be written where the user asked; the message
    names the user's path (never the temporary file it is written through)."""


class PluginError(HpcschedError):
    """A plugin (``--plugin`` module or file, or an ``hpcsched.problems`` entry point) cannot be loaded."""
