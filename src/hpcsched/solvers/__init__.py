"""Backend adapters. Each returns the same `Outcome`."""

from .cpsat import new_model as new_cpsat_model
from .cpsat import solve_cpsat as solve_cpsat
from .milp import solve_pulp as solve_pulp
from .outcome import Outcome as Outcome
from .pyomo import solve_pyomo as solve_pyomo

__all__ = ["Outcome", "new_cpsat_model", "solve_cpsat", "solve_pulp", "solve_pyomo"]
