"""Importer of the hetero_swf task files and seeded generators of hetero instances.

Importer
--------
`import_swf` reads ``formatedTasks_2/<app>/<app>-<block>-<tiles>.txt`` of
marcosamaris/heterogeneous-SWF (Amaris, Lucarelli, Mommessin, Trystram,
CCPE 2019, e4647): one line per task ``id cpu_time gpu_time [pred,pred,...]``,
``-1`` = cannot run there. Measured on 10 Xeon E7 v2 cores and 4 Tesla K20
GPUs with StarPU/Chameleon, hence the default platform ``cpus=10, gpus=4``.
Source notes: the times are *probably* milliseconds (the data README says
so; the upstream README gives no unit); they are rounded to integer
microseconds (``time_unit = "us"``, at most 0.5 us off per task), and the
traces carry no communication costs (c_uv = 0, the survey's base model).

Generators (``numpy.random.default_rng(seed)`` only)
---------------------------------------------------
* `generate_layered`: random layered DAG;
* `generate_fork_join`: ``phases`` fork-join phases of ``width`` parallel tasks;
* `generate_cholesky`: the tiled Cholesky DAG (POTRF, TRSM, SYRK, GEMM)
  with the kernel-time model `CHOLESKY_KERNELS_US`;
* `generate_heteroprio_trap`: our adversarial family for HeteroPrio (see
  its docstring: it is *not* the construction of the IPDPS 2020 paper).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.io import file_sha256
from .model import Instance

#: Per-kernel times in integer microseconds (CPU core, K20 GPU) for 960 x 960 single-precision tiles.
#: Source: the first task of each kernel in hetero_swf spotrf-960-5 (measured by Amaris et al.
#: with StarPU/Chameleon): POTRF 14.133 ms on a CPU, no GPU version in the trace; TRSM 31.827 /
#: 3.193 ms; SYRK 25.619 / 0.746 ms; GEMM 44.315 / 1.054 ms.
CHOLESKY_KERNELS_US = {"potrf": (14133, None), "trsm": (31827, 3193), "syrk": (25619, 746), "gemm": (44315, 1054)}

MAX_GENERATED_TASKS = 1_000_000


def _positive_int(value: Any, field: str, minimum: int = 1, maximum: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        limit = f" and <= {maximum}" if maximum is not None else ""
        raise InvalidInstanceError(field, f"must be an integer >= {minimum}{limit}, got {value!r}")
    return value


def import_swf(path: str | Path, *, cpus: int = 10, gpus: int = 4, comm: int = 0) -> Instance:
    """The task graph of one hetero_swf file on ``cpus`` CPUs and ``gpus`` GPUs (see the module docstring).

    ``comm``: a uniform c_uv (us) put on every edge (default 0: the traces have none).
    """
    path = Path(path)
    cpus = _positive_int(cpus, "options.cpus", 0)
    gpus = _positive_int(gpus, "options.gpus", 0)
    comm = _positive_int(comm, "options.comm", 0)
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    tasks: list[dict[str, Any]] = []
    raw_edges: list[tuple[str, str, int]] = []
    ids: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 3:
            raise FormatError(f"{path}:{number}: expected 'id cpu_time gpu_time [preds]', got {line!r}")
        try:
            times = [float(fields[1]), float(fields[2])]
        except ValueError:
            raise FormatError(f"{path}:{number}: times must be numbers, got {fields[1]!r} {fields[2]!r}") from None
        converted: list[int | None] = []
        for value, label in zip(times, ("cpu", "gpu"), strict=True):
            if value == -1:
                converted.append(None)
            elif not (value >= 0 and value < 1e12):
                raise FormatError(f"{path}:{number}: {label} time must be >= 0 or -1, got {value}")
            else:
                converted.append(round(value * 1000))
        if fields[0] in ids:
            raise FormatError(f"{path}:{number}: duplicate task id {fields[0]!r}")
        ids[fields[0]] = len(tasks)
        tasks.append({"name": fields[0], "cpu": converted[0], "gpu": converted[1]})
        # The join lines of the forkJoin files split their predecessor list with a space
        # ("102 t t 2 3,4,...,101"): every field after the third is read as predecessors.
        for field in fields[3:]:
            raw_edges += [(pred, fields[0], number) for pred in field.split(",") if pred]
    if not tasks:
        raise FormatError(f"{path}: no task")
    edges = []
    for pred, succ, number in raw_edges:
        if pred not in ids:
            raise FormatError(f"{path}:{number}: predecessor {pred!r} of task {succ!r} is not a task of the file")
        edges.append([pred, succ, comm] if comm else [pred, succ])
    source = {
        "importer": "hetero_swf",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"cpus": cpus, "gpus": gpus, "comm": comm},
        "citation": "marcosamaris/heterogeneous-SWF; Amaris, Lucarelli, Mommessin, Trystram, CCPE 2019, e4647",
        "notes": [
            "times read as milliseconds (probable unit) and rounded to integer microseconds",
            "measured platform: 10 CPU cores, 4 Tesla K20 GPUs (StarPU/Chameleon)",
            "fields after the third are all predecessor lists (forkJoin join lines split theirs with a space)",
            "no communication costs in the trace"
            + (f"; c_uv = {comm} us put on every edge" if comm else " (c_uv = 0)"),
        ],
    }
    try:
        return Instance.from_data(
            {"cpus": cpus, "gpus": gpus, "tasks": tasks, "edges": edges}, name=path.stem, time_unit="us", source=source
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def import_dnn(
    path: str | Path, *, cpus: int | None = None, gpus: int | None = None, scale: int = 1000, comm: bool = True
) -> Instance:
    """A dnn_partitioning graph (msr-fiddle/dnn-partitioning, NeurIPS 2020) as the uniform-acceleration case.

    Nodes give ``cpuLatency`` and ``fpgaLatency`` (the accelerator, read as
    the GPU time); CPU time is a constant multiple of it in every file (10
    for the layer graphs, 23 for the operator graphs): Q|prec|Cmax with two
    speeds. Times and edge ``cost`` (the transfer time, charged here when
    the endpoints run on different types) are multiplied by ``scale`` and
    rounded to integers (the unit is not stated in the files); when the
    file's ratio is one integer r, the CPU time is set to exactly r x the
    rounded GPU time so that the acceleration stays uniform after rounding.
    Nodes with ``supportedOnFpga`` false get no GPU time. ``cpus`` and
    ``gpus`` default to the file's ``maxCPUs`` and ``maxFPGAs``. Memory
    (``size``, ``maxSizePerFPGA``) and colocation (``colorClass``) are not
    part of this problem and are dropped (the partition problem uses them).
    """
    path = Path(path)
    scale = _positive_int(scale, "options.scale", 1)
    document = _read_dnn_document(path)
    cpus = _positive_int(document.get("maxCPUs", 1) if cpus is None else cpus, "options.cpus", 0)
    gpus = _positive_int(document.get("maxFPGAs", 1) if gpus is None else gpus, "options.gpus", 0)
    nodes = document["nodes"]
    if not isinstance(nodes, list) or not all(isinstance(n, dict) for n in nodes):
        raise FormatError(f"{path}: nodes must be a list of objects")
    ratio = _integer_ratio(nodes)
    tasks, index = _dnn_tasks(path, nodes, scale, ratio)
    edges = _dnn_edges(path, document["edges"], tasks, index, scale if comm else 0)
    source = {
        "importer": "dnn_partitioning",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"cpus": cpus, "gpus": gpus, "scale": scale, "comm": comm},
        "citation": "msr-fiddle/dnn-partitioning (MIT), Tarnawski et al., NeurIPS 2020",
        "notes": [
            f"times and costs x {scale}, rounded to integers (the files state no unit)",
            (
                f"uniform acceleration: CPU time = {ratio} x GPU time (kept exact after rounding)"
                if ratio is not None
                else "CPU/accelerator ratio not one integer: times rounded separately"
            ),
            "fpgaLatency read as the GPU time; size, maxSizePerFPGA and colorClass dropped",
        ],
    }
    try:
        return Instance.from_data(
            {"cpus": cpus, "gpus": gpus, "tasks": tasks, "edges": edges}, name=path.stem, time_unit=None, source=source
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def _read_dnn_document(path: Path) -> dict[str, Any]:
    """The parsed JSON of a dnn_partitioning graph (an object with ``nodes`` and ``edges``)."""
    import json

    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise FormatError(f"{path}: cannot read as JSON ({error})") from None
    if not isinstance(document, dict) or "nodes" not in document or "edges" not in document:
        raise FormatError(f"{path}: not a dnn_partitioning graph (no nodes/edges)")
    return document


def _integer_ratio(nodes: list[dict[str, Any]]) -> int | None:
    """The file's CPU/accelerator time ratio when all accelerated nodes share one integer ratio (else None)."""
    ratios = set()
    for n in nodes:
        cpu_time, gpu_time = n.get("cpuLatency"), n.get("fpgaLatency")
        if (
            n.get("supportedOnFpga", True)
            and isinstance(cpu_time, (int, float))
            and isinstance(gpu_time, (int, float))
            and gpu_time > 0
        ):
            ratios.add(round(cpu_time / gpu_time, 6))
    ratio = ratios.pop() if len(ratios) == 1 else None
    return int(ratio) if ratio is not None and float(ratio).is_integer() else None


def _dnn_tasks(
    path: Path, nodes: list[dict[str, Any]], scale: int, ratio: int | None
) -> tuple[list[dict[str, Any]], dict[Any, int]]:
    """The task records of the nodes, and node id -> position."""
    tasks: list[dict[str, Any]] = []
    index: dict[Any, int] = {}
    for position, node in enumerate(nodes):
        try:
            gpu = round(node["fpgaLatency"] * scale) if node.get("supportedOnFpga", True) else None
            cpu = ratio * gpu if ratio is not None and gpu is not None else round(node["cpuLatency"] * scale)
            index[node["id"]] = position
            tasks.append({"name": f"{node['id']}:{node['name']}", "cpu": cpu, "gpu": gpu})
        except (KeyError, TypeError) as error:
            raise FormatError(f"{path}: nodes[{position}]: {error!r} missing or not a number") from None
    return tasks, index


def _dnn_edges(
    path: Path, raw_edges: Any, tasks: list[dict[str, Any]], index: dict[Any, int], cost_scale: int
) -> list[list[Any]]:
    """The edges by task name, with their cost x ``cost_scale`` when not 0 (0: communication ignored)."""
    edges = []
    for position, edge in enumerate(raw_edges):
        try:
            u, v = tasks[index[edge["sourceId"]]]["name"], tasks[index[edge["destId"]]]["name"]
            cost = round(edge.get("cost", 0) * cost_scale) if cost_scale else 0
        except (KeyError, TypeError) as error:
            raise FormatError(f"{path}: edges[{position}]: {error!r} missing or unknown") from None
        edges.append([u, v, cost] if cost else [u, v])
    return edges


def _times(
    rng: np.random.Generator, count: int, mean_cpu: float, acceleration: tuple[float, float]
) -> tuple[list, list]:
    cpu = np.maximum(1, rng.exponential(mean_cpu, count).round()).astype(int)
    factor = np.exp(rng.uniform(np.log(acceleration[0]), np.log(acceleration[1]), count))
    gpu = np.maximum(1, (cpu / factor).round()).astype(int)
    return [int(x) for x in cpu], [int(x) for x in gpu]


def generate_layered(
    *,
    seed: int = 0,
    n: int = 30,
    layers: int = 5,
    edge_probability: float = 0.3,
    cpus: int = 4,
    gpus: int = 2,
    mean_cpu: int = 50,
    min_acceleration: float = 0.5,
    max_acceleration: float = 30.0,
) -> Instance:
    """Random layered DAG: n tasks over ``layers`` layers, each edge between consecutive layers with probability p.

    CPU times exponential with mean ``mean_cpu`` (at least 1); GPU time =
    CPU time / a log-uniform acceleration in [min, max] (at least 1).
    """
    n = _positive_int(n, "n", 1, MAX_GENERATED_TASKS)
    layers = _positive_int(layers, "layers", 1, n)
    if not 0 <= edge_probability <= 1:
        raise InvalidInstanceError("edge_probability", f"must be in [0, 1], got {edge_probability!r}")
    if not 0 < min_acceleration <= max_acceleration:
        raise InvalidInstanceError("min_acceleration", "must be > 0 and <= max_acceleration")
    rng = np.random.default_rng(seed)
    layer_of = np.sort(rng.integers(0, layers, n))
    cpu, gpu = _times(rng, n, mean_cpu, (min_acceleration, max_acceleration))
    members = [np.flatnonzero(layer_of == layer) for layer in range(layers)]
    edges = []
    for layer in range(1, layers):
        chosen = rng.random((len(members[layer]), len(members[layer - 1]))) < edge_probability
        for row, column in zip(*np.nonzero(chosen), strict=True):
            edges.append((int(members[layer - 1][column]), int(members[layer][row])))
    source = {
        "generator": "layered",
        "seed": seed,
        "parameters": {
            "n": n,
            "layers": layers,
            "edge_probability": edge_probability,
            "mean_cpu": mean_cpu,
            "min_acceleration": min_acceleration,
            "max_acceleration": max_acceleration,
        },
    }
    return Instance.create(cpu, gpu, edges, cpus=cpus, gpus=gpus, name=f"layered-n{n}-s{seed}", source=source)


def generate_fork_join(
    *,
    seed: int = 0,
    phases: int = 2,
    width: int = 10,
    cpus: int = 4,
    gpus: int = 2,
    mean_cpu: int = 50,
    min_acceleration: float = 0.5,
    max_acceleration: float = 30.0,
) -> Instance:
    """``phases`` times: a fork task, ``width`` parallel tasks, a join task (the join starts the next phase).

    Same time model as `generate_layered`; ``phases·(width + 1) + 1`` tasks,
    the shape of the GGen fork-join graphs of hetero_swf.
    """
    phases = _positive_int(phases, "phases", 1)
    width = _positive_int(width, "width", 1)
    if phases * (width + 1) + 1 > MAX_GENERATED_TASKS:
        raise InvalidInstanceError("width", f"at most {MAX_GENERATED_TASKS} tasks")
    rng = np.random.default_rng(seed)
    n = phases * (width + 1) + 1
    cpu, gpu = _times(rng, n, mean_cpu, (min_acceleration, max_acceleration))
    edges, fork = [], 0
    for _phase in range(phases):
        join = fork + width + 1
        for i in range(1, width + 1):
            edges += [(fork, fork + i), (fork + i, join)]
        fork = join
    source = {"generator": "fork-join", "seed": seed, "parameters": {"phases": phases, "width": width}}
    return Instance.create(
        cpu, gpu, edges, cpus=cpus, gpus=gpus, name=f"forkjoin-{phases}x{width}-s{seed}", source=source
    )


def generate_cholesky(*, seed: int = 0, tiles: int = 5, cpus: int = 10, gpus: int = 4, noise: float = 0.0) -> Instance:
    """The tiled Cholesky DAG of a ``tiles x tiles`` matrix with the kernel model `CHOLESKY_KERNELS_US`.

    Right-looking: for k: POTRF(k); TRSM(i,k) for i > k after POTRF(k);
    SYRK(i,k) after TRSM(i,k); GEMM(i,j,k) (i > j > k) after TRSM(i,k) and
    TRSM(j,k); each kernel also waits for the previous update of its tile
    (POTRF(k) after SYRK(k,k-1), TRSM(i,k) after GEMM(i,k,k-1), SYRK(i,k)
    after SYRK(i,k-1), GEMM(i,j,k) after GEMM(i,j,k-1)). ``noise``:
    multiplicative log-normal noise (sigma) on every time (0: the model as
    is). n = T(T+1)(T+2)/6 tasks (35 for T = 5, as spotrf-*-5).
    """
    tiles = _positive_int(tiles, "tiles", 1, 150)
    if not 0 <= noise <= 2:
        raise InvalidInstanceError("noise", f"must be in [0, 2], got {noise!r}")
    rng = np.random.default_rng(seed)
    names: list[str] = []
    cpu: list[int] = []
    gpu: list[int | None] = []
    index: dict[tuple, int] = {}
    edges: list[tuple[int, int]] = []

    def task(key, kernel):
        base_cpu, base_gpu = CHOLESKY_KERNELS_US[kernel]
        scale = float(np.exp(rng.normal(0, noise))) if noise else 1.0
        index[key] = len(names)
        names.append("_".join(str(part) for part in key))
        cpu.append(max(1, round(base_cpu * scale)))
        gpu.append(None if base_gpu is None else max(1, round(base_gpu * scale)))

    def edge(before, after):
        if before in index:
            edges.append((index[before], index[after]))

    for k in range(tiles):
        task(("potrf", k), "potrf")
        edge(("syrk", k, k - 1), ("potrf", k))
        for i in range(k + 1, tiles):
            task(("trsm", i, k), "trsm")
            edge(("potrf", k), ("trsm", i, k))
            edge(("gemm", i, k, k - 1), ("trsm", i, k))
        for i in range(k + 1, tiles):
            task(("syrk", i, k), "syrk")
            edge(("trsm", i, k), ("syrk", i, k))
            edge(("syrk", i, k - 1), ("syrk", i, k))
            for j in range(k + 1, i):
                task(("gemm", i, j, k), "gemm")
                edge(("trsm", i, k), ("gemm", i, j, k))
                edge(("trsm", j, k), ("gemm", i, j, k))
                edge(("gemm", i, j, k - 1), ("gemm", i, j, k))
    source = {
        "generator": "cholesky",
        "seed": seed,
        "parameters": {"tiles": tiles, "noise": noise},
        "notes": ["kernel times from hetero_swf spotrf-960-5 (see CHOLESKY_KERNELS_US)"],
    }
    return Instance.create(
        cpu, gpu, edges, cpus=cpus, gpus=gpus, names=names, name=f"cholesky-{tiles}", time_unit="us", source=source
    )


def generate_heteroprio_trap(
    *,
    seed: int = 0,
    chain: int = 10,
    acceleration: int = 4,
    cpus: int = 1,
    gpus: int = 1,
    chain_gpu: int = 20,
    pool_gpu: int = 2,
) -> Instance:
    """Our adversarial family for HeteroPrio: a critical chain that HeteroPrio hands to the CPUs.

    This is *our* construction (the IPDPS 2020 lower-bound instances are not
    reproduced here): a chain of ``chain`` tasks, each ``chain_gpu`` on a GPU
    and ``acceleration·chain_gpu`` on a CPU, plus a pool of independent
    tasks of ``pool_gpu`` on a GPU and ``acceleration·pool_gpu + 1`` on a
    CPU (slightly more accelerated than the chain, so idle GPUs always take
    the pool first and idle CPUs the chain). The pool holds the work the
    other k - 1 GPUs and the m CPUs can do while one GPU runs the chain:
    W = (k - 1)·L + m·L / (acceleration + 1/pool_gpu) in GPU time, L = chain·chain_gpu.
    The schedule "chain on GPU 0, pool elsewhere" ends near L; HeteroPrio
    runs the chain on a CPU until the pool is exhausted (about L), then
    spoliates it, ending near L·(2 - 1/acceleration). ``seed`` shuffles
    the pool's order only (the structure is deterministic).
    """
    chain = _positive_int(chain, "chain", 1, 100_000)
    acceleration = _positive_int(acceleration, "acceleration", 1, 10_000)
    cpus = _positive_int(cpus, "cpus", 1)
    gpus = _positive_int(gpus, "gpus", 1)
    chain_gpu = _positive_int(chain_gpu, "chain_gpu", 1)
    pool_gpu = _positive_int(pool_gpu, "pool_gpu", 1)
    length = chain * chain_gpu
    pool_cpu = acceleration * pool_gpu + 1
    work = (gpus - 1) * length + cpus * length * pool_gpu / pool_cpu
    count = int(work // pool_gpu)
    if chain + count > MAX_GENERATED_TASKS:
        raise InvalidInstanceError(
            "chain", f"the family would have {chain + count} tasks (at most {MAX_GENERATED_TASKS})"
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(count)
    cpu = [acceleration * chain_gpu] * chain + [pool_cpu] * count
    gpu = [chain_gpu] * chain + [pool_gpu] * count
    names = [f"chain{i}" for i in range(chain)] + [f"pool{int(i)}" for i in order]
    edges = [(i, i + 1) for i in range(chain - 1)]
    source = {
        "generator": "heteroprio-trap",
        "seed": seed,
        "parameters": {"chain": chain, "acceleration": acceleration, "chain_gpu": chain_gpu, "pool_gpu": pool_gpu},
        "notes": ["our adversarial construction, not the IPDPS 2020 lower-bound instances"],
    }
    return Instance.create(
        cpu,
        gpu,
        edges,
        cpus=cpus,
        gpus=gpus,
        names=names,
        name=f"hp-trap-c{chain}-a{acceleration}-m{cpus}-k{gpus}",
        source=source,
    )
