"""Fixtures of the offload tests."""

from .offload_helpers import pipedream_dir  # noqa: F401  (fixture)
