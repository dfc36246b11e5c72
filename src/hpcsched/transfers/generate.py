"""Seeded instance generators and the CSV trace importer.

Every generator takes ``seed`` and ``n`` and a ``memory_factor``: the
capacity is ⌈memory_factor · max_i m_i⌉ (1 is the tightest feasible value;
the experiments use 1, 1.5, 2, 3, 5, 10), or ``"unlimited"``, which sets
M = Σ m_i so that memory never binds. Randomness comes only from
``numpy.random.default_rng(seed)``; the provenance (family, parameters, seed)
is stored in ``Instance.source``.

The HF and CCSD traces of Kumar, Eyraud-Dubois and Krishnamoorthy (arXiv
1904.06825) are not public; the two "-like" families below are synthetic
stand-ins whose modelling assumptions are stated in their docstrings. Real
traces can be brought in through the CSV importer.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.generation import POSITIVE, checked, size
from ..core.io import file_sha256
from .model import Instance

#: Effective host-to-device bandwidth of the "-like" families, bytes per microsecond (12 GB/s, PCIe 3 x16).
BANDWIDTH_BYTES_PER_US = 12_000


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


#: The largest instance of every family (docs/architecture.md "Generator sizes"): at 10^6 tasks,
#: generating, writing and reading back take about 17 s of CPU and 1.4 GB.
MAX_TASKS = 1_000_000

#: Bytes per generated task: a Task and its dict, three numpy values each way, and its JSON record.
BYTES_PER_TASK = 600


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidInstanceError("n", f"must be an integer >= 1, got {n!r}")
    check_size("n", n, BYTES_PER_TASK, "tasks")
    return n


def _positive_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInstanceError(field, f"must be an integer >= 1, got {value!r}")
    return value


def capacity_for(memory: list[int], memory_factor: Any) -> int:
    """⌈memory_factor · max m⌉, or Σ m for ``"unlimited"`` (or None)."""
    if memory_factor is None or memory_factor == "unlimited":
        return int(sum(memory))
    if (
        isinstance(memory_factor, bool)
        or not isinstance(memory_factor, (int, float))
        or not math.isfinite(memory_factor)
    ):
        raise InvalidInstanceError("memory_factor", f"must be a number >= 1 or 'unlimited', got {memory_factor!r}")
    if memory_factor < 1:
        raise InvalidInstanceError(
            "memory_factor", f"must be >= 1 (below, the largest task never fits), got {memory_factor}"
        )
    return math.ceil(memory_factor * max(memory) - 1e-9)


def _build(family: str, seed: int, n: int, params: dict, transfer, compute, memory, time_unit: str | None) -> Instance:
    memory = [int(x) for x in memory]
    capacity = capacity_for(memory, params.get("memory_factor"))
    factor = params.get("memory_factor")
    label = "unl" if factor in (None, "unlimited") else f"{factor:g}"
    return Instance.create(
        [int(x) for x in transfer],
        [int(x) for x in compute],
        memory,
        capacity,
        name=f"{family}-n{n}-m{label}-s{seed}",
        time_unit=time_unit,
        source={"generator": family, "seed": seed, "n": n, **params},
    )


@checked(n=size(MAX_TASKS, "tasks"))
def generate_uniform(
    *,
    seed: int = 0,
    n: int = 20,
    memory_factor: Any = 2.0,
    max_transfer: int = 100,
    max_compute: int = 100,
    max_memory: int = 100,
) -> Instance:
    """Independent uniform integers: c in [1, max_transfer], p in [1, max_compute], m in [1, max_memory]."""
    n = _check_n(n)
    for field, value in (("max_transfer", max_transfer), ("max_compute", max_compute), ("max_memory", max_memory)):
        _positive_int(value, field)
    rng = np.random.default_rng(seed)
    transfer = rng.integers(1, max_transfer + 1, n)
    compute = rng.integers(1, max_compute + 1, n)
    memory = rng.integers(1, max_memory + 1, n)
    params = dict(
        memory_factor=memory_factor, max_transfer=max_transfer, max_compute=max_compute, max_memory=max_memory
    )
    return _build("uniform", seed, n, params, transfer, compute, memory, None)


@checked(n=size(MAX_TASKS, "tasks"))
def generate_correlated(
    *,
    seed: int = 0,
    n: int = 20,
    memory_factor: Any = 2.0,
    max_transfer: int = 100,
    max_compute: int = 100,
    bytes_per_time_unit: int = 1000,
) -> Instance:
    """Memory proportional to transfer time: m = bytes_per_time_unit · c.

    Assumption: the data copied is exactly the data held, and the link has a
    constant bandwidth, so footprint and transfer time are proportional;
    compute time is independent of both (uniform in [1, max_compute]).
    """
    n = _check_n(n)
    _positive_int(max_transfer, "max_transfer")
    _positive_int(max_compute, "max_compute")
    _positive_int(bytes_per_time_unit, "bytes_per_time_unit")
    rng = np.random.default_rng(seed)
    transfer = rng.integers(1, max_transfer + 1, n)
    compute = rng.integers(1, max_compute + 1, n)
    memory = transfer * bytes_per_time_unit
    params = dict(
        memory_factor=memory_factor,
        max_transfer=max_transfer,
        max_compute=max_compute,
        bytes_per_time_unit=bytes_per_time_unit,
    )
    return _build("correlated", seed, n, params, transfer, compute, memory, None)


@checked(n=size(MAX_TASKS, "tasks"), integrals_per_us=POSITIVE)
def generate_hf_like(
    *, seed: int = 0, n: int = 100, memory_factor: Any = 2.0, integrals_per_us: float = 1000.0
) -> Instance:
    """HF-like: many small tasks, compute ≫ transfer (times in µs, memory in bytes).

    Modelling assumptions (direct SCF Fock build, one task per shell-quartet
    tile (ab|cd) of the two-electron integrals):

    * the basis functions are grouped in tiles of T ∈ {8, 16, 24, 32, 48}
      functions; the four tiles of a task are drawn independently;
    * the integrals are computed on the device, not copied: the task copies
      and holds the six density/Fock blocks a quartet touches (Coulomb and
      exchange), 8 bytes per entry: m = 8 (T_aT_b + T_cT_d + T_aT_c + T_bT_d
      + T_aT_d + T_bT_c);
    * transfer time = m / 12 GB/s (12,000 bytes/µs), at least 1 µs;
    * compute time = T_aT_bT_cT_d · u / ``integrals_per_us`` with a Schwarz
      screening survival fraction u uniform in [0.05, 1], at least 1 µs.
    """
    n = _check_n(n)
    rng = np.random.default_rng(seed)
    tiles = rng.choice([8, 16, 24, 32, 48], size=(n, 4))
    a, b, c, d = (tiles[:, k].astype(np.int64) for k in range(4))
    memory = 8 * (a * b + c * d + a * c + b * d + a * d + b * c)
    transfer = np.maximum(1, np.ceil(memory / BANDWIDTH_BYTES_PER_US))
    survival = rng.uniform(0.05, 1.0, n)
    compute = np.maximum(1, np.ceil(a * b * c * d * survival / integrals_per_us))
    params = dict(memory_factor=memory_factor, integrals_per_us=integrals_per_us)
    return _build("hf-like", seed, n, params, transfer, compute, memory, "us")


@checked(n=size(MAX_TASKS, "tasks"), flops_per_us=POSITIVE)
def generate_ccsd_like(
    *, seed: int = 0, n: int = 20, memory_factor: Any = 2.0, flops_per_us: float = 1.0e6
) -> Instance:
    """CCSD-like: fewer, large tensor-contraction tasks, transfer ≈ compute (µs, bytes).

    Modelling assumptions (one task per tile contraction C[X,Y] += A[X,Z] B[Z,Y]
    of a CCSD term, the indices X, Y, Z being tiled pair indices):

    * X, Y, Z uniform integers in [500, 2000];
    * the task copies and holds A, B and C in double precision:
      m = 8 (XZ + ZY + XY) bytes (24–96 MB);
    * transfer time = m / 12 GB/s (12,000 bytes/µs);
    * compute time = 2XYZ / ``flops_per_us``, default 10^6 flop/µs = 1 Tflop/s,
      the effective rate of index-permuting contraction kernels (far from
      DGEMM peak), which makes compute and transfer of the same order as in
      the paper's CCSD traces.
    """
    n = _check_n(n)
    rng = np.random.default_rng(seed)
    x, y, z = (rng.integers(500, 2001, n).astype(np.int64) for _ in range(3))
    memory = 8 * (x * z + z * y + x * y)
    transfer = np.maximum(1, np.ceil(memory / BANDWIDTH_BYTES_PER_US))
    compute = np.maximum(1, np.ceil(2 * x * y * z / flops_per_us))
    params = dict(memory_factor=memory_factor, flops_per_us=flops_per_us)
    return _build("ccsd-like", seed, n, params, transfer, compute, memory, "us")


GENERATORS = {
    "uniform": generate_uniform,
    "correlated": generate_correlated,
    "hf-like": generate_hf_like,
    "ccsd-like": generate_ccsd_like,
}

# -- CSV importer -----------------------------------------------------------------
_TIME_FACTORS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}  # in ns
_MEMORY_FACTORS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def _units(first_line: str, file: str) -> tuple[str, str]:
    """``(time unit, memory unit)`` from ``# time_unit=us, memory_unit=MiB``."""
    if not first_line.startswith("#"):
        raise FormatError(f"{file}: line 1: must be a comment with the units, e.g. '# time_unit=us, memory_unit=B'")
    pairs = dict(re.findall(r"(\w+)\s*=\s*([A-Za-z]+)", first_line))
    time_unit = pairs.get("time_unit", pairs.get("time"))
    memory_unit = pairs.get("memory_unit", pairs.get("memory"))
    if time_unit not in _TIME_FACTORS:
        raise FormatError(f"{file}: line 1: time_unit must be one of {', '.join(_TIME_FACTORS)}, got {time_unit!r}")
    if memory_unit not in _MEMORY_FACTORS:
        raise FormatError(
            f"{file}: line 1: memory_unit must be one of {', '.join(_MEMORY_FACTORS)}, got {memory_unit!r}"
        )
    return time_unit, memory_unit


def _scaled(text: str, factor: float, file: str, line: int, column: str, what: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(f"{file}: line {line}: column {column}: not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise FormatError(f"{file}: line {line}: column {column}: must be finite and >= 0, got {text!r}")
    scaled = value * factor
    if abs(scaled - round(scaled)) > 1e-6 * max(1.0, abs(scaled)):
        raise FormatError(
            f"{file}: line {line}: column {column}: {text} is not a whole number of {what}; "
            "import with a finer unit (--option time_unit=ns)"
        )
    return round(scaled)


def _read_lines(path: str | Path, file: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise FormatError(f"{file}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(f"{file}: cannot read: {error}") from None
    if not lines:
        raise FormatError(f"{file}: empty file")
    return lines


@dataclass(frozen=True)
class _CsvTasks:
    """The task columns of a CSV trace, converted to integer times and bytes."""

    names: list[str]
    transfer: list[int]
    compute: list[int]
    memory: list[int]


def _task_rows(lines: list[str], file: str, time_factor: float, time_unit: str, memory_factor: int) -> _CsvTasks:
    """The rows after the header (line 2); blank lines and ``#`` comments are skipped."""
    rows = list(csv.reader(lines[1:]))
    if not rows or [cell.strip() for cell in rows[0]] != ["name", "transfer", "compute", "memory"]:
        raise FormatError(f"{file}: line 2: header must be 'name,transfer,compute,memory'")
    tasks = _CsvTasks([], [], [], [])
    for offset, row in enumerate(rows[1:]):
        line = offset + 3
        if not row or (row[0].startswith("#")):
            continue
        if len(row) != 4:
            raise FormatError(f"{file}: line {line}: expected 4 columns, got {len(row)}")
        tasks.names.append(row[0].strip())
        tasks.transfer.append(_scaled(row[1], time_factor, file, line, "transfer", time_unit))
        tasks.compute.append(_scaled(row[2], time_factor, file, line, "compute", time_unit))
        tasks.memory.append(_scaled(row[3], memory_factor, file, line, "memory", "bytes"))
    if not tasks.names:
        raise FormatError(f"{file}: no task rows")
    return tasks


def import_csv(
    path: str | Path,
    *,
    capacity: int | None = None,
    memory_factor: Any = None,
    time_unit: str | None = None,
    name: str | None = None,
) -> Instance:
    """Read a CSV trace ``name,transfer,compute,memory`` into an Instance.

    The first line is a comment with the units, e.g.
    ``# time_unit=us, memory_unit=MiB``; the second the header. Times are
    converted to ``time_unit`` (default: the file's) and must be whole
    numbers of it; memory is converted to bytes and must be whole bytes.

    Parameters
    ----------
    path
        The CSV file.
    capacity
        Device memory in bytes; or give ``memory_factor`` (capacity =
        ⌈factor · max m⌉, or ``"unlimited"``). One of the two is required.
    time_unit
        Unit of the instance's integer times.
    name
        Instance name (default: the file's stem).
    """
    file = str(path)
    lines = _read_lines(path, file)
    file_time_unit, memory_unit = _units(lines[0], file)
    target_unit = time_unit or file_time_unit
    if target_unit not in _TIME_FACTORS:
        raise FormatError(f"{file}: option time_unit must be one of {', '.join(_TIME_FACTORS)}, got {target_unit!r}")
    time_factor = _TIME_FACTORS[file_time_unit] / _TIME_FACTORS[target_unit]
    tasks = _task_rows(lines, file, time_factor, target_unit, _MEMORY_FACTORS[memory_unit])
    if capacity is None and memory_factor is None:
        raise InvalidInstanceError(
            "capacity", "give the device memory: --option capacity=BYTES or memory_factor=X", file
        )
    if capacity is not None and memory_factor is not None:
        raise InvalidInstanceError("capacity", "give capacity or memory_factor, not both", file)
    try:
        total = capacity if capacity is not None else capacity_for(tasks.memory, memory_factor)
        return Instance.create(
            tasks.transfer,
            tasks.compute,
            tasks.memory,
            total,
            names=tasks.names,
            name=name or Path(path).stem,
            time_unit=target_unit,
            source={
                "importer": "csv",
                "file": Path(path).name,
                "sha256": file_sha256(path),
                "capacity": capacity,
                "memory_factor": memory_factor,
                "time_unit": target_unit,
            },
        )
    except InvalidInstanceError as error:
        raise error.in_file(file) from None
