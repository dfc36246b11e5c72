"""Seeded generators and the PipeDream and Kineto importers of ``offload`` instances."""

from .kineto import import_kineto
from .pipedream import chain_from_pipedream, import_pipedream
from .synthetic import (
    LINKS,
    generate_cnn,
    generate_homogeneous,
    generate_random,
    generate_transformer,
    no_offload_peak,
)

__all__ = [
    "LINKS",
    "chain_from_pipedream",
    "generate_cnn",
    "generate_homogeneous",
    "generate_random",
    "generate_transformer",
    "import_kineto",
    "import_pipedream",
    "no_offload_peak",
]
