"""Platform, applications and the instance of the burstbuffer problem.

The model (fluid, continuous time: seconds, bytes, floats) and the three
objectives an instance can pose are defined in ``docs/burstbuffer.md``
(section "The model" and "One instance, three problems").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)

OBJECTIVES = ("sharing", "sizing-dynamic", "sizing-static")

# The keys of every record of the files: any other key is refused (a misspelt optional
# field, "objectve" or "node", would otherwise be ignored and its default used).
DATA_KEYS = ("platform", "applications", "objective")
PLATFORM_KEYS = ("pfs_bandwidth", "capacity", "granule")
APPLICATION_KEYS = ("name", "release", "iterations", "compute", "volume", "rate", "nodes")

#: Relative tolerance of every check of the validator.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Platform:
    """PFS bandwidth B (bytes/s), buffer capacity S (bytes), granule G (bytes)."""

    pfs_bandwidth: float
    capacity: float
    granule: float

    @property
    def granules(self) -> int:
        """N = floor(S / G), the number of whole granules (tolerant to float noise)."""
        return math.floor(self.capacity / self.granule * (1 + 1e-12))


@dataclass(frozen=True)
class Application:
    """A periodic application: ``iterations`` x (``compute`` s, then a burst of ``volume`` bytes)."""

    name: str
    release: float
    iterations: int
    compute: float
    volume: float
    rate: float
    nodes: int = 1

    @property
    def burst_time(self) -> float:
        """Nominal duration v/r of one burst."""
        return self.volume / self.rate

    @property
    def period(self) -> float:
        """Nominal iteration length T = w + v/r."""
        return self.compute + self.volume / self.rate

    @property
    def nominal_time(self) -> float:
        """Nominal execution time n (w + v/r)."""
        return self.iterations * self.period

    @property
    def io_rate(self) -> float:
        """Nominal (long-run) I/O rate v / T."""
        return self.volume / self.period


def _check_application(raw: Any, field: str) -> Application:
    raw = require_dict(raw, field)
    require_known_keys(raw, APPLICATION_KEYS, field, "an application")
    name = require_str(require_key(raw, "name", field), f"{field}.name")
    release = require_number(require_key(raw, "release", field), f"{field}.release", minimum=0)
    iterations = require_int(require_key(raw, "iterations", field), f"{field}.iterations", minimum=1)
    compute = require_number(require_key(raw, "compute", field), f"{field}.compute", minimum=0)
    volume = require_number(require_key(raw, "volume", field), f"{field}.volume", strictly_positive=True)
    rate = require_number(require_key(raw, "rate", field), f"{field}.rate", strictly_positive=True)
    nodes = require_int(raw.get("nodes", 1), f"{field}.nodes", minimum=1)
    return Application(name, release, iterations, compute, volume, rate, nodes)


#: Longest timeline, in shortest bursts, that doubles resolve to the validator's 1e-9 (see below).
TIME_RESOLUTION = 1e5


def _check_time_resolution(apps: tuple[Application, ...]) -> None:
    """Refuse a timeline too long for its shortest burst to be resolved in doubles.

    Every instant is a double: at time H one rounding costs H * 1.1e-16 s.
    A burst of b seconds at time H is then timed to H / b * 1.1e-16 of its
    length per operation; with H <= 1e5 b that stays near 1e-11, below the
    1e-9 tolerance of the validator even after many events. Beyond it a
    release of 2^52 s with a 1/3 s burst rounds the burst away and reports a
    dilation below 1.
    """
    shortest = min(range(len(apps)), key=lambda k: apps[k].burst_time)
    latest = max(range(len(apps)), key=lambda k: apps[k].release + apps[k].nominal_time)
    horizon = apps[latest].release + apps[latest].nominal_time
    burst = apps[shortest].burst_time
    if not math.isfinite(horizon) or horizon > TIME_RESOLUTION * burst:
        raise InvalidInstanceError(
            f"data.applications[{latest}].release",
            f"the timeline ends at {horizon:.6g} s, more than {TIME_RESOLUTION:g} times the shortest burst "
            f"({burst:.6g} s, application {shortest}): doubles cannot time it to the validator's 1e-9",
        )


@dataclass(frozen=True)
class Instance:
    """A burst-buffer instance (see the module docstring for the three objectives)."""

    name: str
    platform: Platform
    applications: tuple[Application, ...]
    objective: str = "sharing"
    source: Mapping[str, Any] = field(default_factory=dict)
    time_unit: str | None = "s"

    def __post_init__(self) -> None:
        # Instances built in code go through the same checks as files.
        Instance.from_data(self.to_data(), name=self.name, time_unit=self.time_unit, source=dict(self.source))

    @property
    def num_applications(self) -> int:
        return len(self.applications)

    @property
    def io_load(self) -> float:
        """Long-run I/O load sum_k v_k/T_k divided by B."""
        return sum(app.io_rate for app in self.applications) / self.platform.pfs_bandwidth

    def with_objective(self, objective: str) -> Instance:
        """The same data posing another problem (``sharing``/``sizing-dynamic``/``sizing-static``)."""
        return Instance(self.name, self.platform, self.applications, objective, self.source, self.time_unit)

    def with_capacity(self, capacity: float, granule: float | None = None) -> Instance:
        """The same instance with another buffer capacity (and granule)."""
        platform = Platform(self.platform.pfs_bandwidth, capacity, granule or self.platform.granule)
        return Instance(self.name, platform, self.applications, self.objective, self.source, self.time_unit)

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = "s", source: dict | None = None) -> Instance:
        """Build and check an Instance from the ``data`` section of a file."""
        data = require_dict(data, "data")
        if time_unit not in (None, "s"):
            raise InvalidInstanceError("time_unit", f"burstbuffer times are in seconds ('s'), got {time_unit!r}")
        require_known_keys(data, DATA_KEYS, "data", "a burstbuffer instance")
        raw_platform = require_dict(require_key(data, "platform", "data"), "data.platform")
        require_known_keys(raw_platform, PLATFORM_KEYS, "data.platform", "the platform")
        bandwidth = require_number(
            require_key(raw_platform, "pfs_bandwidth", "data.platform"),
            "data.platform.pfs_bandwidth",
            strictly_positive=True,
        )
        capacity = require_number(
            require_key(raw_platform, "capacity", "data.platform"), "data.platform.capacity", minimum=0
        )
        granule = require_number(
            require_key(raw_platform, "granule", "data.platform"), "data.platform.granule", strictly_positive=True
        )
        raw_apps = require_list(require_key(data, "applications", "data"), "data.applications", min_length=1)
        apps = tuple(_check_application(raw, f"data.applications[{k}]") for k, raw in enumerate(raw_apps))
        seen: dict[str, int] = {}
        for k, app in enumerate(apps):
            if app.name in seen:
                raise InvalidInstanceError(
                    f"data.applications[{k}].name", f"duplicate name {app.name!r} (also [{seen[app.name]}])"
                )
            seen[app.name] = k
        objective = require_str(data.get("objective", "sharing"), "data.objective", choices=OBJECTIVES)
        _check_time_resolution(apps)
        platform = Platform(bandwidth, capacity, granule)
        instance = object.__new__(cls)
        for key, value in (
            ("name", name),
            ("platform", platform),
            ("applications", apps),
            ("objective", objective),
            ("source", dict(source or {})),
            ("time_unit", "s" if time_unit is None else time_unit),
        ):
            object.__setattr__(instance, key, value)
        return instance

    def to_data(self) -> dict:
        """The ``data`` section of the instance file."""
        data: dict[str, Any] = {
            "platform": {
                "pfs_bandwidth": self.platform.pfs_bandwidth,
                "capacity": self.platform.capacity,
                "granule": self.platform.granule,
            },
            "applications": [
                {
                    "name": app.name,
                    "release": app.release,
                    "iterations": app.iterations,
                    "compute": app.compute,
                    "volume": app.volume,
                    "rate": app.rate,
                    "nodes": app.nodes,
                }
                for app in self.applications
            ],
        }
        if self.objective != "sharing":
            data["objective"] = self.objective
        return data
