"""How tables print numbers (core.display.readable_number): expected strings written by hand."""

from __future__ import annotations

import numpy as np
import pytest

from hpcsched.core.display import readable_number


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "-"),
        (0, "0"),
        (-0.0, "0"),
        (3, "3"),
        (40963912.0, "40,963,912"),  # was 4.09639e+07
        (40963912, "40,963,912"),
        (np.int64(1234567), "1,234,567"),
        (np.float64(767181.0), "767,181"),
        (10**14 + 1, "100,000,000,000,001"),  # every digit of an integer below 1e15
        (1234.56789, "1,234.57"),
        (-1234.56789, "-1,234.57"),
        (0.30000000000000004, "0.3"),
        (0.000123456789, "0.000123457"),
        (12345678.9, "12,345,679"),  # the integer part has more than six digits: shown in full
        (999999.96, "1,000,000"),
        (2.5e17, "2.5e+17"),
        (1e15, "1e+15"),
        (3e-9, "3e-09"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (float("nan"), "nan"),
    ],
)
def test_readable_number(value, shown):
    assert readable_number(value) == shown
