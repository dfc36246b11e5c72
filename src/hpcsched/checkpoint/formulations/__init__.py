"""Exact methods of the checkpoint problem: `brute_force`, `dp` (persistent), `cpsat` (all sequences)."""

from .brute_force import BruteForceParams, brute_force, shortest_sequence
from .cpsat import CpsatParams, cpsat, phase_slots
from .cpsat_offload import CpsatOffloadParams, cpsat_offload, known_horizon
from .dp import DpParams, PersistentPlan, dp, persistent_dp
from .dp_coarse import CoarseDpParams, dp_coarse

__all__ = [
    "BruteForceParams",
    "CoarseDpParams",
    "CpsatOffloadParams",
    "CpsatParams",
    "DpParams",
    "PersistentPlan",
    "brute_force",
    "cpsat",
    "cpsat_offload",
    "dp",
    "dp_coarse",
    "known_horizon",
    "persistent_dp",
    "phase_slots",
    "shortest_sequence",
]
