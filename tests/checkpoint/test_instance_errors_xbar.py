"""xbar[0] must be null in a file (xbar_0 does not exist); a null elsewhere is named plainly (a new user's pass)."""

from __future__ import annotations

import json

import pytest

from hpcsched import read_instance
from hpcsched.core.errors import InvalidInstanceError


def _chain_file(tmp_path, xbar):
    document = {
        "problem": "checkpoint",
        "data": {"kind": "chain", "memory": 100, "fw": [1, 1], "bw": [1, 1, 1], "x": [1, 1, 1], "xbar": xbar},
    }
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    ("xbar", "message"),
    [
        ([5, 2, 2], r"data.xbar\[0\]: must be null, got integer 5"),
        ([None, None, 2], r"data.xbar\[1\]: must be an integer, got null$"),
    ],
)
def test_xbar_entries_are_checked_with_their_index(tmp_path, xbar, message):
    with pytest.raises(InvalidInstanceError, match=message):
        read_instance(_chain_file(tmp_path, xbar))


def test_a_null_xbar_0_is_read(tmp_path):
    assert read_instance(_chain_file(tmp_path, [None, 2, 2])).xbar[1:] == (2, 2)
