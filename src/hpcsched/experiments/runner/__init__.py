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

The modules, by role: `child` (the runner process's side of the protocol and
the execution of one run), `process` (the parent's `Runner`, with the hard
deadline), `workers` (one runner per worker thread, and the results row).
"""

from .child import child_main, execute_here, prepare
from .process import GRACE_FRACTION, GRACE_MINIMUM_S, SETUP_TIMEOUT_S, Runner, default_grace
from .workers import close_idle_runners, execute, make_row

__all__ = [
    "GRACE_FRACTION",
    "GRACE_MINIMUM_S",
    "SETUP_TIMEOUT_S",
    "Runner",
    "child_main",
    "close_idle_runners",
    "default_grace",
    "execute",
    "execute_here",
    "make_row",
    "prepare",
]
