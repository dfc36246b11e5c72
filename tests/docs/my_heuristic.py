"""my-heuristic: the best of Johnson's order and a few random shuffles of it (transfers).

A plugin: importing this file registers one more method for the shipped
``transfers`` problem. Load it with ``--plugin my_heuristic.py`` on the
command line or ``import my_heuristic`` in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import hpcsched
from hpcsched.core.deadline import Deadline
from hpcsched.core.params import at_least
from hpcsched.transfers import Instance, Simulator, johnson_order
from hpcsched.transfers.bounds import best as lower_bound


@dataclass(frozen=True)
class ShuffleParams:
    """Options of ``my-heuristic``.

    Attributes
    ----------
    samples
        Random orders tried after Johnson's order.
    """

    samples: int = 20

    def __post_init__(self) -> None:
        at_least("samples", self.samples, 0)  # the registry turns a failure into an OptionError


def best_of_shuffles(instance: Instance, /, *, time_limit: float, seed: int, params: ShuffleParams) -> hpcsched.Result:
    """Johnson's order, then ``samples`` seeded shuffles of it; keep the shortest schedule."""
    deadline = Deadline.after(time_limit)  # covers everything below
    rng = np.random.default_rng(seed)
    simulator = Simulator(instance)
    order = johnson_order(instance)
    best_order, best_makespan = order, simulator.makespan(order)
    for _ in range(params.samples):
        if deadline.expired():
            break  # keep the best order found so far
        candidate = [int(task) for task in rng.permutation(order)]
        makespan = simulator.makespan(candidate)
        if makespan < best_makespan:
            best_order, best_makespan = candidate, makespan
    solution = simulator.schedule(best_order)
    if solution is None:  # every order tried deadlocks on memory
        return hpcsched.Result(status=hpcsched.Status.TIME_LIMIT_NO_SOLUTION, notes=("every order deadlocked",))
    bound = lower_bound(instance)  # a proven lower bound of the problem
    # OPTIMAL only with a proof: the schedule meets the proven bound.
    status = hpcsched.Status.OPTIMAL if best_makespan <= bound else hpcsched.Status.FEASIBLE
    return hpcsched.Result(status=status, solution=solution, bound=bound)


hpcsched.get_problem("transfers").add_method("my-heuristic", best_of_shuffles, kind="heuristic", params=ShuffleParams)
