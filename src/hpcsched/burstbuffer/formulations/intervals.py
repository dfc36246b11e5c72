"""The elementary intervals of the nominal timeline, which index the sizing LP/MILP (``sizing-static-lp``).

With no slowdown every application follows its nominal timeline: cut time
at every nominal burst start and end, and each application's inflow is
constant on each interval. The model has two variables (drained, content)
per application and interval from the application's first burst on, so its
size grows as K times the number of intervals, about K^2 for periodic
applications: `model_pairs` counts them in one numpy pass, so that a model
too large to build is refused before any work (`MAX_MODEL_PAIRS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Instance
from ..simulate import nominal_bursts

#: Most (application, interval) pairs the sizing model is built for: its memory and the hand-over to
#: HiGHS bound it, not the time limit (each pair is a drained and a content variable and two rows).
#: 128 periodic applications make 99,800 pairs: Pyomo builds them in 6.1 s, APPSI hands them to
#: HiGHS in 29.5 s more, the process peaks at 1.6 GB (~16 kB a pair). 500,000 pairs (~290 periodic
#: applications) is ~8 GB; 1,024 applications make 6.6 M pairs, 10,000 make 622 M.
MAX_MODEL_PAIRS = 500_000


@dataclass(frozen=True)
class Timeline:
    """The nominal bursts (by application, then iteration), the interval bounds, each application's first interval."""

    owners: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    times: np.ndarray
    first_interval: np.ndarray

    @classmethod
    def of(cls, instance: Instance) -> Timeline:
        owners, starts, ends, _ = nominal_bursts(instance)
        times = np.unique(np.concatenate([starts, ends]))
        first_start = np.full(instance.num_applications, np.inf)
        np.minimum.at(first_start, owners, starts)  # one pass (a mask per application was O(K x bursts))
        return cls(owners, starts, ends, times, np.searchsorted(times, first_start))

    @property
    def pairs(self) -> int:
        """(application, interval) pairs from each application's first interval on (the drained variables)."""
        return int(np.sum(len(self.times) - 1 - self.first_interval))


def model_pairs(instance: Instance) -> int:
    """The sizing model's (application, interval) pairs, counted without building anything."""
    return Timeline.of(instance).pairs


def too_large(instance: Instance) -> str | None:
    """Why the sizing model is not built (more than `MAX_MODEL_PAIRS` pairs), or None."""
    pairs = model_pairs(instance)
    if pairs <= MAX_MODEL_PAIRS:
        return None
    return (
        f"the sizing LP would have {pairs} (application, interval) pairs, more than {MAX_MODEL_PAIRS} "
        f"(its size grows as K x intervals, ~K^2: {instance.num_applications} applications here); "
        "sizing-static-constant answers at this size"
    )


@dataclass(frozen=True)
class NominalIntervals:
    """The elementary intervals of the nominal timeline and each application's inflow on them."""

    times: np.ndarray
    lengths: np.ndarray
    inflow: np.ndarray  # (K, intervals), bytes/s
    first_interval: list[int]  # the interval of each application's first burst
    unit: float  # bytes per solver unit (the largest burst)

    @classmethod
    def of(cls, instance: Instance) -> NominalIntervals:
        timeline = Timeline.of(instance)
        times = timeline.times
        lengths = np.diff(times)
        inflow = np.zeros((instance.num_applications, len(lengths)))
        firsts, lasts = np.searchsorted(times, timeline.starts), np.searchsorted(times, timeline.ends)
        for k, first, last in zip(timeline.owners.tolist(), firsts.tolist(), lasts.tolist(), strict=True):
            inflow[k, first:last] = instance.applications[k].rate
        unit = max(app.volume for app in instance.applications)  # solver scaling
        return cls(times, lengths, inflow, timeline.first_interval.tolist(), unit)
