"""Instance generators (seeded) and importers of real kernel data.

Generators (``hpcsched generate coschedule --family F``):

- ``uniform``: durations uniform in [p_min, p_max]; each pair compatible with
  probability ``density``; rates uniform in [r_min, r_max].
- ``all-ones``: every pair compatible with both rates 1 (the McNaughton class).
- ``sm-model``: synthetic kernels with SM demand q uniform in [1, 2Q] (capped
  at Q) and class memory with probability ``memory_share``, rates by the
  SM-share × memory-contention model below.

Importers (``hpcsched import FORMAT PATH --problem coschedule``); PATH is a
file, a comma-separated list of files, or a folder with ``files=a,b``:

- ``orion``: Orion per-kernel CSVs (V100, 80 SMs); SM demand = SM_usage
  capped at Q; class from Profile; durations in ns.
- ``kineto``: PyTorch profiler Chrome traces (both schemas); SM demand by the
  occupancy calculation below with the trace's deviceProperties; class
  unknown (traces do not classify kernels); ``dur`` µs → integer ns.
- ``gavel``: Gavel job types of one GPU type; rates *measured*:
  r_{i|j} = own co-located throughput / solo throughput.

Orion: each CSV is one application's kernel sequence, kept as a stream
(``data.streams``, one per file, file order); ``n`` takes a seeded window
of consecutive kernels per file, spread evenly over the files, and pairs are
listed only across streams. Kineto kernels are independent (stream order not
kept yet); the importer samples ``n`` kernels with ``seed``, spread evenly
over the traces. Before building pairs, Orion and Gavel importers count them
and refuse above ``max_pairs`` (default 2,000,000, about 1 GB), with the
figures. Orion files whose every duration is <= 7 ns (placeholder
profiles) are refused. Every source file is recorded
in ``source`` with its sha256, with the options and the rate model.

Parameters are checked on entry: a bad one ends in one
`InvalidInstanceError` naming the parameter as the command line spells it
(``sms``, ``min_seconds``; for an importer, after the trace path), never in
an error about a derived ``data`` field or inside numpy. Generators:
``n``, ``p_min`` >= 1 integers, ``p_max`` >= ``p_min``; ``density``,
``memory_share`` in [0, 1]; 0 < ``r_min`` <= ``r_max`` <= 1; ``sms`` >= 1
integer; ``alpha`` >= 0 (a memory-contention factor 1/(1+α) <= 1: rates stay
in (0, 1]); ``seed`` >= 0 (numpy takes no negative seed). Importers: ``n``
>= 1 (or absent: all kernels), ``seed``, ``alpha``, ``sms`` as above;
``files`` a comma-separated string or a list of names; ``name`` a string;
Gavel's ``gpu`` a string, 1 <= ``min_seconds`` <= ``max_seconds`` (job
durations are whole seconds).

Rate model for kernels (no per-kernel pair measurement is public): on a GPU
of Q SMs with demands q_i <= Q, a co-run pair shares the SMs, each kernel
getting share = min(1, Q / (q_i + q_j)) of its demand; when both kernels are
memory-bound their speeds are further divided by 1 + α (α = ``alpha``,
default 1). So r_{i|j} = r_{j|i} = share × (1/(1+α) if both memory-bound).
Every pair is compatible. Rates are rounded to 6 significant digits.

Occupancy calculation (CUDA occupancy rules, simplified): threads per block
rounded up to whole warps; resident blocks per SM = min(32,
maxThreadsPerMultiprocessor / threads, regsPerMultiprocessor / (registers
per thread × threads), sharedMemPerMultiprocessor / shared memory), at least
1; SM demand = min(Q, ceil(blocks / resident blocks per SM)). Register and
shared-memory allocation granularities are ignored. Kernels without launch
fields (the AMD trace) are assumed to saturate the GPU (q = Q) and say so in
their profile.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.fields import LARGEST_INTEGER, require_int, require_number, require_str
from ..core.io import file_sha256
from .model import Instance

DEFAULT_ALPHA = 1.0
MAX_BLOCKS_PER_SM = 32


def _rng(seed: int):
    return np.random.default_rng(seed)


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidInstanceError("n", f"must be a positive integer, got {n!r}")
    return n


def _check_seed(seed: Any) -> int:
    return require_int(seed, "seed", minimum=0)


def _check_durations(p_min: Any, p_max: Any) -> tuple[int, int]:
    p_min = require_int(p_min, "p_min", minimum=1)
    p_max = require_int(p_max, "p_max", minimum=1)
    if p_max < p_min:
        raise InvalidInstanceError("p_max", f"must be >= p_min = {p_min}, got {p_max}")
    return p_min, p_max


def _check_share(value: Any, name: str) -> float:
    return require_number(value, name, minimum=0.0, maximum=1.0)


def _check_alpha(alpha: Any) -> float:
    return require_number(alpha, "alpha", minimum=0.0)


def _check_sms(sms: Any) -> int:
    return require_int(sms, "sms", minimum=1)


def _check_name(name: Any) -> str | None:
    return None if name is None else require_str(name, "name")


def generate_uniform(
    *,
    seed: int = 0,
    n: int = 10,
    p_min: int = 10,
    p_max: int = 100,
    density: float = 1.0,
    r_min: float = 0.5,
    r_max: float = 1.0,
) -> Instance:
    """Random durations and rates (see module doc)."""
    seed, n = _check_seed(seed), _check_n(n)
    p_min, p_max = _check_durations(p_min, p_max)
    r_min = require_number(r_min, "r_min", strictly_positive=True, maximum=1.0)
    r_max = require_number(r_max, "r_max", strictly_positive=True, maximum=1.0)
    if r_max < r_min:
        raise InvalidInstanceError("r_max", f"must be >= r_min = {r_min}, got {r_max}")
    density = _check_share(density, "density")
    rng = _rng(seed)
    durations = [int(v) for v in rng.integers(p_min, p_max + 1, size=n)]
    pairs = []
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < density:
                ra, rb = rng.uniform(r_min, r_max, size=2)
                pairs.append((a, b, round(float(ra), 6), round(float(rb), 6)))
    params = dict(n=n, p_min=p_min, p_max=p_max, density=density, r_min=r_min, r_max=r_max)
    return Instance.create(
        durations, pairs, name=f"uniform-n{n}-s{seed}", source={"generator": "uniform", "seed": seed, "params": params}
    )


def generate_all_ones(*, seed: int = 0, n: int = 10, p_min: int = 10, p_max: int = 100) -> Instance:
    """Every pair compatible with rates 1 (McNaughton class)."""
    seed, n = _check_seed(seed), _check_n(n)
    p_min, p_max = _check_durations(p_min, p_max)
    rng = _rng(seed)
    durations = [int(v) for v in rng.integers(p_min, p_max + 1, size=n)]
    pairs = [(a, b, 1.0, 1.0) for a in range(n) for b in range(a + 1, n)]
    return Instance.create(
        durations,
        pairs,
        name=f"all-ones-n{n}-s{seed}",
        source={"generator": "all-ones", "seed": seed, "params": dict(n=n, p_min=p_min, p_max=p_max)},
    )


def sm_model_rate(q_a: float, q_b: float, class_a: str, class_b: str, sms: int, alpha: float) -> float:
    """Co-run rate of both kernels under the SM-share × memory-contention model."""
    total = min(q_a, sms) + min(q_b, sms)
    share = 1.0 if total <= sms else sms / total
    if class_a == "memory" and class_b == "memory":
        share /= 1.0 + alpha
    return float(f"{share:.6g}")


def _model_pairs(profiles: list[dict], sms: int, alpha: float, groups: list[int] | None = None) -> list[tuple[int, int, float, float]]:
    """Rates of every pair; with ``groups`` (a stream id per kernel), only pairs of different streams."""
    pairs = []
    for a in range(len(profiles)):
        for b in range(a + 1, len(profiles)):
            if groups is not None and groups[a] == groups[b]:
                continue
            rate = sm_model_rate(profiles[a]["sm_demand"], profiles[b]["sm_demand"], profiles[a]["class"], profiles[b]["class"], sms, alpha)
            pairs.append((a, b, rate, rate))
    return pairs


def generate_sm_model(
    *, seed: int = 0, n: int = 10, sms: int = 80, memory_share: float = 0.5, alpha: float = DEFAULT_ALPHA, p_min: int = 10, p_max: int = 100
) -> Instance:
    """Synthetic kernels with rates from the SM-share × memory-contention model."""
    seed, n = _check_seed(seed), _check_n(n)
    p_min, p_max = _check_durations(p_min, p_max)
    sms, alpha = _check_sms(sms), _check_alpha(alpha)
    memory_share = _check_share(memory_share, "memory_share")
    rng = _rng(seed)
    durations = [int(v) for v in rng.integers(p_min, p_max + 1, size=n)]
    profiles = [
        {"sm_demand": int(min(sms, rng.integers(1, 2 * sms + 1))), "class": "memory" if rng.random() < memory_share else "compute"}
        for _ in range(n)
    ]
    params = dict(n=n, sms=sms, memory_share=memory_share, alpha=alpha, p_min=p_min, p_max=p_max)
    return Instance.create(
        durations,
        _model_pairs(profiles, sms, alpha),
        name=f"sm-model-n{n}-s{seed}",
        profiles=profiles,
        gpu={"name": "synthetic", "sms": sms},
        source={"generator": "sm-model", "seed": seed, "params": params, "rate_model": "sm-share x memory-contention", "alpha": alpha},
    )


# -- importers -----------------------------------------------------------------------


def _importer_options(path: str | os.PathLike, check) -> Any:
    """``check()``, with a bad option's error attributed to the trace ``path``."""
    try:
        return check()
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def _check_importer_options(n: Any, seed: Any, alpha: Any, name: Any) -> tuple[int | None, int, float, str | None]:
    n = None if n is None else _check_n(n)
    return n, _check_seed(seed), _check_alpha(alpha), _check_name(name)


def _files(path: str | os.PathLike, files: str | list | None) -> list[Path]:
    text = str(path)
    if files is not None and not (
        isinstance(files, str) or isinstance(files, list) and all(isinstance(name, str) for name in files)
    ):
        raise InvalidInstanceError("files", f"must be comma-separated file names or a list of them, got {files!r}", text)
    if files:
        names = files.split(",") if isinstance(files, str) else list(files)
        return [Path(text) / name.strip() for name in names]
    if "," in text:
        return [Path(p.strip()) for p in text.split(",")]
    if Path(text).is_dir():
        found = sorted(p for p in Path(text).iterdir() if p.is_file() and not p.name.startswith(("LICENSE", "README")))
        if not found:
            raise FormatError(f"{text}: folder holds no trace files")
        return found
    return [Path(text)]


def _sample(groups: list[list[Any]], n: int | None, rng) -> list[tuple[int, Any]]:
    """``n`` items spread evenly over the groups (all when n is None), as (group, item)."""
    if n is None:
        return [(g, item) for g, items in enumerate(groups) for item in items]
    quotas = _quotas(groups, n)
    chosen = []
    for g, items in enumerate(groups):
        picks = rng.choice(len(items), size=quotas[g], replace=False)
        chosen += [(g, items[int(i)]) for i in sorted(picks)]
    return chosen


def _windows(groups: list[list[Any]], n: int | None, rng) -> list[tuple[int, Any]]:
    """``n`` items spread evenly over the groups, a window of *consecutive* items of each group.

    Used where the order within a group is data (a stream): a seeded random
    stretch of each application's kernel sequence, in file order.
    """
    if n is None:
        return [(g, item) for g, items in enumerate(groups) for item in items]
    quotas = _quotas(groups, n)
    chosen = []
    for g, items in enumerate(groups):
        offset = int(rng.integers(0, len(items) - quotas[g] + 1))
        chosen += [(g, item) for item in items[offset : offset + quotas[g]]]
    return chosen


#: Importers refuse instances with more co-run pairs than this (option ``max_pairs`` raises it):
#: each pair costs about `BYTES_PER_PAIR` in memory (records, rate table, JSON), and the exact
#: methods build a row block per pair. 2 million pairs is about 1 GB.
DEFAULT_MAX_PAIRS = 2_000_000
BYTES_PER_PAIR = 500


def check_size(kernels: int, pairs: int, max_pairs: Any, where: str) -> None:
    """Refuse, with the figures, an instance whose pair count is above ``max_pairs``, before building it."""
    limit = require_int(max_pairs, "max_pairs", minimum=0)
    if pairs > limit:
        raise InvalidInstanceError(
            "max_pairs",
            f"{kernels:,} kernels give {pairs:,} co-run pairs (about {pairs * BYTES_PER_PAIR / 1e9:.1f} GB to build), "
            f"above max_pairs = {limit:,}: ask for fewer kernels (option n) or raise max_pairs",
            where,
        )


def _quotas(groups: list[list[Any]], n: int) -> list[int]:
    total = sum(len(items) for items in groups)
    if n > total:
        raise InvalidInstanceError("n", f"asks for {n} kernels but the sources hold {total}")
    quotas = [n // len(groups)] * len(groups)
    for g in range(n - sum(quotas)):
        quotas[g] += 1
    # Move quota from groups too small to the others.
    for g, items in enumerate(groups):
        excess = quotas[g] - len(items)
        if excess > 0:
            quotas[g] = len(items)
            for h in range(len(groups)):
                room = len(groups[h]) - quotas[h]
                take = min(room, excess)
                quotas[h] += take
                excess -= take
    return quotas


def _provenance(files: list[Path]) -> list[dict[str, str]]:
    return [{"file": f.name, "sha256": file_sha256(f)} for f in files]


#: Orion profiles whose every Duration is at most this many ns are placeholders (not measurements).
PLACEHOLDER_NS = 7


def import_orion(
    path: str | os.PathLike,
    *,
    n: int | None = None,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    files: Any = None,
    sms: int = 80,
    name: str | None = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> Instance:
    """Orion per-kernel CSVs → instance with one stream per CSV (SM-share × memory-contention rates).

    Each CSV is one application's kernel sequence, run in order on its own
    stream: the instance keeps it as ``data.streams`` (one stream per file,
    kernels in file order), and pairs are listed only across streams. With
    ``n``, each file contributes a seeded window of consecutive kernels
    (spread evenly over the files). A file whose every Duration is at most
    `PLACEHOLDER_NS` ns is a placeholder profile and is refused, naming it.
    The pair count is computed before any pair is built and refused above
    ``max_pairs`` (`check_size`).
    """
    from ..traces.orion import read_orion_csv

    n, seed, alpha, name = _importer_options(path, lambda: _check_importer_options(n, seed, alpha, name))
    sms = _importer_options(path, lambda: _check_sms(sms))
    paths = _files(path, files)
    groups = []
    for p in paths:
        kernels = list(read_orion_csv(p))
        if not kernels:
            raise FormatError(f"{p}: no kernel rows")
        longest = max(kernel.duration_ns for kernel in kernels)
        if longest <= PLACEHOLDER_NS:
            raise FormatError(
                f"{p}: every Duration is <= {PLACEHOLDER_NS} ns (longest {longest} ns over {len(kernels)} kernels): "
                "a placeholder profile, not measured kernel times; refused"
            )
        groups.append(kernels)
    rng = _rng(seed)
    chosen = _importer_options(path, lambda: _windows(groups, n, rng))
    sizes = [sum(1 for g, _ in chosen if g == group) for group in range(len(groups))]
    cross_pairs = (sum(sizes) ** 2 - sum(size**2 for size in sizes)) // 2
    _importer_options(path, lambda: check_size(len(chosen), cross_pairs, max_pairs, str(path)))
    durations, names, profiles, streams = [], [], [], [[] for _ in paths]
    for index, (g, kernel) in enumerate(chosen):
        streams[g].append(index)
        durations.append(max(1, kernel.duration_ns))
        names.append(f"{paths[g].stem}:{kernel.name}")
        profiles.append(
            {
                "app": paths[g].stem,
                "sm_demand": min(kernel.sm_usage, sms),
                "sm_usage_raw": kernel.sm_usage,
                "class": kernel.kernel_class,
                "memory_footprint": kernel.memory_footprint,
            }
        )
    pairs = [
        pair for pair in _model_pairs(profiles, sms, alpha, groups=[g for g, _ in chosen])
    ]
    options = dict(n=n, seed=seed, alpha=alpha, sms=sms)
    return Instance.create(
        durations,
        pairs,
        name=name or f"orion-{'+'.join(p.stem for p in paths)}-n{len(durations)}-s{seed}",
        names=names,
        profiles=profiles,
        gpu={"name": "Tesla V100-16GB", "sms": sms},
        time_unit="ns",
        streams=[stream for stream in streams if stream],
        source={
            "importer": "orion",
            "files": _provenance(paths),
            "options": options,
            "rate_model": "sm-share x memory-contention",
            "alpha": alpha,
            "streams": "one stream per CSV file (application), kernels in file order; with n, a seeded window of consecutive kernels per file; pairs only across streams",
            "note": "durations of 0 ns are raised to 1 ns",
        },
    )


def occupancy_sm_demand(record: Any, props: dict[str, Any], sms: int) -> int | None:
    """SMs a kernel occupies by the occupancy calculation (module doc); None without launch fields."""
    threads, blocks = record.threads_per_block, record.blocks
    if not threads or not blocks:
        return None
    warp = int(props.get("warpSize") or 32)
    threads = math.ceil(threads / warp) * warp
    limits = [MAX_BLOCKS_PER_SM, int(props.get("maxThreadsPerMultiprocessor") or 2048) // threads]
    regs_sm = props.get("regsPerMultiprocessor") or props.get("regsPerBlock")
    if record.registers_per_thread and regs_sm:
        limits.append(int(regs_sm) // (record.registers_per_thread * threads))
    smem_sm = props.get("sharedMemPerMultiprocessor") or props.get("maxSharedMemoryPerMultiProcessor")
    if record.shared_memory and smem_sm:
        limits.append(int(smem_sm) // record.shared_memory)
    per_sm = max(1, min(limits))
    return int(min(sms, math.ceil(blocks / per_sm)))


def import_kineto(
    path: str | os.PathLike,
    *,
    n: int | None = None,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    files: Any = None,
    name: str | None = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> Instance:
    """PyTorch profiler traces → instance (occupancy SM demand, SM-share rates).

    The pair count is checked against ``max_pairs`` before any pair is built.
    """
    from ..traces.chrome_trace import read_chrome_trace

    n, seed, alpha, name = _importer_options(path, lambda: _check_importer_options(n, seed, alpha, name))
    paths = _files(path, files)
    traces = [read_chrome_trace(p) for p in paths]
    sm_counts = set()
    for trace in traces:
        if not trace.kernels:
            raise FormatError(f"{trace.path}: no kernel events")
        if not trace.device_properties:
            raise FormatError(f"{trace.path}: no deviceProperties (needed for the occupancy calculation)")
        sm_counts.add(int(trace.device_properties[0].get("numSms", 0)))
    if len(sm_counts) != 1 or 0 in sm_counts:
        raise FormatError(f"{path}: traces come from GPUs with different or unknown SM counts {sorted(sm_counts)}; co-locate traces of one GPU model")
    sms = sm_counts.pop()
    rng = _rng(seed)
    chosen = _importer_options(path, lambda: _sample([list(t.kernels) for t in traces], n, rng))
    _importer_options(path, lambda: check_size(len(chosen), len(chosen) * (len(chosen) - 1) // 2, max_pairs, str(path)))
    durations, names, profiles = [], [], []
    for g, record in chosen:
        props = traces[g].device(record.device) or traces[g].device_properties[0]
        demand = occupancy_sm_demand(record, props, sms)
        profile: dict[str, Any] = {"app": paths[g].name.split(".")[0], "class": "unknown", "stream": record.stream}
        if demand is None:
            profile["sm_demand"] = sms
            profile["sm_demand_assumed"] = "no launch fields in the trace: assumed to saturate the GPU"
        else:
            profile.update(
                sm_demand=demand,
                grid=list(record.grid),
                block=list(record.block),
                registers=record.registers_per_thread or 0,
                shared_memory=record.shared_memory or 0,
            )
        durations.append(max(1, round(record.duration_us * 1000)))
        names.append(record.name[:80])
        profiles.append(profile)
    return Instance.create(
        durations,
        _model_pairs(profiles, sms, alpha),
        name=name or f"kineto-{'+'.join(p.name.split('.')[0] for p in paths)}-n{len(durations)}-s{seed}",
        names=names,
        profiles=profiles,
        gpu={"name": str(traces[0].device_properties[0].get("name", "unknown")), "sms": sms},
        time_unit="ns",
        source={
            "importer": "kineto",
            "files": _provenance(paths),
            "schemas": [t.schema for t in traces],
            "options": dict(n=n, seed=seed, alpha=alpha),
            "rate_model": "sm-share x memory-contention (occupancy SM demand; classes unknown, so no memory factor)",
            "alpha": alpha,
            "note": "dur in us converted to integer ns (at least 1)",
        },
    )


def import_gavel(
    path: str | os.PathLike,
    *,
    n: int = 10,
    seed: int = 0,
    gpu: str = "v100",
    min_seconds: float = 300.0,
    max_seconds: float = 10800.0,
    name: str | None = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> Instance:
    """Gavel job mix → instance with measured co-location rates.

    Jobs draw a job type (scale factor 1) uniformly and a solo duration
    log-uniform in [min_seconds, max_seconds] (Gavel gives throughputs, not
    job lengths: the durations are synthetic, the rates are measured). Rates
    above 1 (measurement noise) are clipped to 1; pairs with a zero
    throughput are incompatible.
    """
    from ..traces.gavel import read_gavel

    def check():
        _, checked_seed, _, checked_name = _check_importer_options(None, seed, DEFAULT_ALPHA, name)
        low = require_number(min_seconds, "min_seconds", minimum=1.0, maximum=float(LARGEST_INTEGER))
        high = require_number(max_seconds, "max_seconds", minimum=1.0, maximum=float(LARGEST_INTEGER))
        if high < low:
            raise InvalidInstanceError("max_seconds", f"must be >= min_seconds = {low:g}, got {high:g}")
        return _check_n(n), checked_seed, require_str(gpu, "gpu"), low, high, checked_name

    n, seed, gpu, min_seconds, max_seconds, name = _importer_options(path, check)
    # Every pair of jobs may be measured: refuse before drawing or building anything.
    _importer_options(path, lambda: check_size(n, n * (n - 1) // 2, max_pairs, str(path)))
    table = read_gavel(path, gpu)
    types = [t for t in table.job_types(1) if table.solo[t] > 0]
    if not types:
        raise FormatError(f"{path}: no job type with a positive solo throughput on {gpu}")
    rng = _rng(seed)
    jobs = [types[int(i)] for i in rng.integers(0, len(types), size=n)]
    durations = [int(round(math.exp(rng.uniform(math.log(min_seconds), math.log(max_seconds))))) for _ in range(n)]
    pairs, clipped, missing = [], 0, 0
    for a in range(n):
        for b in range(a + 1, n):
            measured = table.pairs.get((jobs[a], jobs[b]))
            if measured is None:
                missing += 1
                continue
            rate_a, rate_b = measured[0] / table.solo[jobs[a]], measured[1] / table.solo[jobs[b]]
            if rate_a <= 0 or rate_b <= 0:
                continue
            clipped += (rate_a > 1) + (rate_b > 1)
            pairs.append((a, b, float(f"{min(1.0, rate_a):.6g}"), float(f"{min(1.0, rate_b):.6g}")))
    return Instance.create(
        durations,
        pairs,
        name=name or f"gavel-{gpu}-n{n}-s{seed}",
        names=[f"job{k}:{jobs[k]}" for k in range(n)],
        profiles=[{"job_type": jobs[k], "solo_throughput": table.solo[jobs[k]]} for k in range(n)],
        gpu={"name": gpu},
        time_unit="s",
        source={
            "importer": "gavel",
            "files": _provenance([Path(path)]),
            "options": dict(n=n, seed=seed, gpu=gpu, min_seconds=min_seconds, max_seconds=max_seconds),
            "rate_model": "measured: pair throughput / solo throughput (Gavel)",
            "rates_clipped_to_1": clipped,
            "pairs_without_measurement": missing,
            "note": "job durations are synthetic (log-uniform), rates measured",
        },
    )
