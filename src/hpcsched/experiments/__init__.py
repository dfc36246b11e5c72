"""Studies: methods x instances -> rows of results, on a local pool or Dask.

Build tasks with `make_task` (or from a study file with `load_study`), run them
with `run_tasks` / `run_study` (resumable: rows already in the results file are
skipped), and summarise a results file with `report`. See ``docs/study.md``.
"""

from .engine import (
    ExecutorError as ExecutorError,
    OversubscriptionWarning as OversubscriptionWarning,
    RunSummary as RunSummary,
    instance_fields as instance_fields,
    make_task as make_task,
    run_tasks as run_tasks,
)
from .report import report as report
from .runs import COLUMNS as COLUMNS, PluginError as PluginError, load_plugins as load_plugins, row_key as row_key
from .store import ResultsFileError as ResultsFileError, open_store as open_store, read_rows as read_rows
from .study import Study as Study, StudyFileError as StudyFileError, load_study as load_study, run_study as run_study
