"""Seeded generators and the CSV importer of the locality problem.

Generators (``np.random.default_rng(seed)``, fully vectorized so that 10^7
tasks take seconds):

``uniform``
    Every task gets ``r`` distinct servers drawn uniformly (HDFS with random
    placement, the model of Beaumont et al.).
``rack-aware``
    HDFS default placement policy: the first replica on the writer's node (a
    uniform server), the second on a node of another rack, the third on
    another node of that second rack; replicas beyond the third are uniform
    among the remaining servers. Servers ``0..m-1`` are split into racks of
    ``rack_size`` consecutive servers (the last rack may be smaller).

Durations (``durations=``): ``"unit"`` (all 1), ``"lognormal"`` (``ceil`` of
a lognormal with median ``median`` and shape ``sigma``), ``"pareto"``
(``ceil(scale * (1 + Pareto(alpha)))``, heavy tail). All integer >= 1.

The CSV importer reads ``task,duration,replicas`` with replicas separated by
``;`` or spaces (e.g. ``j0,3,0;4;7``); the header line is required.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.generation import NON_NEGATIVE, POSITIVE, checked, size
from ..core.io import file_sha256
from .model import OBJECTIVES, Instance

DURATION_MODELS = ("unit", "lognormal", "pareto")


#: Memory a generator may take (bytes): a larger request is refused before anything is allocated.
GENERATOR_MEMORY_LIMIT = 4 * 2**30


def check_size(field: str, value: int, bytes_each: int, what: str) -> None:
    """Refuse a generator parameter whose instance would take more than `GENERATOR_MEMORY_LIMIT`.

    The estimate (``value * bytes_each``: Python objects while generating,
    then the JSON text) comes first, so that ``--n 100000000000`` ends in one
    line with the figure instead of an allocation that exhausts the machine.
    """
    estimate = value * bytes_each
    if estimate > GENERATOR_MEMORY_LIMIT:
        largest = GENERATOR_MEMORY_LIMIT // bytes_each
        raise InvalidInstanceError(
            field,
            f"{value} {what} would take about {estimate / 2**30:.3g} GiB (about {bytes_each} bytes each); "
            f"the generators stop at {GENERATOR_MEMORY_LIMIT / 2**30:.3g} GiB, i.e. at most {largest} {what}",
        )


#: Bytes per generated task (duration, name, JSON record) and per replica (int64 draws, sort, JSON).
BYTES_PER_TASK, BYTES_PER_REPLICA = 64, 48

#: The largest instance of both families (docs/architecture.md "Generator sizes"): 10^7 tasks are
#: generated and written as .npz in 15 s of CPU and 0.55 GB; as JSON, 10^6 tasks are already a 110 MB
#: file that takes 1.5 GB to write and read back (write .npz above that).
MAX_TASKS = 10_000_000


def _check_positive_int(value: Any, field: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidInstanceError(field, f"must be an integer >= {minimum}, got {value!r}")
    return int(value)


def distinct_uniform_servers(rng: np.random.Generator, n: int, m: int, r: int) -> np.ndarray:
    """``n x r`` int32 array: per row, r distinct servers uniform in range(m)."""
    chosen = np.empty((n, r), dtype=np.int32)
    for column in range(r):
        draw = rng.integers(0, m - column, size=n, dtype=np.int64)
        # Skip over the values already taken in this row (in increasing order):
        # a uniform draw among the m - column remaining servers.
        taken = np.sort(chosen[:, :column], axis=1)
        for k in range(column):
            draw += draw >= taken[:, k]
        chosen[:, column] = draw
    return chosen


def sample_durations(
    rng: np.random.Generator,
    n: int,
    model: str,
    *,
    median: float = 10.0,
    sigma: float = 1.0,
    alpha: float = 1.5,
    scale: float = 5.0,
) -> np.ndarray:
    """Integer durations >= 1 from one of `DURATION_MODELS`."""
    if model == "unit":
        return np.ones(n, dtype=np.int64)
    if model == "lognormal":
        values = rng.lognormal(mean=math.log(median), sigma=sigma, size=n)
    elif model == "pareto":
        values = scale * (1.0 + rng.pareto(alpha, size=n))
    else:
        raise InvalidInstanceError("durations", f"must be one of {', '.join(DURATION_MODELS)}, got {model!r}")
    return np.maximum(1, np.ceil(values)).astype(np.int64)


def _common(n: Any, m: Any, r: Any, objective: str, remote_cost: Any) -> tuple[int, int, int]:
    n = _check_positive_int(n, "n")
    m = _check_positive_int(
        m if m is not None else max(40, n // 100), "m"
    )  # 40: two racks of the default rack_size, r <= m
    r = _check_positive_int(r, "r")
    check_size("r", r, 8 * BYTES_PER_REPLICA, "replicas per task")  # r distinct servers: r <= m checked below
    # per task: its duration and r replicas in numpy (the generator's int64 draws) and in the JSON text
    check_size("n", n, BYTES_PER_TASK + r * BYTES_PER_REPLICA, "tasks")
    if r > m:
        raise InvalidInstanceError("r", f"{r} distinct replicas need at least {r} servers, got m={m}")
    if objective not in OBJECTIVES:
        raise InvalidInstanceError("objective", f"must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    _check_positive_int(remote_cost, "remote_cost", minimum=0)
    return n, m, r


@checked(n=size(MAX_TASKS, "tasks"), median=POSITIVE, sigma=NON_NEGATIVE, alpha=POSITIVE, scale=POSITIVE)
def generate_uniform(
    *,
    seed: int = 0,
    n: int = 100,
    m: int | None = None,
    r: int = 3,
    durations: str = "unit",
    objective: str = "makespan",
    remote_cost: int = 0,
    median: float = 10.0,
    sigma: float = 1.0,
    alpha: float = 1.5,
    scale: float = 5.0,
    name: str | None = None,
) -> Instance:
    """Uniform random placement of r replicas per task (m defaults to n/100)."""
    n, m, r = _common(n, m, r, objective, remote_cost)
    rng = np.random.default_rng(seed)
    replicas = distinct_uniform_servers(rng, n, m, r)
    task_durations = sample_durations(rng, n, durations, median=median, sigma=sigma, alpha=alpha, scale=scale)
    params = {"n": n, "m": m, "r": r, "durations": durations, "objective": objective, "remote_cost": remote_cost}
    if durations == "lognormal":
        params.update(median=median, sigma=sigma)
    elif durations == "pareto":
        params.update(alpha=alpha, scale=scale)
    return Instance.create(
        m,
        task_durations,
        replicas,
        objective=objective,
        remote_cost=remote_cost,
        name=name or f"uniform-n{n}-m{m}-r{r}-{durations}-s{seed}",
        time_unit="s",
        source={"generator": "locality.uniform", "params": params, "seed": seed},
    )


@checked(n=size(MAX_TASKS, "tasks"), median=POSITIVE, sigma=NON_NEGATIVE, alpha=POSITIVE, scale=POSITIVE)
def generate_rack_aware(
    *,
    seed: int = 0,
    n: int = 100,
    m: int | None = None,
    r: int = 3,
    rack_size: int = 20,
    durations: str = "unit",
    objective: str = "makespan",
    remote_cost: int = 0,
    median: float = 10.0,
    sigma: float = 1.0,
    alpha: float = 1.5,
    scale: float = 5.0,
    name: str | None = None,
) -> Instance:
    """HDFS default placement (writer's node, then two nodes of one other rack)."""
    n, m, r = _common(n, m, r, objective, remote_cost)
    rack_size = _check_positive_int(rack_size, "rack_size")
    racks = math.ceil(m / rack_size)
    if r >= 2 and racks < 2:
        raise InvalidInstanceError("rack_size", f"needs at least 2 racks, got {racks} (m={m}, rack_size={rack_size})")
    rng = np.random.default_rng(seed)
    replicas = np.empty((n, r), dtype=np.int32)
    replicas[:, 0] = rng.integers(0, m, size=n)
    if r >= 2:
        writer_rack = replicas[:, 0] // rack_size
        other_rack = rng.integers(0, racks - 1, size=n)
        other_rack += other_rack >= writer_rack
        first = other_rack * rack_size
        size = np.minimum(first + rack_size, m) - first
        second = rng.integers(0, size)
        replicas[:, 1] = first + second
        if r >= 3:
            # Third replica: another node of the same remote rack when it has one.
            third = rng.integers(0, np.maximum(size - 1, 1))
            third += (third >= second) & (size > 1)
            lonely = size == 1
            replicas[:, 2] = first + third
            if lonely.any():  # a one-server rack cannot hold two replicas: fall back to uniform
                extra = distinct_uniform_servers(rng, n, m, 3)
                replicas[lonely, 2] = _first_not_in(extra[lonely], replicas[lonely, :2])
    for column in range(3, r):
        # Uniform among servers not yet used by this row.
        draw = rng.integers(0, m - column, size=n, dtype=np.int64)
        taken = np.sort(replicas[:, :column], axis=1)
        for k in range(column):
            draw += draw >= taken[:, k]
        replicas[:, column] = draw
    task_durations = sample_durations(rng, n, durations, median=median, sigma=sigma, alpha=alpha, scale=scale)
    params = {
        "n": n,
        "m": m,
        "r": r,
        "rack_size": rack_size,
        "durations": durations,
        "objective": objective,
        "remote_cost": remote_cost,
    }
    return Instance.create(
        m,
        task_durations,
        replicas,
        objective=objective,
        remote_cost=remote_cost,
        name=name or f"rack-n{n}-m{m}-r{r}-{durations}-s{seed}",
        time_unit="s",
        source={"generator": "locality.rack-aware", "params": params, "seed": seed},
    )


def _first_not_in(candidates: np.ndarray, used: np.ndarray) -> np.ndarray:
    clash = (candidates[:, :, None] == used[:, None, :]).any(axis=2)
    return candidates[np.arange(candidates.shape[0]), np.argmax(~clash, axis=1)]


@dataclass
class _CsvRows:
    """What the rows of a ``task,duration,replicas`` file hold, in file order."""

    names: list[str] = field(default_factory=list)
    durations: list[int] = field(default_factory=list)
    replicas: list[list[int]] = field(default_factory=list)

    def add(self, path: Path, line_number: int, row: list[str]) -> None:
        """Check one data row and append it (an error names the line and the column)."""
        if len(row) != 3:
            raise InvalidInstanceError(f"line {line_number}", f"expected 3 columns, got {len(row)}", str(path))
        task, duration, replicas = (cell.strip() for cell in row)
        try:
            value = float(duration)
        except ValueError:
            raise InvalidInstanceError(
                f"line {line_number}.duration", f"not a number: {duration!r}", str(path)
            ) from None
        if not math.isfinite(value) or not value.is_integer() or value < 1:
            raise InvalidInstanceError(
                f"line {line_number}.duration", f"must be an integer >= 1, got {duration!r}", str(path)
            )
        try:
            servers_of_task = [int(item) for item in replicas.replace(";", " ").split()]
        except ValueError:
            raise InvalidInstanceError(
                f"line {line_number}.replicas", f"not a list of server ids: {replicas!r}", str(path)
            ) from None
        self.names.append(task)
        self.durations.append(int(value))
        self.replicas.append(servers_of_task)


def _read_csv_rows(path: Path) -> _CsvRows:
    """The checked rows of ``path`` after its header line; blank lines are skipped."""
    rows = _CsvRows()
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None or [h.strip().lower() for h in header[:3]] != ["task", "duration", "replicas"]:
                raise FormatError(f"{path}: line 1 must be the header 'task,duration,replicas', got {header!r}")
            for line_number, row in enumerate(reader, start=2):
                if row and any(cell.strip() for cell in row):
                    rows.add(path, line_number, row)
    except UnicodeDecodeError as error:
        raise FormatError(f"{path}: not UTF-8 text: {error}") from None
    if not rows.names:
        raise InvalidInstanceError("tasks", "the file has no task rows", str(path))
    return rows


def import_csv(
    path: str | Path,
    *,
    servers: int | None = None,
    objective: str = "makespan",
    remote_cost: int = 0,
    time_unit: str | None = None,
) -> Instance:
    """Read ``task,duration,replicas`` (replicas separated by ';' or spaces).

    ``servers`` defaults to the largest server id + 1.
    """
    path = Path(path)
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    rows = _read_csv_rows(path)
    if servers is None:
        servers = max((max(r) for r in rows.replicas if r), default=-1) + 1
    try:
        return Instance.create(
            servers,
            np.asarray(rows.durations, dtype=np.int64),
            rows.replicas,
            objective=objective,
            remote_cost=remote_cost,
            task_names=rows.names,
            name=path.stem,
            time_unit=time_unit,
            source={
                "importer": "locality.csv",
                "file": path.name,
                "sha256": file_sha256(path),
                "options": {"servers": servers, "objective": objective, "remote_cost": remote_cost},
            },
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None
