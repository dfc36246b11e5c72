"""Shared test configuration.

`shared_data` locates the real GPU data of ../shared/data (or
$HPCSCHED_SHARED_DATA) and skips the test with a clear reason when it is
absent, so that the suite passes for a user who only has the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPOSITORY = Path(__file__).resolve().parents[1]
settings.register_profile("hpcsched", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "hpcsched"))


def shared_data_dir() -> Path | None:
    """The ../shared/data folder, or None when it is not there."""
    override = os.environ.get("HPCSCHED_SHARED_DATA")
    candidate = Path(override) if override else REPOSITORY.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


@pytest.fixture
def shared_data() -> Path:
    folder = shared_data_dir()
    if folder is None:
        pytest.skip("../shared/data not found (set HPCSCHED_SHARED_DATA): trace-based tests need the real GPU data")
    return folder
