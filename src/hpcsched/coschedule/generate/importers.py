"""Importers of real kernel data (``hpcsched import FORMAT PATH --problem coschedule``).

- ``orion``: Orion per-kernel CSVs (V100, 80 SMs); SM demand = SM_usage
  capped at Q; class from Profile; durations in ns. Each CSV is one
  application's kernel sequence, kept as a stream (``data.streams``, one per
  file, file order); ``n`` takes a seeded window of consecutive kernels per
  file, spread evenly over the files; pairs are listed only across streams.
  Files whose every duration is <= 7 ns (placeholder profiles) are refused.
- ``kineto``: PyTorch profiler Chrome traces (both schemas); SM demand by the
  occupancy calculation (`occupancy_sm_demand`) with the trace's
  deviceProperties; class unknown; ``dur`` µs → integer ns. The importer
  samples ``n`` kernels with ``seed``, spread evenly over the traces, and
  keeps their CUDA streams: one stream per (trace, device, stream), its
  kernels in timestamp order (`kineto_streams`); pairs only across streams.
- ``gavel``: Gavel job types of one GPU type; rates *measured*:
  r_{i|j} = own co-located throughput / solo throughput.

Every source file is recorded in ``source`` with its sha256, with the
options and the rate model. Options are checked on entry (a bad one names
itself, after the trace path): ``n`` >= 1 (or absent: all kernels),
``seed``, ``alpha``, ``sms`` as for the generators; ``files`` a
comma-separated string or a list of names; ``name`` a string; Gavel's
``gpu`` a string, 1 <= ``min_seconds`` <= ``max_seconds``.

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

from ...core.errors import FormatError, InvalidInstanceError
from ...core.fields import LARGEST_INTEGER, require_number, require_str
from ...traces.chrome_trace import ChromeTrace, KernelRecord, read_chrome_trace
from ...traces.gavel import read_gavel
from ...traces.orion import read_orion_csv
from ..model import Instance
from .sampling import (
    DEFAULT_MAX_PAIRS,
    check_size,
    checked_importer_options,
    importer_options,
    provenance,
    sample,
    trace_paths,
    windows,
)
from .synthetic import DEFAULT_ALPHA, check_n, check_sms, model_pairs, new_rng

MAX_BLOCKS_PER_SM = 32


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
    n, seed, alpha, name = importer_options(path, lambda: checked_importer_options(n, seed, alpha, name))
    sms = importer_options(path, lambda: check_sms(sms))
    paths = trace_paths(path, files)
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
    rng = new_rng(seed)
    chosen = importer_options(path, lambda: windows(groups, n, rng))
    sizes = [sum(1 for g, _ in chosen if g == group) for group in range(len(groups))]
    cross_pairs = (sum(sizes) ** 2 - sum(size**2 for size in sizes)) // 2
    importer_options(path, lambda: check_size(len(chosen), cross_pairs, max_pairs, str(path)))
    durations: list[int] = []
    names: list[str] = []
    profiles: list[dict[str, Any]] = []
    streams: list[list[int]] = [[] for _ in paths]
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
    pairs = [pair for pair in model_pairs(profiles, sms, alpha, groups=[g for g, _ in chosen])]
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
            "files": provenance(paths),
            "options": options,
            "rate_model": "sm-share x memory-contention",
            "alpha": alpha,
            "streams": "one stream per CSV file (application), kernels in file order; "
            "with n, a seeded window of consecutive kernels per file; pairs only across streams",
            "note": "durations of 0 ns are raised to 1 ns",
        },
    )


def occupancy_sm_demand(record: KernelRecord, props: dict[str, Any], sms: int) -> int | None:
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
    """PyTorch profiler traces → instance (occupancy SM demand, SM-share rates, CUDA streams kept).

    The pair count (pairs across streams) is checked against ``max_pairs``
    before any pair is built.
    """
    n, seed, alpha, name = importer_options(path, lambda: checked_importer_options(n, seed, alpha, name))
    paths = trace_paths(path, files)
    traces = [read_chrome_trace(p) for p in paths]
    sms = _common_sm_count(traces, path)
    rng = new_rng(seed)
    chosen = importer_options(path, lambda: sample([list(t.kernels) for t in traces], n, rng))
    streams, groups = kineto_streams(chosen)
    sizes = [groups.count(g) for g in set(groups)]
    cross_pairs = (len(chosen) ** 2 - sum(size**2 for size in sizes)) // 2
    importer_options(path, lambda: check_size(len(chosen), cross_pairs, max_pairs, str(path)))
    profiles = [_kineto_profile(record, traces[g], paths[g], sms) for g, record in chosen]
    return Instance.create(
        [max(1, round(record.duration_us * 1000)) for _, record in chosen],
        model_pairs(profiles, sms, alpha, groups=groups),
        name=name or f"kineto-{'+'.join(p.name.split('.')[0] for p in paths)}-n{len(chosen)}-s{seed}",
        names=[record.name[:80] for _, record in chosen],
        profiles=profiles,
        gpu={"name": str(traces[0].device_properties[0].get("name", "unknown")), "sms": sms},
        time_unit="ns",
        streams=streams,
        source={
            "importer": "kineto",
            "files": provenance(paths),
            "schemas": [t.schema for t in traces],
            "options": dict(n=n, seed=seed, alpha=alpha),
            "rate_model": "sm-share x memory-contention (occupancy SM demand; classes unknown, so no memory factor)",
            "alpha": alpha,
            "streams": "one stream per (trace file, device, CUDA stream), the sampled kernels in timestamp order; "
            "pairs only across streams",
            "note": "dur in us converted to integer ns (at least 1)",
        },
    )


def _common_sm_count(traces: list[ChromeTrace], path: str | os.PathLike) -> int:
    """The SM count of the traces' GPU (all traces must come from one GPU model)."""
    sm_counts = set()
    for trace in traces:
        if not trace.kernels:
            raise FormatError(f"{trace.path}: no kernel events")
        if not trace.device_properties:
            raise FormatError(f"{trace.path}: no deviceProperties (needed for the occupancy calculation)")
        sm_counts.add(int(trace.device_properties[0].get("numSms", 0)))
    if len(sm_counts) != 1 or 0 in sm_counts:
        raise FormatError(
            f"{path}: traces come from GPUs with different or unknown SM counts {sorted(sm_counts)}; "
            "co-locate traces of one GPU model"
        )
    return sm_counts.pop()


def _kineto_profile(record: KernelRecord, trace: ChromeTrace, path: Path, sms: int) -> dict[str, Any]:
    props = trace.device(record.device) or trace.device_properties[0]
    demand = occupancy_sm_demand(record, props, sms)
    profile: dict[str, Any] = {"app": path.name.split(".")[0], "class": "unknown", "stream": record.stream}
    if demand is None or record.grid is None or record.block is None:
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
    return profile


def kineto_streams(chosen: list[tuple[int, KernelRecord]]) -> tuple[list[list[int]], list[int]]:
    """The CUDA streams of the chosen kernels, and a pair group per kernel.

    A stream is the chosen kernels of one (trace, device, stream), in
    timestamp order (ties by position); streams of one kernel are left out
    (they order nothing). Kernels without a stream, or alone in theirs, get
    a group of their own: pairs are listed only across groups.
    """
    members: dict[tuple[int, int | None, int], list[int]] = {}
    for index, (trace, record) in enumerate(chosen):
        if record.stream is not None:
            members.setdefault((trace, record.device, record.stream), []).append(index)
    streams = [
        sorted(kernels, key=lambda k: (chosen[k][1].start_us, k)) for kernels in members.values() if len(kernels) > 1
    ]
    groups = list(range(len(streams), len(streams) + len(chosen)))
    for s, stream in enumerate(streams):
        for k in stream:
            groups[k] = s
    return streams, groups


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

    def check():
        _, checked_seed, _, checked_name = checked_importer_options(None, seed, DEFAULT_ALPHA, name)
        low = require_number(min_seconds, "min_seconds", minimum=1.0, maximum=float(LARGEST_INTEGER))
        high = require_number(max_seconds, "max_seconds", minimum=1.0, maximum=float(LARGEST_INTEGER))
        if high < low:
            raise InvalidInstanceError("max_seconds", f"must be >= min_seconds = {low:g}, got {high:g}")
        return check_n(n), checked_seed, require_str(gpu, "gpu"), low, high, checked_name

    n, seed, gpu, min_seconds, max_seconds, name = importer_options(path, check)
    # Every pair of jobs may be measured: refuse before drawing or building anything.
    importer_options(path, lambda: check_size(n, n * (n - 1) // 2, max_pairs, str(path)))
    table = read_gavel(path, gpu)
    types = [t for t in table.job_types(1) if table.solo[t] > 0]
    if not types:
        raise FormatError(f"{path}: no job type with a positive solo throughput on {gpu}")
    rng = new_rng(seed)
    jobs = [types[int(i)] for i in rng.integers(0, len(types), size=n)]
    durations = [round(math.exp(rng.uniform(math.log(min_seconds), math.log(max_seconds)))) for _ in range(n)]
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
            "files": provenance([Path(path)]),
            "options": dict(n=n, seed=seed, gpu=gpu, min_seconds=min_seconds, max_seconds=max_seconds),
            "rate_model": "measured: pair throughput / solo throughput (Gavel)",
            "rates_clipped_to_1": clipped,
            "pairs_without_measurement": missing,
            "note": "job durations are synthetic (log-uniform), rates measured",
        },
    )
