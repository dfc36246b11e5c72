"""Heuristics and baselines of the pipeline problem, one function each (one module per family)."""

from .sequential import sequential

__all__ = ["sequential"]
