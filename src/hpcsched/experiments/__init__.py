"""Studies: methods x instances -> rows of results, on a local pool or Dask.

Build tasks with `make_task` (or from a study file with `load_study`), run them
with `run_tasks` / `run_study` (resumable: rows already in the results file are
skipped), and summarise a results file with `report`. See ``docs/study.md``.

The names below are imported on first use (PEP 562), so that ``hpcsched``
commands that do not run studies (``methods``, ``solve``) do not pay for the
engine, the report's plotting or the results stores.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the submodule that defines it.
_EXPORTS = {
    "ExecutorError": "engine",
    "OversubscriptionWarning": "engine",
    "RunSummary": "engine",
    "instance_fields": "engine",
    "make_task": "engine",
    "run_tasks": "engine",
    "report": "report",
    "COLUMNS": "runs",
    "PluginError": "runs",
    "load_plugins": "runs",
    "row_key": "runs",
    "ResultsFileError": "store",
    "open_store": "store",
    "read_rows": "store",
    "Study": "study",
    "StudyFileError": "study",
    "load_study": "study",
    "run_study": "study",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
