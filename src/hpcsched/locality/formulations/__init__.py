"""Exact formulations of the locality problem (any durations), brute force, and the ``auto`` dispatcher.

* `cpsat`, `milp` (objective 1, restricted assignment ``P|M_j|Cmax``):
  `hpcsched.locality.formulations.makespan`.
* `milp_communication` (objective 2, "last task per server" binaries):
  `hpcsched.locality.formulations.communication`.
* `brute_force` (both): `hpcsched.locality.formulations.brute_force`.
* `choose_exact`, the registry's dispatcher ``auto``: equal durations +
  objective 1 -> ``semi-matching``; equal durations + objective 2 +
  ``remote_cost`` 0 -> ``quota-flow``; otherwise objective 1 -> ``cpsat``,
  objective 2 -> ``milp-communication``. The user's options are checked
  against the chosen method's Params, exactly as with ``--method <chosen>``.
"""

from ..flows import equal_duration
from ..model import Instance
from .brute_force import BruteForceParams, brute_force
from .communication import MilpCommunicationParams, milp_communication
from .makespan import CpsatParams, MilpParams, cpsat, milp


def choose_exact(instance: Instance) -> str:
    """The registered name of the exact method ``auto`` runs on ``instance`` (see the module docstring)."""
    equal = equal_duration(instance) is not None
    if instance.objective == "makespan":
        return "semi-matching" if equal else "cpsat"
    if equal and instance.remote_cost == 0:
        return "quota-flow"
    return "milp-communication"


__all__ = [
    "BruteForceParams",
    "CpsatParams",
    "MilpCommunicationParams",
    "MilpParams",
    "brute_force",
    "choose_exact",
    "cpsat",
    "milp",
    "milp_communication",
]
