"""The parent side: a reusable runner child process with a hard deadline per run.

The parent gives the child ``time_limit + grace`` seconds from the moment the
method starts; past that it kills the child's whole process group (CBC and
friends run as grandchildren) and records TIME_LIMIT_NO_SOLUTION. A child that
dies (segfault, out of memory) is recorded as ERROR with the tail of its
stderr, which goes to a temporary file.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from ..runs import one_line
from .child import failed_outcome

#: Default grace beyond a run's time limit before the runner is killed:
#: ``max(GRACE_MINIMUM_S, GRACE_FRACTION * time_limit)``.
GRACE_MINIMUM_S = 5.0
GRACE_FRACTION = 0.1

#: How long a runner may take to start (interpreter + imports) or to load a
#: task's instance and plugins before the method starts.
SETUP_TIMEOUT_S = 300.0

_BOOT = "from hpcsched.experiments.runner.child import child_main; child_main()"

#: The folder that holds the hpcsched package (``src/`` in a checkout): this
#: module is ``hpcsched.experiments.runner.process``, as many folders deep.
_PACKAGE_ROOT = Path(__file__).resolve().parents[len(__name__.split(".")) - 1]


def default_grace(time_limit: float | None) -> float:
    """Grace in seconds for ``time_limit`` (see `GRACE_MINIMUM_S`)."""
    if time_limit is None:
        return GRACE_MINIMUM_S
    return max(GRACE_MINIMUM_S, GRACE_FRACTION * time_limit)


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
        paths = [str(_PACKAGE_ROOT)] + [p for p in sys.path if p and os.path.isdir(p)]
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
            return failed_outcome(
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
            return failed_outcome(
                "ERROR",
                time.monotonic() - started,
                one_line(f"the run's process died ({how}){detail}: {tail[-500:]}"),
            )
