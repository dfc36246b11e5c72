"""The registry: problem name -> Problem, method name -> callable.

Problem packages register themselves when imported (their ``__init__``);
`get_problem` imports a known package on first use, so that ``hpcsched`` loads
only what a command needs. `run_method` is the one door through which every
method is called: it times the call, turns a proven infeasibility into an
INFEASIBLE result, passes every returned solution through the problem's
independent validator (an invalid one becomes ERROR with the violations),
and recomputes the objective with the problem's ``evaluate``.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import json
import math
import os
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from . import params as params_module
from .deadline import DEFAULT_TIME_LIMIT, TimeLimitReached
from .errors import (
    InfeasibleError,
    OptionError,
    PluginError,
    UnknownMethodError,
    UnknownProblemError,
)
from .result import Result, Status

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
)

#: Kinds of method, in the order tables list them.
METHOD_KINDS = ("exact", "special", "heuristic", "baseline", "brute-force")

# Relative tolerance when comparing a claimed bound with the evaluated objective.
# It absorbs the rounding of summing the same numbers in another order, nothing
# more: a backend's feasibility tolerance (1e-6 in HiGHS) is far above it, so a
# model that is off by its tolerance cannot slip a bound above the objective
# (and with it an OPTIMAL that nothing proved) through this check.
_TOLERANCE = 1e-9

# Relative gap under which a backend's OPTIMAL stands (HiGHS and CP-SAT stop at
# their own relative gap; the methods set it to this or tighter).
_OPTIMALITY_GAP = 1e-6


class MethodFunction(Protocol):
    """The contract of every method: ``(instance, /, *, time_limit, seed, params) -> Result``.

    ``time_limit`` covers the whole method, model building included (the
    registry always passes one); ``seed`` makes randomized methods
    repeatable; ``params`` is the method's frozen Params dataclass, built and
    checked by the registry, or None for a method without options. The
    Result's ``problem`` and ``method`` are set by the registry.
    """

    def __call__(self, instance: Any, /, *, time_limit: float, seed: int, params: Any) -> Result: ...


@dataclass(frozen=True)
class Method:
    """A registered method.

    Attributes
    ----------
    name
        The name users type (``--method NAME``).
    func
        A `MethodFunction`: ``(instance, /, *, time_limit, seed, params) -> Result``.
    kind
        One of `METHOD_KINDS`.
    summary
        One line for ``hpcsched methods``; defaults to the docstring's first line.
    params_type
        The method's frozen Params dataclass (None: the method has no options).
    choose
        For a dispatcher (`Problem.add_dispatcher`): ``instance -> name`` of
        the method that runs; None for a method that runs itself.
    """

    name: str
    func: Callable[..., Result]
    kind: str
    summary: str
    params_type: type | None = None
    choose: Callable[[Any], str] | None = None

    def build_params(self, options: Mapping[str, Any]) -> Any:
        """The method's Params for ``options`` (None for a method without options).

        This is the one check of a method's options: the CLI, the studies and
        `run_method` all call it. Raises `OptionError` naming
        ``options.<name>`` for an unknown, ill-typed or out-of-range option.
        """
        if self.params_type is None:
            if options:
                name = sorted(options)[0]
                raise OptionError(f"options.{name}", f"method '{self.name}' has no options")
            return None
        return params_module.build(self.params_type, options)


@dataclass
class Problem:
    """Everything the generic machinery (I/O, CLI, studies) needs of a problem.

    Attributes
    ----------
    name
        Problem name, also the ``problem`` key of its files.
    instance_type, solution_type
        Frozen dataclasses with ``from_data``/``to_data`` (see ARCHITECTURE).
    evaluate
        ``(instance, solution) -> dict`` with at least ``"objective"``.
    validate
        ``(instance, solution) -> list[Violation]`` ([] means feasible).
    default_method
        What ``hpcsched solve`` runs without ``--method``.
    data_schema
        JSON Schema of the ``data`` section of an instance file.
    generators
        Family name -> ``(*, seed, **params) -> Instance``.
    importers
        Trace format -> ``(path, **options) -> Instance``.
    plot
        ``plot_solution(instance, solution, ax=None) -> Axes`` or None (an
        older plugin's ``(instance, solution, path) -> None`` still works:
        the CLI looks at the signature).
    lower_bound
        ``instance -> float``: the best cheap lower bound, or None.
    file_formats
        Extra file suffixes (e.g. ``".npz"`` for very large instances) ->
        ``(read(path) -> Instance, write(instance, path) -> None)``; JSON is
        always supported.
    """

    name: str
    # type[Any]: each problem's own frozen dataclass, whose ``from_data``/``to_data``
    # (keyword defaults differ between problems) the file readers call.
    instance_type: type[Any]
    solution_type: type[Any]
    evaluate: Callable[[Any, Any], dict[str, float]]
    validate: Callable[[Any, Any], list]
    default_method: str
    data_schema: dict[str, Any]
    generators: dict[str, Callable[..., Any]] = field(default_factory=dict)
    importers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    plot: Callable[..., Any] | None = None
    lower_bound: Callable[[Any], float] | None = None
    file_formats: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], None]]] = field(default_factory=dict)
    methods: dict[str, Method] = field(default_factory=dict)

    def add_method(
        self,
        name: str,
        func: Callable[..., Result],
        *,
        kind: str,
        summary: str | None = None,
        params: type | None = None,
    ) -> None:
        """Register ``func`` under ``name``.

        ``func`` follows `MethodFunction`; ``params`` is its frozen Params
        dataclass (None: the method has no options).

        Raises
        ------
        ValueError
            An unknown ``kind``.
        TypeError
            ``func`` does not take ``params`` (the keyword-option style of
            older plugins is gone: options come as one Params dataclass).
        """
        if kind not in METHOD_KINDS:
            raise ValueError(f"method kind must be one of {METHOD_KINDS}, got {kind!r}")
        if "params" not in inspect.signature(func).parameters:
            raise TypeError(
                f"method '{name}' of problem '{self.name}' must take (instance, /, *, time_limit, seed, params); "
                "options come as one frozen Params dataclass (see docs/architecture.md)"
            )
        if summary is None:
            summary = _first_line(func)
        self.methods[name] = Method(name, func, kind, summary, params_type=params)

    def add_dispatcher(self, name: str, choose: Callable[[Any], str], *, kind: str, summary: str) -> None:
        """Register ``name`` as the method ``choose(instance)`` names.

        The chosen method runs with the user's options, checked against its
        own Params; its Result keeps the dispatcher's name and says in a note
        which method ran.
        """
        if kind not in METHOD_KINDS:
            raise ValueError(f"method kind must be one of {METHOD_KINDS}, got {kind!r}")
        self.methods[name] = Method(name, _dispatch_error, kind, summary, choose=choose)

    def resolve(self, name: str, instance: Any) -> Method:
        """The method that runs for ``name`` on ``instance`` (a dispatcher's choice)."""
        entry = self.method(name)
        return entry if entry.choose is None else self.method(entry.choose(instance))

    def method(self, name: str) -> Method:
        """The registered method ``name``.

        Raises
        ------
        UnknownMethodError
            Naming the problem, the closest known name when one is close
            (``did you mean 'cpsat'?``, a typo's usual fix) and every known name.
        """
        try:
            return self.methods[name]
        except KeyError:
            known = ", ".join(sorted(self.methods))
            close = difflib.get_close_matches(name, list(self.methods), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise UnknownMethodError(
                f"unknown method '{name}' for problem '{self.name}'{hint} (known: {known})"
            ) from None


def _first_line(func: Callable[..., Any]) -> str:
    """The summary of a docstring: its first paragraph, on one line (it may wrap in the source)."""
    doc = (func.__doc__ or "").strip()
    return " ".join(line.strip() for line in doc.split("\n\n")[0].splitlines())


def _dispatch_error(instance: Any, /, **_: Any) -> Result:
    raise TypeError("a dispatcher is resolved by the registry, not called")


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
        raise UnknownProblemError(f"unknown problem '{name}' (known: {', '.join(problem_names())})") from None


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


@dataclass(frozen=True)
class MethodSummary:
    """What ``hpcsched methods`` shows of a method (no callable: it can be cached)."""

    name: str
    kind: str
    summary: str


@dataclass(frozen=True)
class ProblemSummary:
    """What ``hpcsched methods`` shows of a problem, without its callables."""

    name: str
    default_method: str
    methods: tuple[MethodSummary, ...]
    generators: tuple[str, ...]
    importers: tuple[str, ...]

    @classmethod
    def of(cls, problem: Problem) -> ProblemSummary:
        ordered = sorted(problem.methods.values(), key=lambda m: (METHOD_KINDS.index(m.kind), m.name))
        return cls(
            problem.name,
            problem.default_method,
            tuple(MethodSummary(m.name, m.kind, m.summary) for m in ordered),
            tuple(problem.generators),
            tuple(problem.importers),
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "default_method": self.default_method,
            "methods": [{"name": m.name, "kind": m.kind, "summary": m.summary} for m in self.methods],
            "generators": list(self.generators),
            "importers": list(self.importers),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ProblemSummary:
        return cls(
            data["name"],
            data["default_method"],
            tuple(MethodSummary(m["name"], m["kind"], m["summary"]) for m in data["methods"]),
            tuple(data["generators"]),
            tuple(data["importers"]),
        )


def _cache_file() -> Path | None:
    """Where the method table of the shipped packages is cached (None: caching off).

    ``HPCSCHED_CACHE_DIR`` chooses the folder; ``HPCSCHED_NO_CACHE=1`` turns
    the cache off; the default is ``$XDG_CACHE_HOME/hpcsched`` (``~/.cache/hpcsched``).
    """
    if os.environ.get("HPCSCHED_NO_CACHE"):
        return None
    folder = os.environ.get("HPCSCHED_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "hpcsched")
    return Path(folder) / "methods.json"


def _source_fingerprint() -> str:
    """A digest of every source file of the hpcsched package (path, size, mtime):
    any edit, install or upgrade changes it, and with it invalidates the cache."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(str(root).encode())
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for file in sorted(files):
            if file.endswith(".py"):
                stat = os.stat(os.path.join(folder, file))
                digest.update(f"{folder}/{file}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _read_cache(path: Path, fingerprint: str) -> dict[str, Any]:
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(cached, dict) or cached.get("fingerprint") != fingerprint:
        return {}
    problems = cached.get("problems")
    return problems if isinstance(problems, dict) else {}


def _write_cache(path: Path, fingerprint: str, problems: Mapping[str, Any]) -> None:
    """Best effort: a read-only home or a race with another process only costs speed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"fingerprint": fingerprint, "problems": dict(problems)}))
        os.replace(temporary, path)
    except OSError:
        pass


def problem_summaries(names: Iterable[str]) -> list[ProblemSummary]:
    """`ProblemSummary` of each problem in ``names``, without importing the
    shipped packages when a cached table of the same sources exists.

    A shipped package imports its solvers (and scipy, networkx, ...) on import;
    listing methods should not pay for that. Problems already registered in
    this process (plugins, entry points, packages already imported) are read
    live; the others among `PROBLEM_PACKAGES` come from the cache, which is
    rebuilt whenever any source file of hpcsched changes.
    """
    names = list(names)
    path = _cache_file()
    fingerprint = _source_fingerprint() if path is not None else ""
    cached = _read_cache(path, fingerprint) if path is not None else {}
    summaries, changed = [], False
    for name in names:
        if name not in _PROBLEMS and name in PROBLEM_PACKAGES and name in cached:
            try:
                summaries.append(ProblemSummary.from_data(cached[name]))
                continue
            except (KeyError, TypeError):
                pass  # a cache of another shape: rebuild that entry
        summary = ProblemSummary.of(get_problem(name))
        summaries.append(summary)
        if name in PROBLEM_PACKAGES:
            cached[name] = summary.to_data()
            changed = True
    if changed and path is not None:
        _write_cache(path, fingerprint, cached)
    return summaries


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


def run_method(
    instance: Any,
    method: str | None = None,
    *,
    problem: str | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    **options: Any,
) -> Result:
    """Run one method on one instance and return its checked Result.

    Parameters
    ----------
    instance
        An Instance of a registered problem.
    method
        Method name; the problem's default method when None.
    problem
        Problem name; inferred from the instance type when None.
    time_limit
        Seconds for the whole method, model building included (None:
        `DEFAULT_TIME_LIMIT`, the same for every method).
    seed
        Passed to the method.
    **options
        Method-specific options.

    Returns
    -------
    Result
        With problem and method names set, the objective recomputed by the
        problem's ``evaluate``, and ERROR if the solution fails validation or
        the claimed bound exceeds the objective.
    """
    prob = get_problem(problem) if problem else problem_of(instance)
    requested = prob.method(method or prob.default_method)
    entry = prob.resolve(requested.name, instance)
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
    params = entry.build_params(options)
    started = time.perf_counter()
    try:
        result = entry.func(instance, time_limit=time_limit, seed=seed, params=params)
    except InfeasibleError as infeasible:
        result = Result(prob.name, entry.name, Status.INFEASIBLE, notes=(str(infeasible),))
    except TimeLimitReached as reached:
        result = Result(prob.name, entry.name, Status.TIME_LIMIT_NO_SOLUTION, notes=(str(reached),))
    elapsed = time.perf_counter() - started
    result = result.replace(
        problem=prob.name,
        method=requested.name,
        runtime_s=result.runtime_s if result.runtime_s > 0 else elapsed,
    )
    if requested is not entry:
        result = result.with_note(f"{requested.name} ran {entry.name}")
    return check_result(prob, instance, result)


def check_result(problem: Problem, instance: Any, result: Result) -> Result:
    """Validate ``result``'s solution and make its numbers consistent.

    The validator is the problem's, written from the definition; nothing a
    method says about its own solution is trusted.
    """
    if result.solution is None:
        if result.status.has_solution:
            return result.replace(
                status=Status.ERROR,
                notes=(*result.notes, f"method claimed {result.status} but returned no solution"),
            )
        return result
    violations = problem.validate(instance, result.solution)
    if violations:
        shown = [str(v) for v in violations[:10]]
        more = f" (+{len(violations) - 10} more)" if len(violations) > 10 else ""
        return result.replace(
            status=Status.ERROR,
            notes=(*result.notes, f"invalid solution: {'; '.join(shown)}{more}"),
        )
    kpis = problem.evaluate(instance, result.solution)
    objective = float(kpis["objective"])
    status, bound, notes = result.status, result.bound, list(result.notes)
    if status not in (Status.OPTIMAL, Status.FEASIBLE):
        notes.append(f"status {status} came with a solution; reported as FEASIBLE")
        status = Status.FEASIBLE
    slack = _TOLERANCE * max(1.0, abs(objective))
    if bound is not None and (math.isnan(bound) or bound > objective + slack):
        return result.replace(
            status=Status.ERROR,
            objective=objective,
            kpis=kpis,
            notes=(*notes, f"claimed lower bound {bound} exceeds the evaluated objective {objective}"),
        )
    if bound is not None and bound > objective:
        bound = objective  # summation rounding only (see _TOLERANCE)
    if status is Status.OPTIMAL:
        if bound is None:
            bound = objective
        elif bound < objective - _OPTIMALITY_GAP * max(1.0, abs(objective)):
            notes.append(f"optimality claimed but bound {bound} < objective {objective}: FEASIBLE")
            status = Status.FEASIBLE
    elif status is Status.FEASIBLE and bound is not None and bound >= objective - slack:
        # A proven lower bound equal to the value of a validated solution is a
        # proof of optimality, whoever found the two.
        notes.append("the proven bound meets the objective: OPTIMAL")
        status = Status.OPTIMAL
    return result.replace(status=status, objective=objective, bound=bound, kpis=kpis, notes=tuple(notes))
