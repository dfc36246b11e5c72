"""A parsed study (its instance and method entries) and its expansion into runs.

Runs are expanded in a fixed order: instances (as listed, files sorted within
a glob) × methods × time limits × seeds.
"""

from __future__ import annotations

import glob as globbing
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import HpcschedError
from ...core.fields import check_method_options
from ...core.io import read_instance
from ...core.registry import get_problem, problem_of
from ..engine import instance_fields, make_task
from .checking import Checker


@dataclass(frozen=True)
class MethodEntry:
    """One ``[[methods]]`` table."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    time_limits: tuple[float, ...] | None = None
    seeds: tuple[int, ...] | None = None


@dataclass(frozen=True)
class InstanceEntry:
    """One ``[[instances]]`` table: file globs, or a generator family."""

    files: tuple[str, ...] = ()
    problem: str | None = None
    family: str | None = None
    seeds: tuple[int, ...] = (0,)
    params: dict[str, Any] = field(default_factory=dict)
    sweep: dict[str, tuple[Any, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    """A parsed study file (paths resolved against its folder)."""

    file: Path
    name: str
    results: Path
    time_limits: tuple[float, ...]
    seeds: tuple[int, ...]
    executor: str
    scheduler: str | None
    jobs: int
    grace: float | None
    plugins: tuple[str, ...]
    instances: tuple[InstanceEntry, ...]
    methods: tuple[MethodEntry, ...]

    def tasks(self) -> list[dict[str, Any]]:
        """Every run of the study, as tasks (instances are read/generated here)."""
        return expand(self)


def _instances(study: Study) -> list[tuple[Any, str | None, str]]:
    """(instance, file or None, study key) for every instance, in order."""
    check = Checker(study.file)
    found: list[tuple[Any, str | None, str]] = []
    for i, entry in enumerate(study.instances):
        key = f"instances[{i}]"
        if entry.files:
            found += _file_instances(check, entry, key)
        else:
            found += _generated_instances(check, entry, key)
    return found


def _file_instances(check: Checker, entry: InstanceEntry, key: str) -> list[tuple[Any, str | None, str]]:
    """The instances of an entry's file globs, files sorted within each glob."""
    found: list[tuple[Any, str | None, str]] = []
    for j, pattern in enumerate(entry.files):
        matches = sorted(globbing.glob(pattern, recursive=True))
        if not matches:
            raise check.fail(f"{key}.files[{j}]", f"'{pattern}' matches no file")
        for match in matches:
            try:
                found.append((read_instance(match), match, f"{key}.files[{j}]"))
            except HpcschedError as error:
                raise check.fail(f"{key}.files[{j}]", str(error)) from None
    return found


def _generated_instances(check: Checker, entry: InstanceEntry, key: str) -> list[tuple[Any, str | None, str]]:
    """The instances of a generator entry: every sweep combination × every seed."""
    # The parser makes an entry without files name both (see parse._instance_entry).
    assert entry.problem is not None and entry.family is not None, f"{key}: a generator entry without its family"
    generator = get_problem(entry.problem).generators[entry.family]
    names = list(entry.sweep)
    found: list[tuple[Any, str | None, str]] = []
    for combination in itertools.product(*(entry.sweep[name] for name in names)):
        # product yields exactly one value per swept name: the lengths agree.
        params = {**entry.params, **dict(zip(names, combination, strict=True))}
        for seed in entry.seeds:
            try:
                found.append((generator(seed=seed, **params), None, key))
            except HpcschedError as error:
                raise check.fail(key, f"family '{entry.family}' with {params} seed {seed}: {error}") from None
            except TypeError as error:
                raise check.fail(
                    f"{key}.params", f"family '{entry.family}' does not accept {params}: {error}"
                ) from None
    return found


def expand(study: Study) -> list[dict[str, Any]]:
    """Every run of ``study`` as a task, in the documented order.

    Raises StudyFileError for a method that the instances' problem does not
    have, or options that method does not take (before any run starts).
    """
    check = Checker(study.file)
    tasks = []
    checked: set[tuple[str, int, str]] = set()
    for instance, file, instance_key in _instances(study):
        applicable = _applicable_methods(check, study, instance, instance_key, checked)
        prepared = instance_fields(instance, file)
        for method in applicable:
            for time_limit in method.time_limits or study.time_limits:
                for seed in method.seeds or study.seeds:
                    tasks.append(
                        make_task(
                            instance,
                            method.name,
                            options=method.options,
                            seed=seed,
                            time_limit=time_limit,
                            grace=study.grace,
                            plugins=study.plugins,
                            prepared=prepared,
                        )
                    )
    return tasks


def _applicable_methods(
    check: Checker, study: Study, instance: Any, instance_key: str, checked: set[tuple[str, int, str]]
) -> list[MethodEntry]:
    """The method entries that apply to ``instance``'s problem, each checked against it."""
    problem = problem_of(instance)
    applicable = [m for m in study.methods if m.problem in (None, problem.name)]
    for index, method in enumerate(study.methods):
        if method not in applicable:
            continue
        if method.name not in problem.methods:
            known = ", ".join(sorted(problem.methods))
            raise check.fail(
                f"methods[{index}].name",
                f"problem '{problem.name}' (instance {instance.name}, {instance_key}) has no method "
                f"'{method.name}' (known: {known}); set methods[{index}].problem to restrict it",
            )
        _check_options(check, problem, method, index, instance, checked)
    if not applicable:
        raise check.fail(
            instance_key,
            f"no method applies to problem '{problem.name}' (instance {instance.name}): "
            f"every [[methods]] entry is restricted to another problem",
        )
    return applicable


def _check_options(
    check: Checker, problem: Any, method: MethodEntry, index: int, instance: Any, checked: set[tuple[str, int, str]]
) -> None:
    """Refuse, before any run, options the method does not have or cannot take.

    A misspelt or ill-typed option would otherwise fail every one of its runs
    (ERROR rows, exit 0) or, worse, be silently ignored.
    """
    try:
        entry = problem.resolve(method.name, instance)  # a dispatcher's choice: its options count
    except HpcschedError as error:
        raise check.fail(f"methods[{index}].name", f"instance {instance.name}: {error}") from None
    key = (problem.name, index, entry.name)
    if key in checked:
        return
    try:
        check_method_options(entry, dict(method.options))
    except HpcschedError as error:
        where = "" if entry.name == method.name else f" (which runs '{entry.name}' on instance {instance.name})"
        raise check.fail(
            f"methods[{index}].options", f"method '{method.name}' of problem '{problem.name}'{where}: {error}"
        ) from None
    checked.add(key)
