"""Seeded generators of hetero instances (``numpy.random.default_rng(seed)`` only)."""

from __future__ import annotations

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.generation import NON_NEGATIVE, POSITIVE, PROBABILITY, check_size, checked, size
from ..model import Instance
from .common import checked_int

#: Per-kernel times in integer microseconds (CPU core, K20 GPU) for 960 x 960 single-precision tiles.
#: Source: the first task of each kernel in hetero_swf spotrf-960-5 (measured by Amaris et al.
#: with StarPU/Chameleon): POTRF 14.133 ms on a CPU, no GPU version in the trace; TRSM 31.827 /
#: 3.193 ms; SYRK 25.619 / 0.746 ms; GEMM 44.315 / 1.054 ms.
CHOLESKY_KERNELS_US = {"potrf": (14133, None), "trsm": (31827, 3193), "syrk": (25619, 746), "gemm": (44315, 1054)}

#: The largest graph of every family (docs/architecture.md "Generator sizes"): 10^5 tasks take 5-7 s
#: of CPU and 0.3-0.4 GB to generate, write and read back.
MAX_GENERATED_TASKS = 500_000
#: ``layered`` keeps its edge probability as n grows (edges ~ n^2): it makes at most this many
#: edges (expected) and draws at most this many pairs (docs/architecture.md "Generator sizes").
MAX_EDGES = 1_000_000
MAX_DRAWN_PAIRS = 100_000_000
#: The tiles of ``cholesky`` (T(T+1)(T+2)/6 tasks: 585,275 at 150) and the chain of ``heteroprio-trap``.
MAX_TILES, MAX_CHAIN = 150, 100_000


def _times(
    rng: np.random.Generator, count: int, mean_cpu: float, acceleration: tuple[float, float]
) -> tuple[list, list]:
    cpu = np.maximum(1, rng.exponential(mean_cpu, count).round()).astype(int)
    factor = np.exp(rng.uniform(np.log(acceleration[0]), np.log(acceleration[1]), count))
    gpu = np.maximum(1, (cpu / factor).round()).astype(int)
    return [int(x) for x in cpu], [int(x) for x in gpu]


@checked(
    n=size(MAX_GENERATED_TASKS, "tasks"),
    edge_probability=PROBABILITY,
    cpus=NON_NEGATIVE,
    gpus=NON_NEGATIVE,
    mean_cpu=POSITIVE,
    min_acceleration=POSITIVE,
    max_acceleration=POSITIVE,
)
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
    n = checked_int(n, "n", 1, MAX_GENERATED_TASKS)
    layers = checked_int(layers, "layers", 1, n)
    if not 0 <= edge_probability <= 1:
        raise InvalidInstanceError("edge_probability", f"must be in [0, 1], got {edge_probability!r}")
    if not 0 < min_acceleration <= max_acceleration:
        raise InvalidInstanceError("min_acceleration", "must be > 0 and <= max_acceleration")
    # The edge draw is a dense random matrix per pair of consecutive layers: refuse what it would make first.
    pairs = round((layers - 1) * (n / layers) ** 2)  # expected, for layers of n/layers tasks
    check_size("n", pairs, MAX_DRAWN_PAIRS, "task pairs drawn", f"(layers-1)(n/layers)^2, layers {layers}")
    expected_edges = round(pairs * edge_probability)
    check_size("n", expected_edges, MAX_EDGES, "edges", f"pairs x edge_probability {edge_probability:g}")
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
            "cpus": cpus,
            "gpus": gpus,
        },
    }
    return Instance.create(cpu, gpu, edges, cpus=cpus, gpus=gpus, name=f"layered-n{n}-s{seed}", source=source)


@checked(
    phases=size(MAX_GENERATED_TASKS, "phases"),
    width=size(MAX_GENERATED_TASKS, "tasks per phase"),
    cpus=NON_NEGATIVE,
    gpus=NON_NEGATIVE,
    mean_cpu=POSITIVE,
    min_acceleration=POSITIVE,
    max_acceleration=POSITIVE,
)
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
    phases = checked_int(phases, "phases", 1)
    width = checked_int(width, "width", 1)
    if not min_acceleration <= max_acceleration:
        raise InvalidInstanceError("min_acceleration", "must be <= max_acceleration")
    check_size("width", phases * (width + 1) + 1, MAX_GENERATED_TASKS, "tasks", "phases x (width + 1) + 1")
    rng = np.random.default_rng(seed)
    n = phases * (width + 1) + 1
    cpu, gpu = _times(rng, n, mean_cpu, (min_acceleration, max_acceleration))
    edges, fork = [], 0
    for _phase in range(phases):
        join = fork + width + 1
        for i in range(1, width + 1):
            edges += [(fork, fork + i), (fork + i, join)]
        fork = join
    source = {
        "generator": "fork-join",
        "seed": seed,
        "parameters": {
            "phases": phases,
            "width": width,
            "mean_cpu": mean_cpu,
            "min_acceleration": min_acceleration,
            "max_acceleration": max_acceleration,
            "cpus": cpus,
            "gpus": gpus,
        },
    }
    return Instance.create(
        cpu, gpu, edges, cpus=cpus, gpus=gpus, name=f"forkjoin-{phases}x{width}-s{seed}", source=source
    )


@checked(tiles=size(MAX_TILES, "tiles"), cpus=NON_NEGATIVE, gpus=NON_NEGATIVE, noise=NON_NEGATIVE)
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
    tiles = checked_int(tiles, "tiles", 1, MAX_TILES)
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
        "parameters": {"tiles": tiles, "noise": noise, "cpus": cpus, "gpus": gpus},
        "notes": ["kernel times from hetero_swf spotrf-960-5 (see CHOLESKY_KERNELS_US)"],
    }
    return Instance.create(
        cpu, gpu, edges, cpus=cpus, gpus=gpus, names=names, name=f"cholesky-{tiles}", time_unit="us", source=source
    )


@checked(chain=size(MAX_CHAIN, "chain tasks"))
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
    chain = checked_int(chain, "chain", 1, MAX_CHAIN)
    acceleration = checked_int(acceleration, "acceleration", 1, 10_000)
    cpus = checked_int(cpus, "cpus", 1)
    gpus = checked_int(gpus, "gpus", 1)
    chain_gpu = checked_int(chain_gpu, "chain_gpu", 1)
    pool_gpu = checked_int(pool_gpu, "pool_gpu", 1)
    length = chain * chain_gpu
    pool_cpu = acceleration * pool_gpu + 1
    work = (gpus - 1) * length + cpus * length * pool_gpu / pool_cpu
    count = int(work // pool_gpu)
    check_size("chain", chain + count, MAX_GENERATED_TASKS, "tasks", "the chain and the pool the other processors run")
    rng = np.random.default_rng(seed)
    order = rng.permutation(count)
    cpu = [acceleration * chain_gpu] * chain + [pool_cpu] * count
    gpu = [chain_gpu] * chain + [pool_gpu] * count
    names = [f"chain{i}" for i in range(chain)] + [f"pool{int(i)}" for i in order]
    edges = [(i, i + 1) for i in range(chain - 1)]
    source = {
        "generator": "heteroprio-trap",
        "seed": seed,
        "parameters": {
            "chain": chain,
            "acceleration": acceleration,
            "chain_gpu": chain_gpu,
            "pool_gpu": pool_gpu,
            "cpus": cpus,
            "gpus": gpus,
        },
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
