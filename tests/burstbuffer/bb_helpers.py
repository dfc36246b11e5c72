"""Shared helpers for the burstbuffer tests."""

from __future__ import annotations

from hpcsched.burstbuffer import Application, Instance, Platform


def single(
    app: Application,
    *,
    bandwidth: float = 10.0,
    capacity: float = 50.0,
    granule: float = 10.0,
    objective: str = "sharing",
) -> Instance:
    return Instance("t", Platform(bandwidth, capacity, granule), (app,), objective)


def pair(*, capacity: float = 50.0, objective: str = "sharing") -> Instance:
    """Two identical single-burst applications writing 100 bytes at 10 B/s into B = 10 B/s."""
    apps = (Application("a", 0.0, 1, 0.0, 100.0, 10.0), Application("b", 0.0, 1, 0.0, 100.0, 10.0))
    return Instance("pair", Platform(10.0, capacity, 10.0), apps, objective)
