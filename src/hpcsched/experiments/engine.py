"""The engine: tasks in, rows out, on a local pool or a Dask cluster.

`run_tasks` is the one loop behind ``hpcsched study run`` and ``hpcsched
compare``. It skips every task whose key is already in the results store,
sends the others to an executor, and appends each row to the store in the
calling process as soon as its run finishes (a single writer, so rows never
interleave). Executors only decide *where* a run's runner lives:

- ``local`` (default): ``jobs`` threads in this process, each driving one
  runner child process (`hpcsched.experiments.runner`).
- ``dask``: tasks are submitted to a ``distributed`` scheduler (``scheduler``
  address, an existing ``Client``, or a ``LocalCluster`` when none); each Dask
  worker thread drives its own runner, so the per-run deadline holds on the
  cluster too.

Either way the run itself happens in a runner child with a hard deadline, and
goes through `run_method`.
"""

from __future__ import annotations

import os
import queue
import threading
import warnings
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import HpcschedError
from .runner import Runner, close_idle_runners, default_grace, execute, make_row
from .runs import canonical_options, canonical_time_limit, instance_size, task_key

EXECUTORS = ("local", "dask")

#: Seconds to wait for a Dask scheduler given by address.
DASK_CONNECT_TIMEOUT_S = 30.0


class ExecutorError(HpcschedError):
    """An executor cannot be used (unknown name, Dask missing or unreachable)."""


class OversubscriptionWarning(UserWarning):
    """Solver threads × workers exceed the cores of the machine."""


def instance_fields(instance: Any, file: str | None = None) -> dict[str, Any]:
    """The instance part of a task (document, sha256, size): computed once per
    instance and shared by all its runs (see `make_task`'s ``prepared``)."""
    from ..core.io import instance_document, instance_sha256
    from ..core.registry import problem_of

    return {
        "instance_name": instance.name,
        "instance_file": file,
        "sha256": instance_sha256(instance),
        "problem": problem_of(instance).name,
        "size": instance_size(instance),
        "instance": instance_document(instance),
    }


def make_task(
    instance: Any,
    method: str,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    time_limit: float | None = None,
    grace: float | None = None,
    plugins: Iterable[str] = (),
    file: str | None = None,
    prepared: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON-able task of running ``method`` on ``instance``.

    ``plugins`` are imported by the process that executes the task before it
    rebuilds the instance (see `hpcsched.experiments.runs.load_plugin`).
    ``prepared`` is `instance_fields(instance, file)` when the caller makes
    many tasks of one instance.
    """
    time_limit = canonical_time_limit(time_limit)
    task = dict(prepared) if prepared is not None else instance_fields(instance, file)
    task.update(
        method=method,
        options=canonical_options(options or {}),
        seed=int(seed),
        time_limit=time_limit,
        grace=default_grace(time_limit) if grace is None else float(grace),
        plugins=list(plugins),
    )
    return task


def threads_per_run(task: Mapping[str, Any]) -> int:
    """Solver threads a run will use: its ``threads``/``workers`` option, else
    2 for exact methods (the solver adapters' default), else 1."""
    import json

    from ..core.registry import get_problem

    options = json.loads(task["options"]) if isinstance(task["options"], str) else task["options"]
    for name in ("threads", "workers", "num_workers"):
        if isinstance(options.get(name), int) and options[name] > 0:
            return options[name]
    try:
        kind = get_problem(task["problem"]).method(task["method"]).kind
    except HpcschedError:
        return 1
    return 2 if kind == "exact" else 1


def check_oversubscription(tasks: Sequence[Mapping[str, Any]], workers: int, cores: int | None = None) -> str | None:
    """A warning text when threads × workers exceed ``cores`` (None if fine)."""
    cores = cores or os.cpu_count() or 1
    if not tasks:
        return None
    threads = max(threads_per_run(task) for task in tasks)
    if threads * workers > cores:
        message = (
            f"{workers} workers x {threads} solver threads per run = {threads * workers} threads "
            f"on {cores} cores: runs will slow each other down and time-limited results will "
            f"depend on the load (use fewer jobs or fewer threads)"
        )
        warnings.warn(message, OversubscriptionWarning, stacklevel=3)
        return message
    return None


@dataclass
class RunSummary:
    """What `run_tasks` did."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    duplicates: int = 0

    @property
    def ran(self) -> int:
        return len(self.rows)


# ----------------------------------------------------------------- executors


def _local_rows(
    tasks: list[dict[str, Any]], jobs: int, stop: threading.Event
) -> Generator[list[dict[str, Any]], None, None]:
    """Batches of rows in completion order (every row that finished since the
    previous batch), from ``jobs`` threads each owning a runner.

    Finished rows go through a queue rather than ``wait()`` on the futures,
    which would cost O(pending) per finished run (quadratic on 10,000 runs).
    """
    runners: queue.SimpleQueue[Runner] = queue.SimpleQueue()
    owned = [Runner() for _ in range(jobs)]
    for runner in owned:
        runners.put(runner)
    finished: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def work(task: dict[str, Any]) -> None:
        if stop.is_set():
            finished.put(None)
            return
        runner = runners.get()
        try:
            finished.put(make_row(task, runner.run(task)))
        except BaseException as error:  # a bug, not a run's failure: surface it
            finished.put(error)
        finally:
            runners.put(runner)

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="hpcsched-run")
    try:
        for task in tasks:
            pool.submit(work, task)
        remaining = len(tasks)
        while remaining:
            batch = [finished.get()]
            while True:
                try:
                    batch.append(finished.get_nowait())
                except queue.Empty:
                    break
            remaining -= len(batch)
            for item in batch:
                if isinstance(item, BaseException):
                    raise item
            rows = [item for item in batch if item is not None]
            if rows:
                yield rows
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        for runner in owned:
            try:
                runner._discard()
            except Exception:  # the thread using it may be tearing it down too
                pass
        pool.shutdown(wait=True)


def _dask_client(scheduler: Any, jobs: int):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ExecutorError(
            "the dask executor needs dask.distributed: pip install 'hpcsched[dask]' "
            "(or pip install 'dask[distributed]')"
        ) from None
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler, None  # an existing Client
    if scheduler:
        try:
            return Client(scheduler, timeout=f"{DASK_CONNECT_TIMEOUT_S}s"), None
        except (OSError, TimeoutError) as error:
            raise ExecutorError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    # Runs happen in runner child processes, so worker *threads* suffice locally.
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=jobs, processes=False, dashboard_address=None, silence_logs=40
    )
    return Client(cluster), cluster


def _dask_rows(
    tasks: list[dict[str, Any]], jobs: int, scheduler: Any, stop: threading.Event
) -> Generator[list[dict[str, Any]], None, None]:
    from distributed import as_completed

    client, cluster = _dask_client(scheduler, jobs)
    owns_client = cluster is not None or isinstance(scheduler, str)
    futures = []
    try:
        futures = client.map(execute, tasks, pure=False)
        for batch in as_completed(futures).batches():
            yield [future.result() for future in batch]
    finally:
        stop.set()
        for future in futures:
            future.cancel()
        try:
            client.run(close_idle_runners)
        except Exception:  # workers gone or unreachable: their children exit with them
            pass
        if owns_client:
            client.close()
            if cluster is not None:
                cluster.close()


# -------------------------------------------------------------------- engine


def run_tasks(
    tasks: Iterable[dict[str, Any]],
    *,
    store: Any = None,
    executor: str = "local",
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    description: str = "runs",
    on_row: Callable[[dict[str, Any]], None] | None = None,
    cores: int | None = None,
) -> RunSummary:
    """Run every task not yet recorded in ``store``; append each row as it finishes.

    Parameters
    ----------
    tasks
        From `make_task`.
    store
        A results store (`open_store`) or None (rows only returned).
    executor
        ``"local"`` or ``"dask"``.
    jobs
        Concurrent runs (local threads or LocalCluster threads); default 1.
    scheduler
        Dask scheduler address or ``distributed.Client``; None: a LocalCluster.
    progress
        Show a rich progress bar on stderr.
    on_row
        Called with each new row after it is stored.

    Returns
    -------
    RunSummary
        New rows in completion order, and how many tasks were skipped as
        already recorded or duplicated.
    """
    if executor not in EXECUTORS:
        raise ExecutorError(f"unknown executor '{executor}' (known: {', '.join(EXECUTORS)})")
    jobs = max(1, int(jobs or 1))
    summary = RunSummary()
    recorded: set[tuple] = set()
    if store is not None:
        from .store import recorded_keys

        recorded = recorded_keys(store.rows())
    todo: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    for task in tasks:
        key = task_key(task)
        if key in recorded:
            summary.skipped += 1
        elif key in seen:
            summary.duplicates += 1
        else:
            seen.add(key)
            todo.append(task)
    if not todo:
        return summary
    if executor == "local":
        jobs = min(jobs, len(todo))  # no idle runners
    if executor == "local" or not scheduler:
        check_oversubscription(todo, min(jobs, len(todo)), cores)

    stop = threading.Event()
    batches = _local_rows(todo, jobs, stop) if executor == "local" else _dask_rows(todo, jobs, scheduler, stop)
    bar = _progress(progress, len(todo), description)
    try:
        with bar:
            task_id = bar.add_task(description, total=len(todo))
            for batch in batches:
                if store is not None:
                    store.append_many(batch)
                summary.rows.extend(batch)
                if on_row is not None:
                    for row in batch:
                        on_row(row)
                bar.advance(task_id, len(batch))
    finally:
        stop.set()
        batches.close()
    return summary


class _NoProgress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add_task(self, *args, **kwargs):
        return None

    def advance(self, *args, **kwargs):
        return None


def _progress(enabled: bool, total: int, description: str):
    if not enabled:
        return _NoProgress()
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
