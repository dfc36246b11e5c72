"""Write the small two-level chains that both exact two-level methods prove (run from the repository root).

    .venv/bin/python instances/checkpoint/make_small_offload.py

Three hand-written chains with a host link (kind chain-offload), small
enough for ``brute-force-offload`` (L <= 4, times of a few units) and
``cpsat-offload``, chosen so that the optimum exceeds Σfw + Σbw and
``offload-greedy`` misses it on two of them: a heterogeneous 3-stage chain at
its two-level memory floor, and a homogeneous 4-stage chain (H-Revolve's
class) two units above its floor over a full-duplex link and over a
half-duplex link with latency 1; every link moves 1 byte per time unit.
solved.json entries: ``hpcsched solved checkpoint --only FILE -m
brute-force-offload``; ``tests/checkpoint/test_small_offload.py`` checks that
``cpsat-offload`` proves the same optimum.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hpcsched.checkpoint import Instance
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason
from hpcsched.core.io import write_instance

FOLDER = Path(__file__).resolve().parent


def _above_floor(chain: Instance, name: str, extra: int) -> Instance:
    floor = offload_memory_lower_bound_with_reason(chain)[0]
    source = {"generator": "make_small_offload.py", "memory": f"two-level memory floor + {extra}"}
    return dataclasses.replace(chain.with_memory(floor + extra), name=name, source=source)


def chains() -> list[Instance]:
    """The three shipped chains."""
    mixed = Instance.create(
        [2, 1, 3], [3, 2, 4, 1], [2, 3, 1, 2], [None, 3, 2, 3], 10**6, ftmp=[0, 1, 0], btmp=[1, 0, 1, 0]
    )
    homogeneous = Instance.create([1] * 4, [1] * 5, [2] * 5, [None] + [2] * 4, 10**6)
    full = {"bandwidth_out": 1, "bandwidth_in": 1, "latency": 0, "duplex": "full"}
    half = {"bandwidth_out": 1, "bandwidth_in": 1, "latency": 1, "duplex": "half"}
    return [
        _above_floor(mixed.with_link(**full), "small3-floor-full", 0),
        _above_floor(homogeneous.with_link(**full), "homogeneous4-full", 2),
        _above_floor(homogeneous.with_link(**half), "homogeneous4-half-lat1", 2),
    ]


def main() -> None:
    for chain in chains():
        write_instance(chain, FOLDER / f"{chain.name}.json")
        print(chain.name, chain.memory, flush=True)


if __name__ == "__main__":
    main()
