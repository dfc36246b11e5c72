"""The runner child: reads tasks (one JSON line each) on stdin, answers each with one JSON line.

The child writes its answers on a duplicate of its original stdout and points
file descriptor 1 at its stderr, so solver chatter on stdout cannot corrupt the
protocol. Every run goes through `hpcsched.core.registry.run_method`, so every
solution is validated and its objective recomputed; a method that raises is
recorded as ERROR with the exception's type and message.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import sys
import time
from collections.abc import Mapping
from typing import Any

from ...core.io import instance_from_document
from ...core.registry import run_method
from ..runs import load_plugins, one_line


def failed_outcome(status: str, runtime: float, error: str) -> dict[str, Any]:
    """The outcome of a run that produced no result: ``status`` with the ``error`` text."""
    return {
        "status": status,
        "objective": None,
        "bound": None,
        "gap": None,
        "runtime_s": runtime,
        "solver": None,
        "host": socket.gethostname(),
        "error": error,
        "notes": "",
    }


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


_INSTANCE_CACHE: dict[str, Any] = {}


def _load_instance(task: Mapping[str, Any]) -> Any:
    sha = task["sha256"]
    if sha not in _INSTANCE_CACHE:
        if len(_INSTANCE_CACHE) > 16:  # instances can be large; keep a few
            _INSTANCE_CACHE.clear()
        _INSTANCE_CACHE[sha] = instance_from_document(
            task["instance"], task.get("instance_file") or task["instance_name"]
        )
    return _INSTANCE_CACHE[sha]


def prepare(task: Mapping[str, Any]) -> Any:
    """Import the task's plugins and build its instance (in the executing process)."""
    load_plugins(task.get("plugins", ()))
    return _load_instance(task)


def execute_here(task: Mapping[str, Any], instance: Any | None = None) -> dict[str, Any]:
    """Run ``task`` in this process (no deadline) and return its outcome.

    The outcome holds the columns a run determines: status, objective, bound,
    gap, runtime_s, solver, host, error, notes.
    """
    host = socket.gethostname()
    started = time.perf_counter()
    try:
        if instance is None:
            instance = prepare(task)
        options = json.loads(task["options"]) if isinstance(task["options"], str) else dict(task["options"])
        result = run_method(
            instance,
            task["method"],
            problem=task.get("problem"),
            time_limit=task.get("time_limit"),
            seed=int(task.get("seed", 0)),
            **options,
        )
    except Exception as error:  # a method that raises is a recorded outcome, not a crash
        return failed_outcome("ERROR", time.perf_counter() - started, one_line(f"{type(error).__name__}: {error}"))
    error_text = ""
    if result.status.value == "ERROR":
        error_text = one_line("; ".join(result.notes)) or "method returned ERROR"
    return {
        "status": result.status.value,
        "objective": _finite(result.objective),
        "bound": _finite(result.bound),
        "gap": _finite(result.gap),
        "runtime_s": float(result.runtime_s),
        "solver": None if result.solver is None else str(result.solver),
        "host": host,
        "error": error_text,
        "notes": one_line("; ".join(result.notes)),
    }


def child_main() -> None:
    """Entry point of a runner process (see `hpcsched.experiments.runner`)."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    # Stray writes to stdout (solver logs, print) go to stderr: fd 1 now points there, and sys.stdout
    # (which writes fd 1) follows. sys.stdout must stay its own object: aliased to sys.stderr, Pyomo's
    # output capture (appsi HiGHS) waited forever for its reader threads and no Pyomo run answered.
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop

    def send(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message, allow_nan=False) + "\n")
        protocol.flush()

    send({"event": "ready", "pid": os.getpid()})
    for line in sys.stdin:
        if not line.strip():
            continue
        task = json.loads(line)
        try:
            instance = prepare(task)
        except Exception as error:
            failure = one_line(f"{type(error).__name__}: {error}")
            send({"event": "done", "outcome": failed_outcome("ERROR", 0.0, failure)})
            continue
        send({"event": "started"})
        outcome = execute_here(task, instance)
        try:
            send({"event": "done", "outcome": outcome})
        except (TypeError, ValueError) as error:  # e.g. a solver name that is not text
            outcome = failed_outcome("ERROR", outcome.get("runtime_s") or 0.0, f"cannot report the result: {error}")
            send({"event": "done", "outcome": outcome})
