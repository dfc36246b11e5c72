"""Study files (TOML): which instances, which methods, which limits, where to write.

See ``docs/study.md`` for the schema with an example. In short::

    name = "small"
    results = "results.csv"          # relative to this file; .parquet needs pyarrow
    time_limits = [10]               # seconds, one run per limit
    seeds = [0]                      # method seeds, one run per seed
    executor = "local"               # or "dask"
    scheduler = "tcp://host:8786"    # dask only; omitted: a LocalCluster
    jobs = 2                         # concurrent runs
    grace = 5                        # seconds past a time limit before a run is killed
    plugins = ["mypkg.myproblem"]    # modules (or .py files) registering extra problems

    [[instances]]                    # files...
    files = ["../instances/transfers/*.json"]

    [[instances]]                    # ...or a generator family
    problem = "transfers"
    family = "uniform"
    seeds = [0, 1, 2]
    params = { n = 10 }
    sweep = { n = [10, 20] }         # optional: one family member per combination

    [[methods]]
    name = "cpsat"
    options = { workers = 2 }
    problem = "transfers"            # optional: only for instances of this problem
    time_limits = [60]               # optional: overrides the study's

Every mistake in a study file -- an unknown key, a wrong type, an unknown
problem, family or method, a glob that matches nothing, an instance file that
cannot be read -- ends in one `StudyFileError` naming the file and the key.
Runs are expanded in a fixed order: instances (as listed, files sorted within
a glob) × methods × time limits × seeds.
"""

from __future__ import annotations

import glob as globbing
import itertools
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import HpcschedError
from .engine import EXECUTORS, instance_fields, make_task
from .runs import PluginError, canonical_options, load_plugins


class StudyFileError(HpcschedError):
    """A study file that cannot be used: names the file and the key."""

    def __init__(self, file: str | Path, key: str, reason: str):
        self.file, self.key, self.reason = str(file), key, reason
        super().__init__(f"{file}: {key}: {reason}" if key else f"{file}: {reason}")


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


# ------------------------------------------------------------------ checking


class _Checker:
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
        from ..core.fields import LARGEST_SEED

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


def load_study(path: str | Path) -> Study:
    """Parse and check a study file (see module docstring)."""
    file = Path(path)
    check = _Checker(file)
    try:
        with open(file, "rb") as handle:
            document = tomllib.load(handle)
    except FileNotFoundError:
        raise StudyFileError(file, "", "no such file") from None
    except IsADirectoryError:
        raise StudyFileError(file, "", "is a folder, not a study file") from None
    except tomllib.TOMLDecodeError as error:
        raise StudyFileError(file, "", f"malformed TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise StudyFileError(file, "", f"cannot read: {error}") from None
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
    plugin_specs = [
        check.string(v, f"plugins[{i}]")
        for i, v in enumerate(check.array(document.get("plugins", []), "plugins", nonempty=False))
    ]
    try:
        plugins = load_plugins(plugin_specs, base)
    except PluginError as error:
        raise check.fail("plugins", str(error)) from None

    instances = tuple(
        _instance_entry(check, entry, f"instances[{i}]", base)
        for i, entry in enumerate(check.array(document.get("instances", []), "instances"))
    )
    methods = tuple(
        _method_entry(check, entry, f"methods[{i}]")
        for i, entry in enumerate(check.array(document.get("methods", []), "methods"))
    )
    study = Study(
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
    return study


def _instance_entry(check: _Checker, entry: Any, key: str, base: Path) -> InstanceEntry:
    from ..core.registry import get_problem

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


def _method_entry(check: _Checker, entry: Any, key: str) -> MethodEntry:
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
        from ..core.registry import get_problem

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


# ----------------------------------------------------------------- expansion


def _instances(study: Study) -> list[tuple[Any, str | None, str]]:
    """(instance, file or None, study key) for every instance, in order."""
    from ..core.io import read_instance
    from ..core.registry import get_problem

    check = _Checker(study.file)
    found: list[tuple[Any, str | None, str]] = []
    for i, entry in enumerate(study.instances):
        key = f"instances[{i}]"
        if entry.files:
            for j, pattern in enumerate(entry.files):
                matches = sorted(globbing.glob(pattern, recursive=True))
                if not matches:
                    raise check.fail(f"{key}.files[{j}]", f"'{pattern}' matches no file")
                for match in matches:
                    try:
                        found.append((read_instance(match), match, f"{key}.files[{j}]"))
                    except HpcschedError as error:
                        raise check.fail(f"{key}.files[{j}]", str(error)) from None
            continue
        # The parser makes an entry without files name both (see _instance_entry).
        assert entry.problem is not None and entry.family is not None, f"{key}: a generator entry without its family"
        generator = get_problem(entry.problem).generators[entry.family]
        names = list(entry.sweep)
        for combination in itertools.product(*(entry.sweep[name] for name in names)):
            params = {**entry.params, **dict(zip(names, combination, strict=False))}
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
    from ..core.registry import problem_of

    check = _Checker(study.file)
    tasks = []
    checked: set[tuple[str, int, str]] = set()
    for instance, file, instance_key in _instances(study):
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


def _check_options(
    check: _Checker, problem: Any, method: MethodEntry, index: int, instance: Any, checked: set[tuple[str, int, str]]
) -> None:
    """Refuse, before any run, options the method does not have or cannot take.

    A misspelt or ill-typed option would otherwise fail every one of its runs
    (ERROR rows, exit 0) or, worse, be silently ignored.
    """
    from ..core.fields import check_method_options

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


def _check_results_path(study: Study, results: Path, overridden: bool) -> None:
    """Refuse a results path that cannot be written, before any instance is read or run.

    Names the study file's ``results`` key, or ``--results`` when the path
    came from the command line (``overridden``).
    """
    from ..core.errors import OutputPathError
    from ..core.io import check_output_path

    try:
        if str(results).endswith(".parquet"):  # a folder of part files
            if results.exists() and not results.is_dir():
                raise OutputPathError(f"{results}: a Parquet results path must be a folder")
            check_output_path(results / "part.parquet")
        else:
            check_output_path(results)
    except HpcschedError as error:
        if overridden:
            raise OutputPathError(f"--results: cannot write the results file: {error}") from None
        raise StudyFileError(study.file, "results", f"cannot write the results file: {error}") from None


def run_study(
    study: Study | str | Path,
    *,
    executor: str | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    results: str | Path | None = None,
    progress: bool = True,
):
    """Run every run of ``study`` not yet in its results file.

    Arguments other than ``study`` override the study file's settings.
    Returns the engine's `RunSummary` (new rows, runs skipped as recorded).
    """
    from .engine import run_tasks
    from .store import open_store

    if not isinstance(study, Study):
        study = load_study(study)
    results_path = Path(results) if results is not None else study.results
    _check_results_path(study, results_path, overridden=results is not None)
    tasks = study.tasks()
    store = open_store(results_path)
    return run_tasks(
        tasks,
        store=store,
        executor=executor or study.executor,
        jobs=jobs or study.jobs,
        scheduler=scheduler if scheduler is not None else study.scheduler,
        progress=progress,
        description=study.name,
    )
