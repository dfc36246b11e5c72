"""Reading a study file (TOML) into a `Study`, checking every key on the way."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ...core.errors import HpcschedError
from ...core.registry import get_problem
from ..engine import EXECUTORS
from ..runs import PluginError, canonical_options, load_plugins
from .checking import Checker, StudyFileError
from .plan import InstanceEntry, MethodEntry, Study

_TOP_KEYS = {
    "name",
    "results",
    "time_limits",
    "seeds",
    "executor",
    "scheduler",
    "jobs",
    "grace",
    "plugins",
    "instances",
    "methods",
}
_FILE_KEYS = {"files"}
_GENERATOR_KEYS = {"problem", "family", "seeds", "params", "sweep"}
_METHOD_KEYS = {"name", "options", "problem", "time_limits", "seeds"}


def load_study(path: str | Path) -> Study:
    """Parse and check a study file (see `hpcsched.experiments.study`)."""
    file = Path(path)
    check = Checker(file)
    document = _read_document(file)
    base = file.resolve().parent
    check.unknown_keys(document, _TOP_KEYS, "")

    if "results" not in document:
        raise check.fail("results", "is missing (the results file, .csv or .parquet)")
    results = Path(check.string(document["results"], "results"))
    if not results.is_absolute():
        results = base / results
    if "time_limits" not in document:
        raise check.fail("time_limits", "is missing (seconds, e.g. time_limits = [10])")
    time_limits = tuple(
        check.seconds(v, f"time_limits[{i}]") for i, v in enumerate(check.array(document["time_limits"], "time_limits"))
    )
    seeds = tuple(check.seed(v, f"seeds[{i}]") for i, v in enumerate(check.array(document.get("seeds", [0]), "seeds")))
    executor = check.string(document.get("executor", "local"), "executor")
    if executor not in EXECUTORS:
        raise check.fail("executor", f"must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    scheduler = document.get("scheduler")
    if scheduler is not None:
        scheduler = check.string(scheduler, "scheduler")
    jobs = check.integer(document.get("jobs", 1), "jobs", minimum=1)
    grace = document.get("grace")
    if grace is not None:
        grace = check.seconds(grace, "grace")
    plugins = _plugins(check, document, base)

    instances = tuple(
        _instance_entry(check, entry, f"instances[{i}]", base)
        for i, entry in enumerate(check.array(document.get("instances", []), "instances"))
    )
    methods = tuple(
        _method_entry(check, entry, f"methods[{i}]")
        for i, entry in enumerate(check.array(document.get("methods", []), "methods"))
    )
    return Study(
        file=file,
        name=str(document.get("name", file.stem)),
        results=results,
        time_limits=time_limits,
        seeds=seeds,
        executor=executor,
        scheduler=scheduler,
        jobs=jobs,
        grace=grace,
        plugins=plugins,
        instances=instances,
        methods=methods,
    )


def _read_document(file: Path) -> dict[str, Any]:
    """The TOML document of ``file``; a file that cannot be read or parsed is a StudyFileError."""
    try:
        with open(file, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise StudyFileError(file, "", "no such file") from None
    except IsADirectoryError:
        raise StudyFileError(file, "", "is a folder, not a study file") from None
    except tomllib.TOMLDecodeError as error:
        raise StudyFileError(file, "", f"malformed TOML: {error}") from None
    except RecursionError:  # tomllib recurses per level of nested arrays or inline tables
        raise StudyFileError(file, "", "arrays or tables nested too deeply to read") from None
    except (OSError, UnicodeDecodeError) as error:
        raise StudyFileError(file, "", f"cannot read: {error}") from None


def _plugins(check: Checker, document: dict[str, Any], base: Path) -> tuple[str, ...]:
    """Load the study's plugins (here, so that their problems and methods can be checked) and return their specs."""
    plugin_specs = [
        check.string(v, f"plugins[{i}]")
        for i, v in enumerate(check.array(document.get("plugins", []), "plugins", nonempty=False))
    ]
    try:
        return load_plugins(plugin_specs, base)
    except PluginError as error:
        raise check.fail("plugins", str(error)) from None


def _instance_entry(check: Checker, entry: Any, key: str, base: Path) -> InstanceEntry:
    entry = check.table(entry, key)
    if "files" in entry:
        check.unknown_keys(entry, _FILE_KEYS, key)
        patterns = []
        for i, pattern in enumerate(check.array(entry["files"], f"{key}.files")):
            pattern = check.string(pattern, f"{key}.files[{i}]")
            if not Path(pattern).is_absolute():
                pattern = str(base / pattern)
            patterns.append(pattern)
        return InstanceEntry(files=tuple(patterns))
    if "family" not in entry or "problem" not in entry:
        raise check.fail(key, "needs either files = [globs] or problem = ... and family = ...")
    check.unknown_keys(entry, _GENERATOR_KEYS, key)
    problem_name = check.string(entry["problem"], f"{key}.problem")
    try:
        problem = get_problem(problem_name)
    except HpcschedError as error:
        raise check.fail(f"{key}.problem", str(error)) from None
    family = check.string(entry["family"], f"{key}.family")
    if family not in problem.generators:
        known = ", ".join(sorted(problem.generators)) or "none"
        raise check.fail(
            f"{key}.family", f"problem '{problem_name}' has no generator family '{family}' (known: {known})"
        )
    seeds = tuple(
        check.integer(v, f"{key}.seeds[{i}]", minimum=0)  # numpy's default_rng takes no negative seed
        for i, v in enumerate(check.array(entry.get("seeds", [0]), f"{key}.seeds"))
    )
    params = dict(check.table(entry.get("params", {}), f"{key}.params"))
    sweep = {}
    for name, values in check.table(entry.get("sweep", {}), f"{key}.sweep").items():
        sweep[name] = tuple(check.array(values, f"{key}.sweep.{name}"))
    return InstanceEntry(problem=problem_name, family=family, seeds=seeds, params=params, sweep=sweep)


def _method_entry(check: Checker, entry: Any, key: str) -> MethodEntry:
    entry = check.table(entry, key)
    check.unknown_keys(entry, _METHOD_KEYS, key)
    if "name" not in entry:
        raise check.fail(f"{key}.name", "is missing")
    name = check.string(entry["name"], f"{key}.name")
    options = dict(check.table(entry.get("options", {}), f"{key}.options"))
    try:
        canonical_options(options)
    except (TypeError, ValueError) as error:
        raise check.fail(f"{key}.options", f"must be JSON-compatible: {error}") from None
    problem = entry.get("problem")
    if problem is not None:
        problem = check.string(problem, f"{key}.problem")
        try:
            get_problem(problem)
        except HpcschedError as error:
            raise check.fail(f"{key}.problem", str(error)) from None
    time_limits = None
    if "time_limits" in entry:
        time_limits = tuple(
            check.seconds(v, f"{key}.time_limits[{i}]")
            for i, v in enumerate(check.array(entry["time_limits"], f"{key}.time_limits"))
        )
    seeds = None
    if "seeds" in entry:
        seeds = tuple(
            check.seed(v, f"{key}.seeds[{i}]") for i, v in enumerate(check.array(entry["seeds"], f"{key}.seeds"))
        )
    return MethodEntry(name=name, options=options, problem=problem, time_limits=time_limits, seeds=seeds)
