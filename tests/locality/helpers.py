"""Small random instances for the locality tests (independent of the generators)."""

from __future__ import annotations

import numpy as np

from hpcsched.locality import Instance


def random_instance(seed: int, *, n: int, m: int, r: int, unit: bool, objective: str = "makespan",
                    remote_cost: int = 0, max_duration: int = 6, variable_r: bool = False) -> Instance:
    rng = np.random.default_rng(seed)
    replicas = []
    for _ in range(n):
        size = int(rng.integers(1, r + 1)) if variable_r else r
        replicas.append(sorted(rng.choice(m, size=min(size, m), replace=False).tolist()))
    durations = np.ones(n, dtype=np.int64) if unit else rng.integers(1, max_duration + 1, size=n)
    return Instance.create(m, durations, replicas, objective=objective, remote_cost=remote_cost,
                           name=f"test-{seed}", source={"test": seed})
