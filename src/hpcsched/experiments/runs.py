"""Runs, rows and the key that identifies a run.

A *run* is one method with one set of options, one seed and one time limit on
one instance. It travels to the process that executes it as a `Task`: a plain
JSON-able dictionary holding the instance *document* (not a file path, so that
Dask workers on other hosts need no shared file system), the method, options,
seed, time limit, grace and the plugin modules to import first.

A *row* is what one finished run leaves in the results file (`COLUMNS`). The
key of a run -- instance sha256, method, options, seed, time limit -- is what
makes a study resumable: a run whose key is already in the results file is
not run again. Options are keyed by their canonical JSON (sorted keys), time
limits by their float value, so ``60`` and ``60.0`` are the same run.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.errors import PluginError as PluginError

#: Columns of a results file, in order.
COLUMNS = (
    "instance",
    "instance_sha256",
    "problem",
    "size",
    "method",
    "options",
    "seed",
    "time_limit",
    "status",
    "objective",
    "bound",
    "gap",
    "runtime_s",
    "solver",
    "host",
    "error",
    "notes",
)

#: Columns that legitimately differ between two executions of the same run.
VOLATILE_COLUMNS = ("runtime_s", "host")


def canonical_options(options: Mapping[str, Any] | str | None) -> str:
    """Options as canonical JSON (sorted keys, no spaces); ``{}`` when none."""
    if options is None or options == "":
        options = {}
    if isinstance(options, str):
        options = json.loads(options)
    return json.dumps(options, sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical_time_limit(time_limit: Any) -> float | None:
    """A time limit as a float (None or empty: no limit)."""
    if time_limit is None or time_limit == "":
        return None
    value = float(time_limit)
    return None if math.isinf(value) else value


def run_key(sha256: str, method: str, options: Any, seed: Any, time_limit: Any) -> tuple:
    """The identity of a run (see module docstring)."""
    return (str(sha256), str(method), canonical_options(options), int(seed), canonical_time_limit(time_limit))


def row_key(row: Mapping[str, Any]) -> tuple:
    """`run_key` of a results row (read back from a file or fresh)."""
    return run_key(row["instance_sha256"], row["method"], row["options"], row["seed"], row["time_limit"])


def task_key(task: Mapping[str, Any]) -> tuple:
    """`run_key` of a task."""
    return run_key(task["sha256"], task["method"], task["options"], task["seed"], task["time_limit"])


def instance_size(instance: Any) -> int | None:
    """A size for gap-versus-size plots: ``len(instance)`` when defined, else
    the length of the longest top-level list of its data section."""
    try:
        return len(instance)
    except TypeError:
        pass
    lengths = [len(value) for value in instance.to_data().values() if isinstance(value, (list, tuple))]
    return max(lengths) if lengths else None


def _module_name_for_file(path: Path) -> str:
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"hpcsched_plugin_{stem}"


def load_plugin(spec: str, base: str | Path | None = None) -> None:
    """Import a plugin: a module name (``mypackage.problem``) or a ``.py`` file.

    Plugins are how problems that are not hpcsched's own reach the engine:
    importing one registers its problem (``register_problem``), in the study's
    process and in every process that executes a run. A relative file path is
    taken relative to ``base`` (the study file's folder) when given. Importing
    the same plugin twice is a no-op.
    """
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        path = Path(spec)
        if not path.is_absolute() and base is not None:
            path = Path(base) / path
        path = path.resolve()
        name = _module_name_for_file(path)
        loaded = sys.modules.get(name)
        if loaded is not None and Path(getattr(loaded, "__file__", "")).resolve() == path:
            return
        if not path.is_file():
            raise PluginError(f"plugin file {path} does not exist")
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise PluginError(f"plugin file {path} cannot be imported")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:
            del sys.modules[name]
            raise PluginError(f"plugin file {path} failed to import: {type(error).__name__}: {error}") from None
        return
    try:
        importlib.import_module(spec)
    except ImportError as error:
        raise PluginError(f"plugin module '{spec}' cannot be imported: {error}") from None


def load_plugins(specs: Iterable[str], base: str | Path | None = None) -> tuple[str, ...]:
    """Import every plugin; return them as absolute specs (files resolved)."""
    resolved = []
    for spec in specs:
        load_plugin(spec, base)
        if spec.endswith(".py") or "/" in spec or "\\" in spec:
            path = Path(spec)
            if not path.is_absolute() and base is not None:
                path = Path(base) / path
            spec = str(path.resolve())
        resolved.append(spec)
    return tuple(resolved)


def one_line(text: Any) -> str:
    """``text`` without line breaks, so that every row is one physical line."""
    return " | ".join(part.strip() for part in str(text).splitlines() if part.strip())


def failed_runs(rows: Iterable[Mapping[str, Any]], every_method: bool) -> list[Mapping[str, Any]]:
    """The rows whose ERROR fails a comparison.

    With ``every_method`` (``compare -m all``), a method the user did not name
    whose optional solver is not installed (``SolverUnavailableError``, e.g.
    ``metis`` without pymetis) fails nothing: its row still says ERROR and
    why. A method named explicitly fails the comparison as any other ERROR.
    """
    failed = [row for row in rows if row.get("status") == "ERROR"]
    if every_method:
        failed = [row for row in failed if not str(row.get("error") or "").startswith("SolverUnavailableError")]
    return failed
