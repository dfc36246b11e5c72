"""Seeded generators of coschedule instances, and the SM-share rate model the importers share.

Generators (``hpcsched generate coschedule --family F``):

- ``uniform``: durations uniform in [p_min, p_max]; each pair compatible with
  probability ``density``; rates uniform in [r_min, r_max].
- ``all-ones``: every pair compatible with both rates 1 (the McNaughton class).
- ``sm-model``: synthetic kernels with SM demand q uniform in [1, 2Q] (capped
  at Q) and class memory with probability ``memory_share``, rates by the
  SM-share x memory-contention model (`sm_model_rate`).

Parameters are checked on entry: a bad one ends in one
`InvalidInstanceError` naming the parameter as the command line spells it.
``n``, ``p_min`` >= 1 integers, ``p_max`` >= ``p_min``; ``density``,
``memory_share`` in [0, 1]; 0 < ``r_min`` <= ``r_max`` <= 1; ``sms`` >= 1
integer; ``alpha`` >= 0 (a memory-contention factor 1/(1+α) <= 1: rates stay
in (0, 1]); ``seed`` >= 0 (numpy takes no negative seed).

Rate model for kernels (no per-kernel pair measurement is public): on a GPU
of Q SMs with demands q_i <= Q, a co-run pair shares the SMs, each kernel
getting share = min(1, Q / (q_i + q_j)) of its demand; when both kernels are
memory-bound their speeds are further divided by 1 + α (α = ``alpha``,
default 1). So r_{i|j} = r_{j|i} = share x (1/(1+α) if both memory-bound).
Rates are rounded to 6 significant digits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.fields import require_int, require_number, require_str
from ...core.generation import check_size, checked, size
from ..model import Instance

DEFAULT_ALPHA = 1.0


def new_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


#: Co-run pairs a generator makes at most: the importers' default ``max_pairs`` (2 million pairs,
#: about 50 s of CPU and 3 GB to generate, write and read back; methods build a row block per pair).
MAX_PAIRS = 2_000_000
#: Kernels of ``uniform`` (its pair loop draws n(n-1)/2 numbers whatever the density).
MAX_KERNELS = 10_000
#: Kernels of the families where every pair co-runs: n(n-1)/2 <= MAX_PAIRS.
MAX_ALL_PAIRS_KERNELS = 2_000


def check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidInstanceError("n", f"must be a positive integer, got {n!r}")
    return n


def check_seed(seed: Any) -> int:
    return require_int(seed, "seed", minimum=0)


def check_durations(p_min: Any, p_max: Any) -> tuple[int, int]:
    p_min = require_int(p_min, "p_min", minimum=1)
    p_max = require_int(p_max, "p_max", minimum=1)
    if p_max < p_min:
        raise InvalidInstanceError("p_max", f"must be >= p_min = {p_min}, got {p_max}")
    return p_min, p_max


def check_share(value: Any, name: str) -> float:
    return require_number(value, name, minimum=0.0, maximum=1.0)


def check_alpha(alpha: Any) -> float:
    return require_number(alpha, "alpha", minimum=0.0)


def check_sms(sms: Any) -> int:
    return require_int(sms, "sms", minimum=1)


def check_name(name: Any) -> str | None:
    return None if name is None else require_str(name, "name")


@checked(n=size(MAX_KERNELS, "kernels"))
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
    seed, n = check_seed(seed), check_n(n)
    p_min, p_max = check_durations(p_min, p_max)
    r_min = require_number(r_min, "r_min", strictly_positive=True, maximum=1.0)
    r_max = require_number(r_max, "r_max", strictly_positive=True, maximum=1.0)
    if r_max < r_min:
        raise InvalidInstanceError("r_max", f"must be >= r_min = {r_min}, got {r_max}")
    density = check_share(density, "density")
    pairs_made = round(n * (n - 1) / 2 * density)  # expected: the file's size grows with it
    check_size("n", pairs_made, MAX_PAIRS, "co-run pairs", f"n(n-1)/2 x density {density:g}")
    rng = new_rng(seed)
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


@checked(n=size(MAX_ALL_PAIRS_KERNELS, "kernels"))
def generate_all_ones(*, seed: int = 0, n: int = 10, p_min: int = 10, p_max: int = 100) -> Instance:
    """Every pair compatible with rates 1 (McNaughton class)."""
    seed, n = check_seed(seed), check_n(n)
    p_min, p_max = check_durations(p_min, p_max)
    rng = new_rng(seed)
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


def model_pairs(
    profiles: list[dict], sms: int, alpha: float, groups: list[int] | None = None
) -> list[tuple[int, int, float, float]]:
    """Rates of every pair; with ``groups`` (a stream id per kernel), only pairs of different streams."""
    pairs = []
    for a in range(len(profiles)):
        for b in range(a + 1, len(profiles)):
            if groups is not None and groups[a] == groups[b]:
                continue
            rate = sm_model_rate(
                profiles[a]["sm_demand"],
                profiles[b]["sm_demand"],
                profiles[a]["class"],
                profiles[b]["class"],
                sms,
                alpha,
            )
            pairs.append((a, b, rate, rate))
    return pairs


@checked(n=size(MAX_ALL_PAIRS_KERNELS, "kernels"))
def generate_sm_model(
    *,
    seed: int = 0,
    n: int = 10,
    sms: int = 80,
    memory_share: float = 0.5,
    alpha: float = DEFAULT_ALPHA,
    p_min: int = 10,
    p_max: int = 100,
) -> Instance:
    """Synthetic kernels with rates from the SM-share × memory-contention model."""
    seed, n = check_seed(seed), check_n(n)
    p_min, p_max = check_durations(p_min, p_max)
    sms, alpha = check_sms(sms), check_alpha(alpha)
    memory_share = check_share(memory_share, "memory_share")
    rng = new_rng(seed)
    durations = [int(v) for v in rng.integers(p_min, p_max + 1, size=n)]
    profiles = [
        {
            "sm_demand": min(sms, int(rng.integers(1, 2 * sms + 1))),
            "class": "memory" if rng.random() < memory_share else "compute",
        }
        for _ in range(n)
    ]
    params = dict(n=n, sms=sms, memory_share=memory_share, alpha=alpha, p_min=p_min, p_max=p_max)
    return Instance.create(
        durations,
        model_pairs(profiles, sms, alpha),
        name=f"sm-model-n{n}-s{seed}",
        profiles=profiles,
        gpu={"name": "synthetic", "sms": sms},
        source={
            "generator": "sm-model",
            "seed": seed,
            "params": params,
            "rate_model": "sm-share x memory-contention",
            "alpha": alpha,
        },
    )
