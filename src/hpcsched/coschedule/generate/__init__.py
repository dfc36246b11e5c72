"""Instance generators (seeded) and importers of real kernel data.

- `synthetic`: the ``uniform``, ``all-ones`` and ``sm-model`` families and
  the SM-share x memory-contention rate model.
- `importers`: ``orion``, ``kineto`` and ``gavel`` (real traces).
- `sampling`: what the importers share (paths, seeded sampling, size guard).
"""

from .importers import import_gavel, import_kineto, import_orion, kineto_streams, occupancy_sm_demand
from .sampling import DEFAULT_MAX_PAIRS, check_size
from .synthetic import DEFAULT_ALPHA, generate_all_ones, generate_sm_model, generate_uniform, sm_model_rate

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_MAX_PAIRS",
    "check_size",
    "generate_all_ones",
    "generate_sm_model",
    "generate_uniform",
    "import_gavel",
    "import_kineto",
    "import_orion",
    "kineto_streams",
    "occupancy_sm_demand",
    "sm_model_rate",
]
