"""Exact methods of the checkpoint problem: `brute_force`, `dp` (persistent), `cpsat` (all sequences)."""

from .brute_force import BruteForceParams, brute_force, shortest_sequence
from .cpsat import CpsatParams, cpsat, phase_slots
from .dp import DpParams, PersistentPlan, dp, persistent_dp

__all__ = ["BruteForceParams", "CpsatParams", "DpParams", "PersistentPlan", "brute_force", "cpsat", "dp",
           "persistent_dp", "phase_slots", "shortest_sequence"]
