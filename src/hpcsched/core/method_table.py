"""The method table of ``hpcsched methods``, cached so that listing imports no solver.

A shipped package imports its solvers (and scipy, networkx, ...) on import;
listing methods should not pay for that. `problem_summaries` reads the
shipped packages' table from a cache keyed by a fingerprint of hpcsched's
sources, and the problems already registered in this process live.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .params import describe
from .problem import METHOD_KINDS, Method, Problem
from .registration import PROBLEM_PACKAGES, get_problem, is_registered


@dataclass(frozen=True)
class OptionSummary:
    """One option of a method: a field of its Params dataclass.

    ``default`` is kept as JSON data (a tuple default becomes a list, a value
    JSON cannot hold its ``repr``), so that the table can be cached and
    printed with ``--json``.
    """

    name: str
    type: str
    default: Any

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "default": self.default}


def _json_default(value: Any) -> Any:
    """``value`` as JSON data: the ``--opt`` text that sets it, where JSON can hold it."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def _options_of(method: Method) -> tuple[OptionSummary, ...]:
    return tuple(
        OptionSummary(name, type_text, _json_default(default))
        for name, type_text, default in describe(method.params_type)
    )


@dataclass(frozen=True)
class MethodSummary:
    """What ``hpcsched methods`` shows of a method (no callable: it can be cached)."""

    name: str
    kind: str
    summary: str
    options: tuple[OptionSummary, ...] = ()
    answers: str | None = None  # the other question it answers (`Method.answers`), None: the problem's

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "summary": self.summary,
            "answers": self.answers,
            "options": [option.to_data() for option in self.options],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> MethodSummary:
        options = tuple(OptionSummary(o["name"], o["type"], o["default"]) for o in data["options"])
        return cls(data["name"], data["kind"], data["summary"], options, data["answers"])


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
            tuple(MethodSummary(m.name, m.kind, m.summary, _options_of(m), m.answers) for m in ordered),
            tuple(problem.generators),
            tuple(problem.importers),
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "default_method": self.default_method,
            "methods": [m.to_data() for m in self.methods],
            "generators": list(self.generators),
            "importers": list(self.importers),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ProblemSummary:
        return cls(
            data["name"],
            data["default_method"],
            tuple(MethodSummary.from_data(m) for m in data["methods"]),
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
        if not is_registered(name) and name in PROBLEM_PACKAGES and name in cached:
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
