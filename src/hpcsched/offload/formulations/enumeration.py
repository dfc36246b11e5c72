"""``brute-force``: every offload set (L <= 12), each timed exactly by CP-SAT; the minimum is the optimum."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import version
from ..model import Instance, Solution, check_feasible, kept_prefix_fits
from .cpsat_model import Timing, exact_timing, makespan

#: CP-SAT deterministic time (work units, about a second each on an idle machine) of the timing of one
#: offload set, the default of ``set_deterministic_time``.  Measured (docs/offload.md, "Brute force"): the
#: sets of the test strategies need at most 0.014 units, the hardest set of the L = 8 scaling benchmark
#: instance 7.4 (its proof); 30 is 4 times that.
SET_DETERMINISTIC_TIME = 30.0


@dataclass(frozen=True)
class BruteForceParams:
    """Options of ``brute-force``.

    Attributes
    ----------
    max_layers
        Refuse (NOT_APPLICABLE) chains of more layers (2^L offload sets).
    set_deterministic_time
        CP-SAT deterministic time (``max_deterministic_time``, one worker) of the timing of each offload
        set: a set not proven within it leaves the result FEASIBLE, the same verdict on any machine. The
        method's wall-clock time limit still stops the whole enumeration.
    """

    max_layers: int = 12
    set_deterministic_time: float = SET_DETERMINISTIC_TIME

    def __post_init__(self) -> None:
        at_least("max_layers", self.max_layers, 1)
        positive("set_deterministic_time", self.set_deterministic_time)


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceParams | None) -> Result:
    """Every offload set, each timed exactly by CP-SAT (L <= 12).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for the enumeration (a safety stop: each set is limited in deterministic time); the sets
        not reached leave the result FEASIBLE.
    seed
        CP-SAT's seed.
    params
        `BruteForceParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL (bound = value) when every set was timed to proven optimality (or proven to have no
        schedule) within ``set_deterministic_time``; the notes give the deterministic time used.
    """
    params = params or BruteForceParams()
    check_feasible(instance)
    if instance.n_layers > params.max_layers:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{instance.n_layers} layers > {params.max_layers}",))
    deadline = Deadline.after(time_limit)
    candidates = list(instance.offloadable)
    tally = _Tally()
    subsets = (
        set(subset) for size in range(len(candidates) + 1) for subset in itertools.combinations(candidates, size)
    )
    for subset in subsets:
        if deadline.expired():
            tally.stopped = True
            break
        if not kept_prefix_fits(instance, subset):
            continue  # proven infeasible without a solver call
        # The deterministic limit decides each set's verdict; the wall clock is only the overall stop.
        left = deadline.remaining()
        tally.add(
            instance,
            exact_timing(
                instance, subset, seed=seed, time_limit=left, deterministic_time=params.set_deterministic_time
            ),
        )
    if tally.best is None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=tally.notes(len(candidates), params))
    proven = tally.unproven == 0 and not tally.stopped
    return Result(
        status=Status.OPTIMAL if proven else Status.FEASIBLE,
        objective=tally.best_value,
        bound=tally.best_value if proven else None,
        solution=tally.best,
        solver=version(),
        notes=tally.notes(len(candidates), params),
    )


@dataclass
class _Tally:
    """The best schedule so far, and what the timings proved and cost."""

    best: Solution | None = None
    best_value: float = math.inf
    unproven: int = 0
    stopped: bool = False
    used: float = 0.0
    hardest: float = 0.0

    def add(self, instance: Instance, timing: Timing) -> None:
        self.used += timing.deterministic_time
        self.hardest = max(self.hardest, timing.deterministic_time)
        self.unproven += not timing.proven
        if timing.schedule is not None and makespan(instance, timing.schedule) < self.best_value:
            self.best, self.best_value = timing.schedule, makespan(instance, timing.schedule)

    def notes(self, candidates: int, params: BruteForceParams) -> tuple[str, ...]:
        stop = "; stopped by the time limit before the last set" if self.stopped else ""
        return (
            f"{2**candidates} offload sets{stop}",
            f"{self.used:.3f} deterministic units in all, {self.hardest:.3f} at most for one set "
            f"(limit {params.set_deterministic_time:g} per set); {self.unproven} timed sets not proven",
        )
