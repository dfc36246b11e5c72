"""The engine: rows, resumption, deadlines, errors, executors."""

from __future__ import annotations

import json
import os
import select
import signal
import warnings
from types import SimpleNamespace

import pytest

from hpcsched.experiments import (
    COLUMNS,
    ExecutorError,
    OversubscriptionWarning,
    ResultsFileError,
    make_task,
    open_store,
    read_rows,
    run_tasks,
)
from hpcsched.experiments.runner import process
from hpcsched.experiments.runs import canonical_options, run_key

from .experiments_helpers import TOY, stable, toy_instance


def tasks_for(instances, methods, *, time_limit=5.0, seeds=(0,), grace=0.5, options=None):
    return [
        make_task(instance, method, options=options, seed=seed, time_limit=time_limit, grace=grace, plugins=[TOY])
        for instance in instances
        for method in methods
        for seed in seeds
    ]


def by_method(rows):
    return {(row["instance"], row["method"], row["seed"]): row for row in rows}


def test_rows_hold_the_run_and_the_checked_result(instances, tmp_path):
    store = open_store(tmp_path / "results.csv")
    summary = run_tasks(tasks_for(instances, ["exact", "first"]), store=store, progress=False)
    assert summary.ran == 6 and summary.skipped == 0
    rows = read_rows(tmp_path / "results.csv")
    assert stable(rows) == stable(summary.rows)
    table = by_method(rows)
    for instance in instances:
        exact = table[(instance.name, "exact", 0)]
        first = table[(instance.name, "first", 0)]
        # Expected values straight from the data: minimum, and the first value.
        assert exact["status"] == "OPTIMAL" and exact["objective"] == min(instance.values) == exact["bound"]
        assert exact["gap"] == 0.0
        assert first["status"] == "FEASIBLE" and first["objective"] == instance.values[0] and first["bound"] is None
        assert exact["size"] == len(instance.values)
        assert exact["time_limit"] == 5.0 and exact["options"] == "{}" and exact["host"]
    assert set(rows[0]) == set(COLUMNS)


def test_rerun_skips_recorded_runs_and_runs_only_new_ones(instances, tmp_path):
    path = tmp_path / "results.csv"
    run_tasks(tasks_for(instances[:2], ["exact"]), store=open_store(path), progress=False)
    summary = run_tasks(tasks_for(instances, ["exact"]), store=open_store(path), progress=False)
    assert summary.skipped == 2 and summary.ran == 1
    assert summary.rows[0]["instance"] == instances[2].name
    assert len(read_rows(path)) == 3


def test_duplicate_tasks_run_once(instances):
    tasks = tasks_for(instances[:1], ["exact"]) * 3
    summary = run_tasks(tasks, progress=False)
    assert summary.ran == 1 and summary.duplicates == 2


def test_run_key_normalises_options_and_time_limits():
    assert run_key("a", "m", {"b": 1, "a": 2}, 0, 60) == run_key("a", "m", '{"a": 2, "b": 1}', "0", "60.0")
    assert run_key("a", "m", {}, 0, 60) != run_key("a", "m", {}, 0, 30)
    assert run_key("a", "m", {}, 0, 60) != run_key("a", "m", {}, 1, 60)
    assert canonical_options(None) == "{}"


def test_seeds_and_options_are_separate_runs(instances, tmp_path):
    tasks = tasks_for(instances[:1], ["seeded"], seeds=(0, 1, 2)) + tasks_for(
        instances[:1], ["sleep"], options={"seconds": 0.01}
    )
    summary = run_tasks(tasks, store=open_store(tmp_path / "r.csv"), progress=False)
    assert summary.ran == 4
    sleep_row = next(row for row in summary.rows if row["method"] == "sleep")
    assert json.loads(sleep_row["options"]) == {"seconds": 0.01}
    assert sleep_row["objective"] == min(instances[0].values)


class RunnerClock:
    """The runner's clock and waits, faked: the test reads no wall clock.

    Every wait is a real ``poll`` (the child's messages really arrive), but the clock moves only by
    rule: by `ANSWER_S` when a message arrived, by the whole timeout when the wait timed out. So the
    deadline counts from the moment the method starts (`ANSWER_S` after the task went out), the
    hung run is killed exactly ``time_limit + grace`` later, and its runtime is that, on any machine.
    """

    ANSWER_S = 0.25
    #: A real wait is cut here (broken code waiting for a day fails the test instead of hanging it).
    LONGEST_WAIT_MS = 60_000

    def __init__(self):
        self.now = 1000.0
        self.timed_out = []  # (requested timeout in ms, clock reading at its end) of each wait that timed out
        self.group_kills = []  # (process group, signal, clock reading)

    def monotonic(self):
        return self.now

    def poll(self):
        return _Poll(self)


class _Poll:
    """A real `select.poll` whose waits move the `RunnerClock`."""

    def __init__(self, clock):
        self.clock = clock
        self.real = select.poll()

    def register(self, fd, events):
        self.real.register(fd, events)

    def poll(self, timeout_ms=None):
        clock = self.clock
        timeout_ms = clock.LONGEST_WAIT_MS if timeout_ms is None else timeout_ms
        ready = self.real.poll(min(timeout_ms, clock.LONGEST_WAIT_MS))
        if ready:
            clock.now += clock.ANSWER_S
        else:
            clock.now += timeout_ms / 1000
            clock.timed_out.append((timeout_ms, clock.now))
        return ready


def test_a_hanging_method_is_killed_at_its_limit_and_the_study_goes_on(instances, monkeypatch):
    clock = RunnerClock()
    monkeypatch.setattr(process, "time", SimpleNamespace(monotonic=clock.monotonic))
    monkeypatch.setattr(
        process,
        "select",
        SimpleNamespace(poll=clock.poll, POLLIN=select.POLLIN, POLLHUP=select.POLLHUP, POLLERR=select.POLLERR),
    )
    real_killpg = os.killpg

    def killpg(group, sig):
        clock.group_kills.append((group, sig, clock.now))
        real_killpg(group, sig)

    monkeypatch.setattr(os, "killpg", killpg)
    runners = []
    real_start = process.Runner._start

    def start(runner):
        real_start(runner)
        runners.append(runner._process.pid)

    monkeypatch.setattr(process.Runner, "_start", start)
    tasks = tasks_for(instances[:1], ["hang", "exact"], time_limit=0.1, grace=0.1)
    summary = run_tasks(tasks, progress=False)  # one job: "exact" runs after the kill
    rows = {row["method"]: row for row in summary.rows}
    assert rows["hang"]["status"] == "TIME_LIMIT_NO_SOLUTION"
    assert rows["hang"]["objective"] is None
    assert "time limit 0.1 s + grace 0.1 s" in rows["hang"]["error"]
    # One wait timed out: the one for the hung method's answer, of time limit + grace from its start.
    assert [waited_ms for waited_ms, _ in clock.timed_out] == [200]
    assert rows["hang"]["runtime_s"] == pytest.approx(0.2)
    # Its runner's whole process group was killed when that wait ended, and "exact" ran on a fresh runner.
    assert len(runners) == 2 and runners[1] != runners[0]
    assert clock.group_kills[:1] == [(runners[0], signal.SIGKILL, clock.timed_out[0][1])]
    assert rows["exact"]["status"] == "OPTIMAL"


def test_a_raising_method_is_recorded_as_error_with_its_message(instances, tmp_path):
    path = tmp_path / "r.csv"
    summary = run_tasks(tasks_for(instances, ["boom", "exact"]), store=open_store(path), progress=False)
    rows = read_rows(path)
    assert summary.ran == len(rows) == 6
    booms = [row for row in rows if row["method"] == "boom"]
    assert all(row["status"] == "ERROR" for row in booms)
    assert all(row["error"] == f"RuntimeError: boom: deliberate failure on {row['instance']}" for row in booms)
    assert all(row["status"] == "OPTIMAL" for row in rows if row["method"] == "exact")


def test_an_invalid_solution_is_an_error_named_by_the_validator(instances):
    row = run_tasks(tasks_for(instances[:1], ["bad"]), progress=False).rows[0]
    assert row["status"] == "ERROR" and "invalid solution" in row["error"] and "[range]" in row["error"]
    assert row["objective"] is None


def test_a_dying_process_is_an_error_and_the_next_run_works(instances):
    summary = run_tasks(tasks_for(instances[:1], ["die", "exact"]), progress=False)
    rows = {row["method"]: row for row in summary.rows}
    assert rows["die"]["status"] == "ERROR" and "exit code 7" in rows["die"]["error"]
    assert rows["exact"]["status"] == "OPTIMAL"


def test_a_trailing_partial_row_is_cut_and_run_again(instances, tmp_path):
    path = tmp_path / "r.csv"
    tasks = tasks_for(instances, ["exact"])
    run_tasks(tasks[:2], store=open_store(path), progress=False)
    whole = path.read_bytes()
    with open(path, "ab") as handle:  # what a kill in the middle of a write leaves
        handle.write(b"toy-uniform-n12-s2,deadbeef,toy,12,exa")
    assert len(read_rows(path)) == 2  # readers ignore it
    store = open_store(path)  # writers cut it
    assert path.read_bytes() == whole
    summary = run_tasks(tasks, store=store, progress=False)
    assert summary.ran == 1 and summary.skipped == 2
    rows = read_rows(path)
    assert len(rows) == 3 and len({(row["instance"], row["method"]) for row in rows}) == 3


def test_a_file_that_is_not_a_results_file_is_refused(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(ResultsFileError, match="not an hpcsched results file"):
        open_store(path)


def test_parquet_needs_pyarrow_and_says_how_to_get_it(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(ResultsFileError, match="pip install pyarrow"):
            open_store(tmp_path / "r.parquet")
    else:
        store = open_store(tmp_path / "r.parquet")
        summary = run_tasks(tasks_for([toy_instance()], ["exact", "first"]), store=store, progress=False)
        assert stable(read_rows(tmp_path / "r.parquet")) == stable(summary.rows)


def test_oversubscription_warns_only_when_threads_times_workers_exceed_cores(instances):
    with pytest.warns(OversubscriptionWarning, match="2 workers x 2 solver threads"):
        run_tasks(tasks_for(instances[:2], ["exact"]), jobs=2, cores=2, progress=False)  # exact: 2 threads
    with warnings.catch_warnings():
        warnings.simplefilter("error", OversubscriptionWarning)
        run_tasks(tasks_for(instances[:2], ["first"]), jobs=2, cores=2, progress=False)  # baseline: 1 thread
        run_tasks(tasks_for(instances[:1], ["exact"]), jobs=2, cores=2, progress=False)  # one run: one worker
    with pytest.warns(OversubscriptionWarning, match="x 4 solver threads"):
        run_tasks(tasks_for(instances[:1], ["first"], options={"threads": 4}), jobs=1, cores=2, progress=False)


def test_unknown_executor_is_refused(instances):
    with pytest.raises(ExecutorError, match="unknown executor 'slurm'"):
        run_tasks(tasks_for(instances[:1], ["exact"]), executor="slurm", progress=False)


def test_parallel_local_pool_gives_the_same_rows_as_one_job(instances, tmp_path):
    tasks = tasks_for(instances, ["exact", "first", "seeded", "boom"], seeds=(0, 1))
    serial = run_tasks(tasks, progress=False).rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OversubscriptionWarning)
        parallel = run_tasks(tasks, jobs=2, progress=False).rows
    assert stable(serial) == stable(parallel)


def test_local_pool_and_dask_local_cluster_give_the_same_rows(instances, tmp_path):
    pytest.importorskip("distributed")
    tasks = tasks_for(instances, ["exact", "first", "seeded", "boom", "bad"], seeds=(0, 1))
    tasks += tasks_for(instances[:1], ["hang"], time_limit=0.2, grace=0.2)
    local = run_tasks(tasks, store=open_store(tmp_path / "local.csv"), progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OversubscriptionWarning)
        dask = run_tasks(tasks, store=open_store(tmp_path / "dask.csv"), executor="dask", jobs=2, progress=False)
    assert local.ran == dask.ran == len(tasks)
    assert stable(read_rows(tmp_path / "local.csv")) == stable(read_rows(tmp_path / "dask.csv"))
    hang = next(row for row in dask.rows if row["method"] == "hang")
    assert hang["status"] == "TIME_LIMIT_NO_SOLUTION"  # the deadline holds on Dask workers too


def test_dask_with_an_unreachable_scheduler_is_a_clear_error(instances, monkeypatch):
    pytest.importorskip("distributed")
    from hpcsched.experiments import engine

    monkeypatch.setattr(engine, "DASK_CONNECT_TIMEOUT_S", 1.0)
    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler"):
        run_tasks(tasks_for(instances[:1], ["exact"]), executor="dask", scheduler="tcp://127.0.0.1:1", progress=False)


@pytest.mark.slow
def test_dask_cluster_with_worker_processes_gives_the_same_rows(instances):
    distributed = pytest.importorskip("distributed")
    tasks = tasks_for(instances, ["exact", "first", "boom"]) + tasks_for(
        instances[:1], ["hang"], time_limit=0.2, grace=0.2
    )
    local = run_tasks(tasks, progress=False).rows
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = run_tasks(tasks, executor="dask", scheduler=client, progress=False).rows
    assert stable(local) == stable(remote)
