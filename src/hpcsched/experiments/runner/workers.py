"""Runs on worker threads: one runner per thread, and the results row of each run."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ..runs import COLUMNS, canonical_options
from .process import Runner

_THREAD_RUNNER = threading.local()
_EXECUTE_RUNNERS: set[Runner] = set()
_EXECUTE_LOCK = threading.Lock()

# Text columns are "" rather than None, as they read back from a file.
_TEXT_COLUMNS = ("instance", "problem", "method", "options", "status", "solver", "host", "error", "notes")


def execute(task: Mapping[str, Any]) -> dict[str, Any]:
    """Execute ``task`` on this thread's runner; return ``task`` merged into a row.

    This is the function Dask workers call: each worker thread keeps one
    runner for all its tasks.
    """
    runner = getattr(_THREAD_RUNNER, "runner", None)
    if runner is None:
        runner = _THREAD_RUNNER.runner = Runner()
        with _EXECUTE_LOCK:
            _EXECUTE_RUNNERS.add(runner)
    return make_row(task, runner.run(task))


def close_idle_runners() -> int:
    """Stop the idle runner children that `execute` started in this process.

    The Dask executor calls it on every worker (``client.run``) when a study
    ends, so that workers do not keep idle children; a runner busy with
    another study's run is left alone (and restarts by itself when next used).
    """
    with _EXECUTE_LOCK:
        runners = list(_EXECUTE_RUNNERS)
    return sum(runner.close_if_idle() for runner in runners)


def make_row(task: Mapping[str, Any], outcome: Mapping[str, Any]) -> dict[str, Any]:
    """The results row of ``task`` given its ``outcome``."""
    row = {
        "instance": task["instance_name"],
        "instance_sha256": task["sha256"],
        "problem": task["problem"],
        "size": task.get("size"),
        "method": task["method"],
        "options": canonical_options(task["options"]),
        "seed": int(task["seed"]),
        "time_limit": task.get("time_limit"),
    }
    row.update(outcome)
    return {
        column: ("" if row.get(column) is None and column in _TEXT_COLUMNS else row.get(column)) for column in COLUMNS
    }
