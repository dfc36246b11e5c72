"""Exact methods of the checkpoint problem: `brute_force`, `dp` (persistent), `cpsat` (all sequences)."""

from .brute_force import BruteForceParams, brute_force, shortest_sequence
from .cpsat import CpsatParams, cpsat, phase_slots
from .cpsat_offload import CpsatOffloadParams, cpsat_offload, known_horizon
from .dp import DpParams, PersistentPlan, dp, persistent_dp

__all__ = [
    "BruteForceParams",
    "CpsatOffloadParams",
    "CpsatParams",
    "DpParams",
    "PersistentPlan",
    "brute_force",
    "cpsat",
    "cpsat_offload",
    "dp",
    "known_horizon",
    "persistent_dp",
    "phase_slots",
    "shortest_sequence",
]
