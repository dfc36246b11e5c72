"""Fixtures of the experiments tests (helpers live in `experiments_helpers`)."""

from __future__ import annotations

import pytest

from .experiments_helpers import toy_instance


@pytest.fixture
def instances():
    """Three toy instances of different sizes."""
    return [toy_instance(seed, n) for seed, n in ((0, 5), (1, 8), (2, 12))]
