"""``solved.json``: the known optima of shipped instances, one schema for every problem.

``instances/<problem>/solved.json`` maps an instance file name to a
`SolvedEntry`: the best objective found, the best proven lower bound, the
status (OPTIMAL when they meet), which method (seed, options, time limit)
found the value and which proved the bound, the backend versions and the
date. The regression tests read it; ``hpcsched solved`` writes it (`solve_file`)
and checks it (`check_entry`). Every value in it went through
`hpcsched.solve`, so every solution behind it was validated.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .deadline import DEFAULT_TIME_LIMIT
from .errors import FormatError, HpcschedError, NotAnInstanceError
from .io import atomic_write_text, instance_sha256, load_json, read_instance
from .registry import problem_of, run_method
from .result import Result, Status, gap_of

#: The file name of the table in an instances folder.
SOLVED_FILE = "solved.json"


class SolvedRunError(HpcschedError):
    """A method failed (status ERROR) on a shipped instance: a bug to fix, not an entry to record."""


#: Relative gap at which a value and a bound are taken to meet (the registry's OPTIMAL gap).
PROVEN_GAP = 1e-6


@dataclass(frozen=True)
class Attempt:
    """One method run of a portfolio: name, time limit, seed and options."""

    method: str
    time_limit: float | None = None
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SolvedEntry:
    """What is known of one shipped instance.

    Attributes
    ----------
    objective
        Best validated objective found, or None when no method found a solution.
    bound
        Best proven lower bound, or None.
    status
        ``"OPTIMAL"`` when value and bound meet, ``"INFEASIBLE"`` when proven
        infeasible, else ``"FEASIBLE"`` (or ``"UNKNOWN"`` without a value).
    method, seed, options, time_limit_s, solver
        The run that found ``objective``.
    bound_method, bound_seed, bound_options, bound_time_limit_s, bound_solver
        The run that proved ``bound`` (may differ from ``method``).
    date, runtime_s
        When the entry was made, and the seconds all its runs took.
    instance_sha256
        sha256 of the instance's data section (`core.io.instance_sha256`):
        an entry computed on other data is stale, whatever the file name.
    """

    objective: float | None
    bound: float | None
    status: str
    method: str | None
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    time_limit_s: float | None = None
    solver: str | None = None
    bound_method: str | None = None
    bound_seed: int = 0
    bound_options: Mapping[str, Any] = field(default_factory=dict)
    bound_time_limit_s: float | None = None
    bound_solver: str | None = None
    date: str = ""
    runtime_s: float = 0.0
    instance_sha256: str | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            key: (dict(value) if isinstance(value, Mapping) else value)
            for key, value in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any], where: str) -> SolvedEntry:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise FormatError(f"{where}: unknown field(s) {', '.join(unknown)} (fields: {', '.join(sorted(names))})")
        missing = sorted({"objective", "bound", "status", "method"} - set(data))
        if missing:
            raise FormatError(f"{where}: missing field(s) {', '.join(missing)}")
        if not isinstance(data.get("status"), str) or data["status"] not in (
            "OPTIMAL",
            "FEASIBLE",
            "INFEASIBLE",
            "UNKNOWN",
        ):
            raise FormatError(
                f"{where}: status must be OPTIMAL, FEASIBLE, INFEASIBLE or UNKNOWN, got {data.get('status')!r}"
            )
        return cls(**data)


def read_solved(path: Path) -> dict[str, SolvedEntry]:
    """Entries of a ``solved.json`` (empty when the file does not exist).

    Raises
    ------
    FormatError
        Naming the file and the entry, for malformed JSON or an entry that
        is not a `SolvedEntry` (a table in an older layout, say).
    """
    if not path.exists():
        return {}
    raw = load_json(path)
    if not isinstance(raw, dict):
        raise FormatError(f"{path}: must map instance file names to entries")
    entries = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict):
            raise FormatError(f"{path}: {name}: must be an object")
        entries[name] = SolvedEntry.from_data(entry, f"{path}: {name}")
    return entries


def shipped_instances(folder: Path) -> dict[str, Path]:
    """File name -> path of every instance file in ``folder`` (``*.json`` and
    ``*.json.gz``; ``solved*.json`` and other JSON that is not an instance are left out)."""
    found = {}
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")]):
        if path.name.startswith("solved"):  # solved.json and its variants (solved-nonpreemptive.json)
            continue
        try:
            read_instance(path)
        except NotAnInstanceError:
            continue
        found[path.name] = path
    return found


def write_solved(path: Path, entries: Mapping[str, SolvedEntry]) -> None:
    """Write ``entries`` sorted by name, atomically."""
    data = {name: entries[name].to_data() for name in sorted(entries)}
    atomic_write_text(path, json.dumps(data, indent=1, allow_nan=False) + "\n")


@dataclass(frozen=True)
class _Run:
    """One attempt and the result it gave."""

    result: Result
    attempt: Attempt


@dataclass
class _BestSoFar:
    """The runs that gave the best value and the best bound so far (or proved infeasibility)."""

    value: _Run | None = None
    proof: _Run | None = None
    infeasible: _Run | None = None
    _objective: float = math.inf  # the objective of ``value`` once it is set
    _bound: float = -math.inf  # the bound of ``proof`` once it is set

    def record(self, run: _Run) -> None:
        """Keep ``run`` where it improves the value or the bound."""
        result = run.result
        if result.status is Status.INFEASIBLE:
            self.infeasible = run
            return
        if result.objective is not None and (self.value is None or result.objective < self._objective):
            self.value, self._objective = run, result.objective
        if result.bound is not None and (self.proof is None or result.bound > self._bound):
            self.proof, self._bound = run, result.bound

    @property
    def objective(self) -> float | None:
        return None if self.value is None else self.value.result.objective

    @property
    def bound(self) -> float | None:
        return None if self.proof is None else self.proof.result.bound

    def done(self) -> bool:
        """Infeasibility is proven, or the best value meets the best bound."""
        if self.infeasible is not None:
            return True
        return self.value is not None and self.proof is not None and _meet(self.objective, self.bound)


def solve_file(path: Path, attempts: Iterable[Attempt]) -> SolvedEntry:
    """Run ``attempts`` in turn on the instance at ``path`` and keep the best value and bound.

    Stops as soon as the best value meets the best bound. A result that is
    ERROR raises: a shipped instance on which a method fails is a bug to fix,
    not an entry to record.
    """
    instance = read_instance(path)
    digest = instance_sha256(instance)
    started = time.perf_counter()
    best = _BestSoFar()
    for attempt in attempts:
        result = _run(instance, attempt)
        if result.status is Status.ERROR:
            raise SolvedRunError(f"{path.name}: {attempt.method}: {'; '.join(result.notes)}")
        best.record(_Run(result, attempt))
        if best.done():
            break
    elapsed = round(time.perf_counter() - started, 3)
    today = datetime.date.today().isoformat()
    if best.infeasible is not None:
        return _infeasible_entry(best.infeasible, today, elapsed, digest)
    objective, bound = best.objective, best.bound
    status = "UNKNOWN" if objective is None else "OPTIMAL" if _meet(objective, bound) else "FEASIBLE"
    return SolvedEntry(
        objective=objective,
        bound=bound,
        status=status,
        **_found_by(best.value),
        **{f"bound_{key}": value for key, value in _found_by(best.proof).items()},
        date=today,
        runtime_s=elapsed,
        instance_sha256=digest,
    )


def _found_by(run: _Run | None) -> dict[str, Any]:
    """The ``method, seed, options, time_limit_s, solver`` fields of the run behind a value or bound."""
    if run is None:
        return {"method": None, "seed": 0, "options": {}, "time_limit_s": None, "solver": None}
    attempt = run.attempt
    return {
        "method": attempt.method,
        "seed": attempt.seed,
        "options": dict(attempt.options),
        "time_limit_s": _limit(attempt),
        "solver": run.result.solver,
    }


def _infeasible_entry(run: _Run, today: str, elapsed: float, digest: str) -> SolvedEntry:
    """The entry of an instance ``run`` proved infeasible (that run is both the value's and the bound's)."""
    found_by = _found_by(run)
    return SolvedEntry(
        objective=None,
        bound=None,
        status="INFEASIBLE",
        **found_by,
        **{f"bound_{key}": value for key, value in found_by.items()},
        date=today,
        runtime_s=elapsed,
        instance_sha256=digest,
    )


def _limit(attempt: Attempt) -> float:
    """The time limit the attempt ran under (the registry's default when it gave none)."""
    return DEFAULT_TIME_LIMIT if attempt.time_limit is None else attempt.time_limit


def _run(instance: Any, attempt: Attempt) -> Result:
    return run_method(instance, attempt.method, time_limit=_limit(attempt), seed=attempt.seed, **dict(attempt.options))


def check_file(path: Path, entry: SolvedEntry) -> list[str]:
    """Re-run the runs an entry records (its value's and, when another, its
    bound's) on the instance at ``path``; what contradicts the entry ([] when nothing).

    An entry recorded for other data (``instance_sha256``) is reported as
    stale; an entry without a method (nothing found) has nothing to re-run.
    """
    instance = read_instance(path)
    if entry.instance_sha256 is not None and entry.instance_sha256 != instance_sha256(instance):
        return [
            f"the entry was computed on other data (instance_sha256 {entry.instance_sha256[:12]}..., "
            f"the file has {instance_sha256(instance)[:12]}...)"
        ]
    runs = []
    problems: list[str] = []
    if entry.method is not None:
        runs.append(Attempt(entry.method, entry.time_limit_s, entry.seed, dict(entry.options)))
    if entry.bound_method is not None and entry.bound_method in problem_of(instance).methods:
        bound_run = Attempt(entry.bound_method, entry.bound_time_limit_s, entry.bound_seed, dict(entry.bound_options))
        if bound_run not in runs:
            runs.append(bound_run)
    elif entry.bound_method is not None:
        problems.extend(_check_bound_function(instance, entry))
    for attempt in runs:
        problems.extend(f"{attempt.method}: {problem}" for problem in check_entry(entry, _run(instance, attempt)))
    return problems


def _check_bound_function(instance: Any, entry: SolvedEntry) -> list[str]:
    """Check a bound recorded from the problem's bound function (``bounds.best``), not from a method."""
    problem = problem_of(instance)
    if entry.bound_method != "bounds.best" or problem.lower_bound is None:
        return [f"bound_method '{entry.bound_method}' is neither a method of {problem.name} nor bounds.best"]
    bound = float(problem.lower_bound(instance))
    slack = 1e-9 * max(1.0, abs(entry.objective or 0.0))
    if entry.objective is not None and bound > entry.objective + slack:
        return [f"bounds.best: bound {bound} above the recorded value {entry.objective}"]
    if entry.bound is not None and bound < entry.bound - slack:
        return [f"bounds.best: gives {bound}, not the recorded bound {entry.bound}"]
    return []


def check_entry(entry: SolvedEntry, result: Result) -> list[str]:
    """What in ``result`` contradicts ``entry`` ([] when nothing does).

    A contradiction is a proof against a proof: a value below a proven bound,
    a bound above a known value, OPTIMAL at another value, INFEASIBLE against a
    known solution. A run that merely does worse than the entry (a shorter
    time limit, say) contradicts nothing.
    """
    problems = []
    slack = 1e-9 * max(1.0, abs(entry.objective or 0.0))
    if result.status is Status.ERROR:
        problems.append(f"the method failed: {'; '.join(result.notes)}")
    if result.status is Status.INFEASIBLE and entry.objective is not None:
        problems.append(f"INFEASIBLE, but the entry has a solution of value {entry.objective}")
    if entry.status == "INFEASIBLE" and result.status.has_solution:
        problems.append("found a solution, but the entry says INFEASIBLE")
    if result.objective is not None and entry.bound is not None and result.objective < entry.bound - slack:
        problems.append(f"value {result.objective} below the recorded bound {entry.bound}")
    if result.bound is not None and entry.objective is not None and result.bound > entry.objective + slack:
        problems.append(f"bound {result.bound} above the recorded value {entry.objective}")
    if result.status is Status.OPTIMAL and entry.status == "OPTIMAL" and not _meet(result.objective, entry.objective):
        problems.append(f"OPTIMAL at {result.objective}, recorded OPTIMAL at {entry.objective}")
    return problems


def _meet(objective: float | None, bound: float | None) -> bool:
    if objective is None or bound is None or not (math.isfinite(objective) and math.isfinite(bound)):
        return False
    gap = gap_of(objective, bound)
    return gap is not None and gap <= PROVEN_GAP
