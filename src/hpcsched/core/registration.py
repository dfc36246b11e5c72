"""Registration and look-up of problems: name -> `Problem`.

Problem packages register themselves when imported (their ``__init__``);
`get_problem` imports a known package on first use, so that ``hpcsched`` loads
only what a command needs. Other distributions add problems through the
`ENTRY_POINT_GROUP` entry points.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import Any

from .errors import PluginError, UnknownProblemError
from .problem import METHOD_KINDS, Method, Problem

#: Problem packages shipped with hpcsched, in the order the README presents them.
PROBLEM_PACKAGES = (
    "transfers",
    "offload",
    "coschedule",
    "burstbuffer",
    "locality",
    "checkpoint",
    "treemem",
    "hetero",
    "partition",
    "pipeline",
)

_PROBLEMS: dict[str, Problem] = {}


def register_problem(problem: Problem) -> Problem:
    """Make ``problem`` known under its name (called by the package's ``__init__``)."""
    _PROBLEMS[problem.name] = problem
    return problem


#: Entry-point group through which other distributions add problems: each entry
#: point names a module whose import registers a problem (``register_problem``);
#: its name should be the problem's name, so that only that module is imported
#: when the problem is asked for.
ENTRY_POINT_GROUP = "hpcsched.problems"

_LOADED_ENTRY_POINTS: set[str] = set()


def _entry_points() -> list[Any]:
    """The entry points of `ENTRY_POINT_GROUP` installed in this environment."""
    from importlib import metadata

    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)


def _load_entry_point(point: Any) -> None:
    """Import the module an entry point names (once); a failure is a `PluginError`."""
    if point.name in _LOADED_ENTRY_POINTS:
        return
    _LOADED_ENTRY_POINTS.add(point.name)  # tried once: a broken plugin is reported, not retried on every look-up
    try:
        point.load()
    except Exception as error:
        raise PluginError(
            f"entry point '{point.name} = {point.value}' (group {ENTRY_POINT_GROUP}) failed to load: "
            f"{type(error).__name__}: {error}"
        ) from None


def _load_entry_points_for(name: str) -> None:
    """Load the entry point named ``name``; if that does not register ``name``, every other one."""
    points = _entry_points()
    for point in points:
        if point.name == name:
            _load_entry_point(point)
    if name in _PROBLEMS:
        return
    for point in points:
        if point.name != name:
            _load_entry_point(point)
        if name in _PROBLEMS:
            return


def _is_shipped(name: str) -> bool:
    """Whether ``hpcsched.<name>`` is an installed package (a folder without
    ``__init__.py``, a package being written, is not)."""
    spec = importlib.util.find_spec(f"hpcsched.{name}")
    return spec is not None and spec.origin is not None


def get_problem(name: str) -> Problem:
    """The registered problem ``name``, importing its package (or the
    `ENTRY_POINT_GROUP` entry point that provides it) on first use."""
    if name not in _PROBLEMS and name in PROBLEM_PACKAGES and _is_shipped(name):
        importlib.import_module(f"hpcsched.{name}")
    if name not in _PROBLEMS:
        _load_entry_points_for(name)
    try:
        return _PROBLEMS[name]
    except KeyError:
        # The usual cause is a plugin's problem read without its plugin: say how to load one.
        raise UnknownProblemError(
            f"unknown problem '{name}' (known: {', '.join(problem_names())}); is it defined in a plugin? "
            "pass --plugin FILE (in Python: import the plugin module first)"
        ) from None


def problem_names() -> list[str]:
    """Names of the problems that are installed, in README order, then the
    problems registered by plugins and entry points, sorted.

    Entry points are loaded here (a broken one is skipped with a warning, so
    that it cannot hide the others)."""
    for point in _entry_points():
        try:
            _load_entry_point(point)
        except PluginError as error:
            warnings.warn(str(error), stacklevel=2)
    names = []
    for name in PROBLEM_PACKAGES:
        if name in _PROBLEMS or _is_shipped(name):
            names.append(name)
    return names + sorted(set(_PROBLEMS) - set(PROBLEM_PACKAGES))


def problem_of(instance: Any) -> Problem:
    """The problem whose Instance type ``instance`` is.

    Looks among the problems already registered first (the instance's own
    package registered itself when its type was imported), so that no other
    package is imported, or needs to import cleanly, to answer.
    """
    for problem in list(_PROBLEMS.values()):
        if isinstance(instance, problem.instance_type):
            return problem
    for name in problem_names():
        if name in _PROBLEMS:
            continue
        problem = get_problem(name)
        if isinstance(instance, problem.instance_type):
            return problem
    raise UnknownProblemError(f"no problem has instances of type {type(instance).__name__}")


def methods(problem: str) -> list[Method]:
    """The methods of ``problem``, exact ones first."""
    registered = get_problem(problem).methods.values()
    return sorted(registered, key=lambda m: (METHOD_KINDS.index(m.kind), m.name))


def is_registered(name: str) -> bool:
    """Whether a problem ``name`` is registered in this process (nothing is imported to answer)."""
    return name in _PROBLEMS
