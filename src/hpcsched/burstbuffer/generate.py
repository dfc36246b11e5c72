"""Seeded instance generators: mixes of real application profiles, synthetic periodic applications.

Application profiles (PerSched, Aupy, Gainaru, Le Fevre, TOPC 2019; measured
on Intrepid): compute w (s) / I/O volume per iteration (GB) / cores.

Platforms: Intrepid PFS 88 GB/s, Mira 240 GB/s, Trinity 1.45 TB/s with a
3.7 PB burst buffer.

Per-node injection bandwidth (our assumption, needed for r_k)
    The profiles were measured on Intrepid (Blue Gene/P, 4 cores per node,
    one I/O node with a 10 Gb/s Ethernet link per 64 compute nodes). We take
    the bandwidth a compute node can push when its whole I/O-node partition
    writes at once: 1.25 GB/s / 64 = 19.53125 MB/s per node, so
    r_k = (cores_k / 4) * 19.53125 MB/s (e.g. Turbulence1: 8192 nodes,
    160 GB/s). The same r_k is kept on every platform: the applications are
    the same, what changes is B and the buffer. With these figures every
    profile alone writes faster than Intrepid's PFS absorbs (except
    AstroPhysics and Turbulence2), which is the contention the buffer hides.

Iterations: an application repeats until it covers ``horizon`` seconds
(at least once, at most ``max_iterations``); releases are uniform in
[0, T_k) (random offsets). The buffer capacity is ``capacity`` bytes when
given, else ``capacity_fraction`` times S*_dyn of the generated mix (with
``capacity_fraction=None`` on Trinity: its 3.7 PB buffer), cut into
``granules`` granules. Every parameter is checked (InvalidInstanceError
naming it).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidInstanceError
from ..core.fields import require_int, require_list, require_number, require_str
from ..core.generation import checked, size
from .bounds import dynamic_backlog
from .model import OBJECTIVES, Application, Instance, Platform

GB = 1e9
CORES_PER_NODE = 4
NODE_INJECTION = 1.25 * GB / 64  # bytes/s per compute node (see module docstring)

#: name -> (compute s, volume bytes, cores)
PROFILES: dict[str, tuple[float, float, int]] = {
    "Turbulence1": (70.0, 128.2 * GB, 32768),
    "AstroPhysics": (240.0, 423.4 * GB, 8192),
    "Turbulence2": (1.2, 235.8 * GB, 4096),
    "PlasmaPhysics": (7554.0, 34304.0 * GB, 32768),
}

#: name -> (PFS bandwidth bytes/s, burst-buffer capacity bytes or None)
PLATFORMS: dict[str, tuple[float, float | None]] = {
    "intrepid": (88 * GB, None),
    "mira": (240 * GB, None),
    "trinity": (1450 * GB, 3.7e15),
}


def profile_application(
    profile: str, *, name: str | None = None, release: float = 0.0, iterations: int = 1
) -> Application:
    """An Application from one of the `PROFILES` (rate from the per-node assumption)."""
    compute, volume, cores = PROFILES[profile]
    nodes = cores // CORES_PER_NODE
    return Application(name or profile, float(release), int(iterations), compute, volume, nodes * NODE_INJECTION, nodes)


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


#: The largest instance of both families (docs/architecture.md "Generator sizes"): 10^5
#: applications take about 6 s of CPU and 0.5 GB to generate, write and read back; 10^6, 70 s and 4.4 GB.
MAX_APPLICATIONS = 200_000

#: Bytes per generated application (an Application, its JSON record) and per nominal burst (the
#: dynamic-backlog sweep of `_finish` tabulates every burst of every application).
BYTES_PER_APPLICATION, BYTES_PER_BURST = 1000, 64


def _range(value, field: str, *, integer: bool = False, minimum: float = 0.0) -> tuple:
    """A [low, high] parameter pair, checked."""
    pair = require_list(value, field, length=2)
    values: list[float] = [
        require_int(x, f"{field}[{i}]", minimum=int(minimum))
        if integer
        else require_number(x, f"{field}[{i}]", minimum=minimum)
        for i, x in enumerate(pair)
    ]
    low, high = values
    if low > high:
        raise InvalidInstanceError(field, f"low {low} > high {high}")
    return low, high


def _common(capacity, capacity_fraction, granules, objective):
    """Checked capacity, capacity_fraction, granules and objective parameters."""
    if capacity is not None:
        capacity = require_number(capacity, "capacity", minimum=0)
    if capacity_fraction is not None:
        capacity_fraction = require_number(capacity_fraction, "capacity_fraction", minimum=0)
    elif capacity is None:
        raise InvalidInstanceError("capacity_fraction", "give a capacity or a capacity_fraction")
    granules = require_int(granules, "granules", minimum=1)
    objective = require_str(objective, "objective", choices=OBJECTIVES)
    return capacity, capacity_fraction, granules, objective


def _finish(apps, *, name, bandwidth, capacity, capacity_fraction, granules, objective, source) -> Instance:
    probe = Instance(name, Platform(bandwidth, 0.0, 1.0), tuple(apps), "sizing-dynamic", source)
    if capacity is None:
        needed = dynamic_backlog(probe)[0]
        capacity = float(capacity_fraction) * needed
    capacity = float(capacity)
    granule = capacity / int(granules) if capacity > 0 else max(app.volume for app in apps) / int(granules)
    return Instance(name, Platform(bandwidth, capacity, granule), tuple(apps), objective, source)


@checked(n=size(MAX_APPLICATIONS, "applications"))
def generate_mix(
    *,
    seed: int = 0,
    n: int = 4,
    platform: str = "intrepid",
    horizon: float = 2000.0,
    max_iterations: int = 40,
    capacity: float | None = None,
    capacity_fraction: float = 0.5,
    granules: int = 32,
    objective: str = "sharing",
    profiles: list[str] | None = None,
) -> Instance:
    """A random mix of ``n`` application profiles with random offsets on a named platform."""
    platform = require_str(platform, "platform", choices=tuple(PLATFORMS))
    n = require_int(n, "n", minimum=1)
    seed = require_int(seed, "seed", minimum=0)
    horizon = require_number(horizon, "horizon", minimum=0)
    max_iterations = require_int(max_iterations, "max_iterations", minimum=1)
    check_size("n", n, BYTES_PER_APPLICATION + max_iterations * BYTES_PER_BURST, "applications")
    bb = PLATFORMS[platform][1]
    if capacity is None and capacity_fraction is None and bb is not None:
        capacity = bb  # the platform's own burst buffer
    capacity, capacity_fraction, granules, objective = _common(capacity, capacity_fraction, granules, objective)
    rng = np.random.default_rng(seed)
    names = list(PROFILES)
    if profiles:
        profiles = require_list(profiles, "profiles", min_length=1)
        for i, profile in enumerate(profiles):
            require_str(profile, f"profiles[{i}]", choices=tuple(PROFILES))
        n = len(profiles)
    chosen = list(profiles) if profiles else [names[i] for i in rng.integers(0, len(names), size=n)]
    apps = []
    for k, profile in enumerate(chosen):
        template = profile_application(profile)
        iterations = int(np.clip(round(horizon / template.period), 1, max_iterations))
        release = float(rng.uniform(0, template.period))
        apps.append(profile_application(profile, name=f"{profile}-{k}", release=release, iterations=iterations))
    bandwidth = PLATFORMS[platform][0]
    params = dict(
        n=int(n),
        platform=platform,
        horizon=horizon,
        max_iterations=max_iterations,
        capacity=capacity,
        capacity_fraction=capacity_fraction,
        granules=granules,
        objective=objective,
        profiles=profiles,
    )
    source = {
        "generator": "burstbuffer.mix",
        "params": params,
        "seed": int(seed),
        "node_injection_bytes_per_s": NODE_INJECTION,
        "cores_per_node": CORES_PER_NODE,
    }
    return _finish(
        apps,
        name=f"mix-{platform}-{n}-s{seed}",
        bandwidth=bandwidth,
        capacity=capacity,
        capacity_fraction=capacity_fraction,
        granules=granules,
        objective=objective,
        source=source,
    )


@checked(n=size(MAX_APPLICATIONS, "applications"))
def generate_periodic(
    *,
    seed: int = 0,
    n: int = 4,
    load: float = 0.8,
    bandwidth: float = 10 * GB,
    io_fraction: tuple[float, float] = (0.05, 0.3),
    period: tuple[float, float] = (50.0, 500.0),
    iterations: tuple[int, int] = (2, 6),
    capacity: float | None = None,
    capacity_fraction: float = 0.5,
    granules: int = 16,
    objective: str = "sharing",
) -> Instance:
    """Synthetic periodic applications whose long-run I/O load sum_k (v_k/T_k) / B equals ``load``.

    Each application gets a share of ``load * B`` as its nominal I/O rate
    rho_k, a period T_k and an I/O fraction f_k (time spent writing); then
    v_k = rho_k T_k, r_k = rho_k / f_k, w_k = (1 - f_k) T_k.
    """
    n = require_int(n, "n", minimum=1)
    seed = require_int(seed, "seed", minimum=0)
    load = require_number(load, "load", strictly_positive=True)
    bandwidth = require_number(bandwidth, "bandwidth", strictly_positive=True)
    io_fraction = _range(io_fraction, "io_fraction", minimum=1e-9)
    if io_fraction[1] > 1:
        raise InvalidInstanceError("io_fraction", f"fractions of the period must be <= 1, got {io_fraction[1]}")
    period = _range(period, "period", minimum=1e-9)
    iterations = _range(iterations, "iterations", integer=True, minimum=1)
    check_size("n", n, BYTES_PER_APPLICATION + iterations[1] * BYTES_PER_BURST, "applications")
    capacity, capacity_fraction, granules, objective = _common(capacity, capacity_fraction, granules, objective)
    rng = np.random.default_rng(seed)
    shares = rng.uniform(0.5, 1.5, size=int(n))
    rho = float(load) * bandwidth * shares / shares.sum()
    apps = []
    for k in range(int(n)):
        length = float(rng.uniform(*period))
        fraction = float(rng.uniform(*io_fraction))
        volume = rho[k] * length
        rate = rho[k] / fraction
        compute = length - volume / rate
        count = int(rng.integers(iterations[0], iterations[1] + 1))
        release = float(rng.uniform(0, length))
        apps.append(Application(f"app{k}", release, count, compute, volume, rate, 1))
    params = dict(
        n=int(n),
        load=load,
        bandwidth=bandwidth,
        io_fraction=list(io_fraction),
        period=list(period),
        iterations=list(iterations),
        capacity=capacity,
        capacity_fraction=capacity_fraction,
        granules=granules,
        objective=objective,
    )
    source = {"generator": "burstbuffer.periodic", "params": params, "seed": int(seed)}
    return _finish(
        apps,
        name=f"periodic-{n}-load{load}-s{seed}",
        bandwidth=bandwidth,
        capacity=capacity,
        capacity_fraction=capacity_fraction,
        granules=granules,
        objective=objective,
        source=source,
    )
