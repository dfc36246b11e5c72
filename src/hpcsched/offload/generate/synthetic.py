"""Seeded generators of ``offload`` instances, the link presets and the no-offload peak.

Units: times are integer microseconds (``time_unit = "us"``), sizes bytes,
bandwidths bytes per microsecond (1 GB/s = 1e9 B/s = 1000 B/us).

Budgets are fractions of the *no-offload peak*: the peak memory of the
schedule that keeps every activation (`no_offload_peak`).  Link presets
(per direction, full duplex): PCIe 3.0 x16 12 GB/s, PCIe 4.0 24 GB/s, PCIe 5.0
50 GB/s, NVLink-C2C (GH200) 450 GB/s.  Latency defaults to 0.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.fields import LARGEST_INTEGER, require_int, require_number, require_str
from ...core.generation import checked, size
from ..model import DUPLEX_MODES, Instance, evaluate
from ..simulate import simulate

#: Link presets: name -> bytes per microsecond per direction.
LINKS = {"pcie3": 12_000.0, "pcie4": 24_000.0, "pcie5": 50_000.0, "nvlink-c2c": 450_000.0}

#: The largest chain of every family (docs/architecture.md "Generator sizes"): at 10^6 layers,
#: generating, writing and reading back take about 45 s of CPU and 1.2 GB.
MAX_LAYERS = 1_000_000

_HUGE = LARGEST_INTEGER  # memory that never binds


def no_offload_peak(instance: Instance) -> int:
    """Peak memory of the schedule that keeps every activation (no idle time)."""
    relaxed = instance.with_memory(_HUGE)
    schedule = simulate(relaxed, ())
    assert schedule is not None, "keeping everything fits in 2^53 bytes"
    return int(evaluate(relaxed, schedule)["peak_memory"])


def _check_link(budget: Any, link: Any, bandwidth: Any, latency: Any, duplex: Any, memory: Any = None) -> None:
    """The parameters every generator and importer shares, checked on entry and named as given."""
    if memory is None:
        if not 0 < require_number(budget, "budget") <= 10:
            raise InvalidInstanceError("budget", f"must be a fraction of the no-offload peak in (0, 10], got {budget}")
    else:
        require_int(memory, "memory", minimum=0)
    if bandwidth is None:
        require_str(link, "link", choices=tuple(LINKS))
    else:
        require_number(bandwidth, "bandwidth", strictly_positive=True)
    require_int(latency, "latency", minimum=0)
    require_str(duplex, "duplex", choices=DUPLEX_MODES)


def _check_generator(
    seed: Any, n: Any, budget: Any, link: Any, bandwidth: Any, latency: Any, duplex: Any, **sizes: tuple[Any, int]
) -> int:
    """``n`` (layers, >= 1) and the shared and family parameters (``name=(value, minimum)``); returns n."""
    n = require_int(n, "n", minimum=1)
    require_int(seed, "seed", minimum=0)
    _check_link(budget, link, bandwidth, latency, duplex)
    for name, (value, minimum) in sizes.items():
        require_int(value, name, minimum=minimum)
    return n


def _bandwidth(link: str | None, bandwidth: float | None) -> float:
    if bandwidth is not None:
        return float(bandwidth)
    if link not in LINKS:
        raise InvalidInstanceError("link", f"must be one of {', '.join(LINKS)}, got {link!r}")
    return LINKS[link]


def _finish(
    name: str,
    forward,
    backward,
    activation,
    *,
    budget: float,
    link: str | None,
    bandwidth: float | None,
    latency: int,
    duplex: str,
    source: dict,
    layers=(),
    memory: int | None = None,
) -> Instance:
    bw = _bandwidth(link, bandwidth)
    try:
        base = Instance(
            name=name,
            forward=tuple(int(x) for x in forward),
            backward=tuple(int(x) for x in backward),
            activation=tuple(int(x) for x in activation),
            memory=_HUGE,
            bandwidth_out=bw,
            bandwidth_in=bw,
            latency=int(latency),
            duplex=duplex,
            layers=tuple(layers),
            time_unit="us",
            source=source,
        )
    except InvalidInstanceError as error:  # too slow a link (transfer times past 2^53): name the parameter given
        parameter = {"data.bandwidth_out": "bandwidth", "data.bandwidth_in": "bandwidth", "data.latency": "latency"}
        if error.field not in parameter:
            raise
        raise InvalidInstanceError(parameter[error.field], error.reason) from None
    if memory is None:  # budget checked on entry (`_check_link`)
        peak = no_offload_peak(base)
        memory = int(float(budget) * peak)
        source = {**source, "no_offload_peak": peak, "budget": float(budget)}
    return dataclasses.replace(base, memory=int(memory), source=source)


def _common(family: str, seed: int, n: int, params: dict) -> dict:
    return {"generator": family, "seed": int(seed), "n": int(n), "params": params}


@checked(n=size(MAX_LAYERS, "layers"))
def generate_homogeneous(
    *,
    seed: int = 0,
    n: int = 10,
    forward: int = 100,
    backward: int = 200,
    activation: int = 1_000_000,
    budget: float = 0.5,
    link: str = "pcie3",
    bandwidth: float | None = None,
    latency: int = 0,
    duplex: str = "full",
) -> Instance:
    """Identical layers: f, b, s constant (the seed is unused but recorded)."""
    n = _check_generator(
        seed,
        n,
        budget,
        link,
        bandwidth,
        latency,
        duplex,
        forward=(forward, 0),
        backward=(backward, 0),
        activation=(activation, 0),
    )
    params = dict(
        forward=forward,
        backward=backward,
        activation=activation,
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
    )
    return _finish(
        f"homogeneous-n{n}-s{seed}",
        [forward] * n,
        [backward] * n,
        [activation] * (n + 1),
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        source=_common("homogeneous", seed, n, params),
    )


@checked(n=size(MAX_LAYERS, "layers"))
def generate_random(
    *,
    seed: int = 0,
    n: int = 20,
    budget: float = 0.5,
    link: str = "pcie3",
    bandwidth: float | None = None,
    latency: int = 0,
    duplex: str = "full",
    max_time: int = 1000,
    max_activation: int = 20_000_000,
) -> Instance:
    """Heterogeneous chain: f, s uniform, b = f times U(1, 3)."""
    n = _check_generator(
        seed, n, budget, link, bandwidth, latency, duplex, max_time=(max_time, 1), max_activation=(max_activation, 1)
    )
    rng = np.random.default_rng(seed)
    forward = rng.integers(1, max_time + 1, n)
    backward = np.ceil(forward * rng.uniform(1.0, 3.0, n)).astype(int)
    activation = rng.integers(max_activation // 20, max_activation + 1, n + 1)
    params = dict(
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        max_time=max_time,
        max_activation=max_activation,
    )
    return _finish(
        f"random-n{n}-s{seed}",
        forward,
        backward,
        activation,
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        source=_common("random", seed, n, params),
    )


@checked(n=size(MAX_LAYERS, "layers"))
def generate_cnn(
    *,
    seed: int = 0,
    n: int = 20,
    budget: float = 0.75,
    link: str = "pcie3",
    bandwidth: float | None = None,
    latency: int = 0,
    duplex: str = "full",
    first_activation: int = 400_000_000,
    first_time: int = 2000,
) -> Instance:
    """CNN-like: activations shrink and compute per byte grows with depth (noisy)."""
    n = _check_generator(
        seed,
        n,
        budget,
        link,
        bandwidth,
        latency,
        duplex,
        first_activation=(first_activation, 1),
        first_time=(first_time, 0),
    )
    rng = np.random.default_rng(seed)
    depth = np.linspace(0.0, 1.0, n + 1)
    activation = (first_activation * 2.0 ** (-5 * depth) * rng.uniform(0.8, 1.2, n + 1)).astype(int) + 1
    intensity = 2.0 ** (3 * depth[1:])  # time per byte grows with depth
    forward = np.maximum(
        1, (first_time * intensity * activation[1:] / first_activation * rng.uniform(0.7, 1.3, n))
    ).astype(int)
    backward = np.maximum(1, (forward * rng.uniform(1.5, 2.5, n))).astype(int)
    params = dict(
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        first_activation=first_activation,
        first_time=first_time,
    )
    return _finish(
        f"cnn-n{n}-s{seed}",
        forward,
        backward,
        activation,
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        source=_common("cnn", seed, n, params),
    )


@checked(n=size(MAX_LAYERS, "layers"))
def generate_transformer(
    *,
    seed: int = 0,
    n: int = 24,
    budget: float = 0.5,
    link: str = "pcie3",
    bandwidth: float | None = None,
    latency: int = 0,
    duplex: str = "full",
    hidden_bytes: int = 50_000_000,
    block_time: int = 3000,
) -> Instance:
    """Transformer-like: repeating (attention, MLP) pairs, attention stores more and runs shorter."""
    n = _check_generator(
        seed, n, budget, link, bandwidth, latency, duplex, hidden_bytes=(hidden_bytes, 0), block_time=(block_time, 0)
    )
    rng = np.random.default_rng(seed)
    forward, activation = [], [hidden_bytes]
    for k in range(n):
        attention = k % 2 == 0
        forward.append(int(block_time * (0.6 if attention else 1.0) * rng.uniform(0.9, 1.1)))
        activation.append(int(hidden_bytes * (3.0 if attention else 1.0) * rng.uniform(0.95, 1.05)))
    backward = [2 * x for x in forward]
    params = dict(
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        hidden_bytes=hidden_bytes,
        block_time=block_time,
    )
    return _finish(
        f"transformer-n{n}-s{seed}",
        forward,
        backward,
        activation,
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        source=_common("transformer", seed, n, params),
    )
