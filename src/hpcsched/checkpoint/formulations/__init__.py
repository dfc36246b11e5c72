"""Exact methods: `brute_force`, `dp`, `cpsat`; kind chain-offload: `cpsat_offload`, `brute_force_offload`."""

from ..persistent import PersistentPlan, persistent_dp
from .brute_force import BruteForceParams, brute_force, shortest_sequence
from .brute_force_offload import BruteForceOffloadParams, brute_force_offload
from .cpsat import CpsatParams, cpsat, phase_slots
from .cpsat_offload import CpsatOffloadParams, cpsat_offload, known_horizon
from .dp import DpParams, dp
from .dp_coarse import CoarseDpParams, dp_coarse

__all__ = [
    "BruteForceOffloadParams",
    "BruteForceParams",
    "CoarseDpParams",
    "CpsatOffloadParams",
    "CpsatParams",
    "DpParams",
    "PersistentPlan",
    "brute_force",
    "brute_force_offload",
    "cpsat",
    "cpsat_offload",
    "dp",
    "dp_coarse",
    "known_horizon",
    "persistent_dp",
    "phase_slots",
    "shortest_sequence",
]
