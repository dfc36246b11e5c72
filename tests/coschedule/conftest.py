import os
from pathlib import Path

import pytest

import hpcsched.coschedule  # noqa: F401  (registers the problem)


def shared_data() -> Path:
    env = os.environ.get("HPCSCHED_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


@pytest.fixture
def data_dir() -> Path:
    path = shared_data()
    if not path.is_dir():
        pytest.skip(f"../shared/data not found: {path}")
    return path
