"""Running a study: check where its results go, expand it, hand its runs to the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.errors import HpcschedError, OutputPathError
from ...core.io import check_output_path
from ..engine import RunSummary, run_tasks
from ..store import open_store
from .checking import StudyFileError
from .parse import load_study
from .plan import Study


def _check_results_path(study: Study, results: Path, overridden: bool) -> None:
    """Refuse a results path that cannot be written, before any instance is read or run.

    Names the study file's ``results`` key, or ``--results`` when the path
    came from the command line (``overridden``).
    """
    try:
        if str(results).endswith(".parquet"):  # a folder of part files
            if results.exists() and not results.is_dir():
                raise OutputPathError(f"{results}: a Parquet results path must be a folder")
            check_output_path(results / "part.parquet")
        else:
            check_output_path(results)
    except HpcschedError as error:
        if overridden:
            raise OutputPathError(f"--results: cannot write the results file: {error}") from None
        raise StudyFileError(study.file, "results", f"cannot write the results file: {error}") from None


def run_study(
    study: Study | str | Path,
    *,
    executor: str | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    results: str | Path | None = None,
    progress: bool = True,
) -> RunSummary:
    """Run every run of ``study`` not yet in its results file.

    Arguments other than ``study`` override the study file's settings.
    Returns the engine's `RunSummary` (new rows, runs skipped as recorded).
    """
    if not isinstance(study, Study):
        study = load_study(study)
    results_path = Path(results) if results is not None else study.results
    _check_results_path(study, results_path, overridden=results is not None)
    tasks = study.tasks()
    store = open_store(results_path)
    return run_tasks(
        tasks,
        store=store,
        executor=executor or study.executor,
        jobs=jobs or study.jobs,
        scheduler=scheduler if scheduler is not None else study.scheduler,
        progress=progress,
        description=study.name,
    )
