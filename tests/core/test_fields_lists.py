"""``int_list`` and ``number_list`` give the per-item checks' verdict (their bulk path for plain lists included)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.fields import LARGEST_INTEGER, int_list, number_list, require_int, require_number

ITEMS = st.one_of(
    st.integers(min_value=-(2**60), max_value=2**60),
    st.integers(min_value=-3, max_value=3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([True, False, None, "1", 10**400, LARGEST_INTEGER, LARGEST_INTEGER + 1, -0.0, 2.0]),
)
MINIMUM = st.one_of(st.none(), st.integers(min_value=-2, max_value=2), st.floats(min_value=-2, max_value=2))


def _one_by_one(check, items, minimum):
    try:
        return tuple(check(item, f"x[{i}]", minimum=minimum) for i, item in enumerate(items))
    except InvalidInstanceError as error:
        return str(error)


def _listed(check, items, minimum):
    try:
        return check(items, "x", minimum=minimum)
    except InvalidInstanceError as error:
        return str(error)


@given(st.lists(ITEMS, max_size=6), MINIMUM)
def test_int_list_is_require_int_per_item(items, minimum):
    minimum = None if minimum is None else math.ceil(minimum)
    expected = _one_by_one(require_int, items, minimum)
    got = _listed(int_list, items, minimum)
    assert got == expected
    assert isinstance(got, str) or all(type(value) is int for value in got)


@given(st.lists(ITEMS, max_size=6), MINIMUM)
def test_number_list_is_require_number_per_item(items, minimum):
    expected = _one_by_one(require_number, items, minimum)
    got = _listed(number_list, items, minimum)
    assert got == expected
    assert isinstance(got, str) or all(type(value) is float for value in got)


def test_the_bulk_path_keeps_the_bounds():
    assert _listed(int_list, [0, -1], 0) == _one_by_one(require_int, [0, -1], 0)
    assert "must be >= 0" in _listed(int_list, [3, -1], 0)
    assert "2^53" in _listed(int_list, [LARGEST_INTEGER + 1], None)
    assert "finite" in _listed(number_list, [1.0, math.inf], None)
    assert "finite" in _listed(number_list, [10**400], None)
