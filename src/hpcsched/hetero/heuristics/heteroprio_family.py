"""HeteroPrio (with spoliation, and without: StarPU's heteroprio), simulated by `hpcsched.hetero.simulate`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...core.deadline import Deadline
from ...core.result import Result
from ..model import Instance
from ..simulate import heteroprio as simulate_heteroprio
from ..simulate import is_uniform_acceleration
from .common import feasible_result


@dataclass(frozen=True)
class HeteroPrioParams:
    """Options of heteroprio.

    Attributes
    ----------
    spoliation
        ``"earliest-finish"`` (the candidate the idle resource finishes
        earliest), ``"latest-end"`` (the candidate whose running copy ends
        last) or ``"none"`` (see `hpcsched.hetero.simulate`).
    """

    spoliation: Literal["earliest-finish", "latest-end", "none"] = "earliest-finish"


def _heteroprio(instance: Instance, time_limit: float, spoliation: str) -> Result:
    deadline = Deadline.after(time_limit)
    run = simulate_heteroprio(instance, spoliation=spoliation, deadline=deadline)
    notes = [f"spoliation rule: {spoliation}; {run.spoliations} spoliations, aborted work {run.aborted_work}"]
    if is_uniform_acceleration(instance):
        notes.append(
            "uniform acceleration (Q|prec|Cmax with two speeds): HeteroPrio's ordering degenerates to ties by rank"
        )
    return feasible_result(run.placements, *notes)


def heteroprio(instance: Instance, /, *, time_limit: float, seed: int, params: HeteroPrioParams | None) -> Result:
    """HeteroPrio with spoliation: idle GPUs take the most accelerated ready task, CPUs the least; idle resources
    spoliate.

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Wall-clock seconds; `TimeLimitReached` is raised when they run out.
    seed
        Unused: the method is deterministic.
    params
        `HeteroPrioParams` (the spoliation rule); None = the defaults.

    Returns
    -------
    Result
        FEASIBLE with the schedule (no bound).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    return _heteroprio(instance, time_limit, (params or HeteroPrioParams()).spoliation)


def heteroprio_nospol(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """HeteroPrio without spoliation (StarPU's heteroprio scheduler).

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Wall-clock seconds; `TimeLimitReached` is raised when they run out.
    seed
        Unused: the method is deterministic.
    params
        None: the method has no options.

    Returns
    -------
    Result
        FEASIBLE with the schedule (no bound).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    return _heteroprio(instance, time_limit, "none")
