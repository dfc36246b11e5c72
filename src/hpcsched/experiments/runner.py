"""Executing one run in a child process with a hard wall-clock deadline.

Backends do not always honour their time limits (a model build that takes
longer than the solve, a C library that ignores interrupts, a method that
simply hangs), and a study must not stall on one run. So every run is
executed by a *runner*: a child Python process that reads tasks (one JSON line
each) on its stdin and answers each with one JSON line. The parent gives the
child ``time_limit + grace`` seconds from the moment the method starts; past
that it kills the child's whole process group (CBC and friends run as
grandchildren) and records TIME_LIMIT_NO_SOLUTION. A child that dies (segfault,
out of memory) is recorded as ERROR with the tail of its stderr. Runners are
reused from run to run, so the interpreter start and the imports are paid once
per worker, not once per run; a killed runner is replaced by a fresh one.

The child writes its answers on a duplicate of its original stdout and points
file descriptor 1 at its stderr, so solver chatter on stdout cannot corrupt the
protocol. Its stderr goes to a temporary file whose tail explains crashes.

Every run goes through `hpcsched.core.registry.run_method`, so every solution
is validated and its objective recomputed; a method that raises is recorded as
ERROR with the exception's type and message.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from .runs import one_line

#: Default grace beyond a run's time limit before the runner is killed:
#: ``max(GRACE_MINIMUM_S, GRACE_FRACTION * time_limit)``.
GRACE_MINIMUM_S = 5.0
GRACE_FRACTION = 0.1

#: How long a runner may take to start (interpreter + imports) or to load a
#: task's instance and plugins before the method starts.
SETUP_TIMEOUT_S = 300.0

_BOOT = "from hpcsched.experiments.runner import child_main; child_main()"


def default_grace(time_limit: float | None) -> float:
    """Grace in seconds for ``time_limit`` (see `GRACE_MINIMUM_S`)."""
    if time_limit is None:
        return GRACE_MINIMUM_S
    return max(GRACE_MINIMUM_S, GRACE_FRACTION * time_limit)


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------- child


_INSTANCE_CACHE: dict[str, Any] = {}


def _load_instance(task: Mapping[str, Any]) -> Any:
    from ..core.io import instance_from_document

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
    from .runs import load_plugins

    load_plugins(task.get("plugins", ()))
    return _load_instance(task)


def execute_here(task: Mapping[str, Any], instance: Any | None = None) -> dict[str, Any]:
    """Run ``task`` in this process (no deadline) and return its outcome.

    The outcome holds the columns a run determines: status, objective, bound,
    gap, runtime_s, solver, host, error, notes.
    """
    from ..core.registry import run_method

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
        return {
            "status": "ERROR",
            "objective": None,
            "bound": None,
            "gap": None,
            "runtime_s": time.perf_counter() - started,
            "solver": None,
            "host": host,
            "error": one_line(f"{type(error).__name__}: {error}"),
            "notes": "",
        }
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
    """Entry point of a runner process (see module docstring)."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # stray writes to stdout (solver logs) go to stderr
    sys.stdout = sys.stderr
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
            send(
                {
                    "event": "done",
                    "outcome": {
                        "status": "ERROR",
                        "objective": None,
                        "bound": None,
                        "gap": None,
                        "runtime_s": 0.0,
                        "solver": None,
                        "host": socket.gethostname(),
                        "error": one_line(f"{type(error).__name__}: {error}"),
                        "notes": "",
                    },
                }
            )
            continue
        send({"event": "started"})
        outcome = execute_here(task, instance)
        try:
            send({"event": "done", "outcome": outcome})
        except (TypeError, ValueError) as error:  # e.g. a solver name that is not text
            outcome = _outcome("ERROR", outcome.get("runtime_s") or 0.0, f"cannot report the result: {error}")
            send({"event": "done", "outcome": outcome})


# -------------------------------------------------------------------- parent


class _ChildDied(Exception):
    pass


class _Deadline(Exception):
    pass


class Runner:
    """A reusable child process that executes runs with a hard deadline."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._poll: select.poll | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""
        self.busy = threading.Lock()  # held while a run is in flight
        _LIVE_RUNNERS.add(self)

    # -- lifecycle

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        # The child must import the same hpcsched and the same plugins as we do.
        package_root = str(Path(__file__).resolve().parents[2])
        paths = [package_root] + [p for p in sys.path if p and os.path.isdir(p)]
        if env.get("PYTHONPATH"):
            paths.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env.setdefault("PYTHONUNBUFFERED", "1")
        # One run = one set of solver threads; keep BLAS from adding its own.
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")
        return env

    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child process
        self._buffer = b""
        self._poll = None
        self._process = subprocess.Popen(
            [sys.executable, "-c", _BOOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=self._environment(),
            start_new_session=True,  # its own process group: killed as a whole
        )
        message = self._read_message(time.monotonic() + SETUP_TIMEOUT_S)
        if message.get("event") != "ready":
            raise _ChildDied(f"runner sent {message!r} instead of ready")

    def close(self) -> None:
        """Stop the child (politely: end of input; then by force)."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin:
                process.stdin.close()
            process.wait(timeout=2)
        except Exception:
            self._kill(process)
        finally:
            if process.stdout:
                process.stdout.close()
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
        _LIVE_RUNNERS.discard(self)

    @staticmethod
    def _kill(process: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)

    def _discard(self) -> str:
        """Kill the child; return the tail of its stderr."""
        process, self._process = self._process, None
        tail = ""
        if process is not None:
            self._kill(process)
            if process.stdout:
                process.stdout.close()
            if process.stdin:
                with contextlib.suppress(OSError):
                    process.stdin.close()
        if self._stderr is not None:
            try:
                self._stderr.seek(0, os.SEEK_END)
                size = self._stderr.tell()
                self._stderr.seek(max(0, size - 2000))
                tail = self._stderr.read().decode("utf-8", "replace")
            except OSError:
                pass
            self._stderr.close()
            self._stderr = None
        return tail

    # -- protocol

    def _read_message(self, deadline: float | None) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        if self._poll is None:  # poll, not select: no limit on descriptor numbers
            self._poll = select.poll()
            self._poll.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while b"\n" not in self._buffer:
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                raise _Deadline()
            ready = self._poll.poll(None if timeout is None else max(1, int(timeout * 1000)))
            if not ready:
                raise _Deadline()
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise _ChildDied()
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def run(self, task: Mapping[str, Any]) -> dict[str, Any]:
        """Execute ``task`` in the child and return its outcome (never raises
        for a misbehaving run: a hang or a crash is an outcome too)."""
        with self.busy:
            return self._run(task)

    def close_if_idle(self) -> bool:
        """Stop the child unless a run is in flight; True if stopped."""
        if not self.busy.acquire(blocking=False):
            return False
        try:
            self._discard()
            return True
        finally:
            self.busy.release()

    def _run(self, task: Mapping[str, Any]) -> dict[str, Any]:
        time_limit = task.get("time_limit")
        grace = task.get("grace")
        if grace is None:
            grace = default_grace(time_limit)
        hard_limit = None if time_limit is None else float(time_limit) + float(grace)
        started = time.monotonic()
        try:
            if self._process is None or self._process.poll() is not None:
                if self._process is not None:
                    self._discard()
                self._start()
            assert self._process is not None and self._process.stdin is not None
            self._process.stdin.write((json.dumps(task, allow_nan=False) + "\n").encode())
            self._process.stdin.flush()
            message = self._read_message(time.monotonic() + SETUP_TIMEOUT_S)
            if message.get("event") == "started":
                started = time.monotonic()
                deadline = None if hard_limit is None else started + hard_limit
                message = self._read_message(deadline)
            if message.get("event") != "done":
                raise _ChildDied(f"unexpected message {message!r}")
            return message["outcome"]
        except _Deadline:
            elapsed = time.monotonic() - started
            self._discard()
            return _outcome(
                "TIME_LIMIT_NO_SOLUTION",
                elapsed,
                f"killed after {elapsed:.1f} s: no answer within the time limit {time_limit} s + grace {grace:g} s",
            )
        except (_ChildDied, BrokenPipeError, OSError, ValueError) as error:
            code = None
            if self._process is not None:
                try:  # after end-of-file the exit status follows shortly
                    code = self._process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass
            tail = self._discard()
            how = "still running" if code is None else f"exit code {code}" if code >= 0 else f"signal {-code}"
            detail = f" ({error})" if str(error) else ""
            return _outcome(
                "ERROR",
                time.monotonic() - started,
                one_line(f"the run's process died ({how}){detail}: {tail[-500:]}"),
            )


def _outcome(status: str, runtime: float, error: str) -> dict[str, Any]:
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


class _RunnerSet:
    """Every live Runner of this process, closed at exit."""

    def __init__(self) -> None:
        self._runners: set[Runner] = set()
        self._lock = threading.Lock()

    def add(self, runner: Runner) -> None:
        with self._lock:
            self._runners.add(runner)

    def discard(self, runner: Runner) -> None:
        with self._lock:
            self._runners.discard(runner)

    def close_all(self) -> None:
        with self._lock:
            runners = list(self._runners)
        for runner in runners:
            runner._discard()
            self.discard(runner)


_LIVE_RUNNERS = _RunnerSet()
atexit.register(_LIVE_RUNNERS.close_all)

_THREAD_RUNNER = threading.local()


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


_EXECUTE_RUNNERS: set[Runner] = set()
_EXECUTE_LOCK = threading.Lock()


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
    from .runs import COLUMNS, canonical_options

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
    # Text columns are "" rather than None, as they read back from a file.
    return {
        column: ("" if row.get(column) is None and column in _TEXT_COLUMNS else row.get(column)) for column in COLUMNS
    }


_TEXT_COLUMNS = ("instance", "problem", "method", "options", "status", "solver", "host", "error", "notes")
