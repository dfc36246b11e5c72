"""Exact methods of burstbuffer: the static sizing LP/MILP and the fair-sharing bisection.

``sizing.lp`` is ``sizing-static-lp``; ``sharing.dp``, ``sharing.milp`` and
``sharing.brute_force`` are ``sharing-dp``, ``sharing-milp`` and
``sharing-brute-force`` (the same bisection, three knapsack solvers of
``knapsack``). `choose_exact` is the ``exact`` dispatcher's choice.
"""

from __future__ import annotations

from ..model import Instance
from . import knapsack as knapsack
from . import sharing as sharing
from . import sizing as sizing
from .sharing import MAX_TABLE_CELLS as MAX_TABLE_CELLS
from .sharing import MIN_EPSILON as MIN_EPSILON
from .sharing import SharingParams as SharingParams
from .sizing import static_size_lp as static_size_lp

#: The method ``exact`` runs for each objective.
EXACT_METHODS = {"sharing": "sharing-dp", "sizing-dynamic": "sizing-dynamic-sweep", "sizing-static": "sizing-static-lp"}


def choose_exact(instance: Instance) -> str:
    """The best exact method for the instance's objective."""
    return EXACT_METHODS[instance.objective]


__all__ = [
    "EXACT_METHODS",
    "MAX_TABLE_CELLS",
    "MIN_EPSILON",
    "SharingParams",
    "choose_exact",
    "knapsack",
    "sharing",
    "sizing",
    "static_size_lp",
]
