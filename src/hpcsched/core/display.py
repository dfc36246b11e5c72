"""Numbers as tables show them to people (JSON and CSV outputs keep raw numbers).

An objective of 40963912 printed with ``:.6g`` reads ``4.09639e+07``: the
reader has to decode an exponent and loses the last digits, which are the
ones a gap between two methods lives in. Tables print integers in full and
other values to six significant digits, with thousands separators, and use
an exponent only where positional notation would be unreadable (|x| >= 1e15
or a non-zero |x| < 1e-6).
"""

from __future__ import annotations

import math
import numbers

#: From this magnitude on, a number is printed with an exponent (16 digits and more are unreadable).
LARGEST_POSITIONAL = 1e15
#: Below this magnitude (and above zero), a number is printed with an exponent (too many leading zeros).
SMALLEST_POSITIONAL = 1e-6
#: Significant digits of a number that is not an integer.
SIGNIFICANT_DIGITS = 6


def readable_number(value: float | None) -> str:
    """``value`` for a table: ``-`` for None, integers in full, others to 6 significant digits.

    Parameters
    ----------
    value
        An int, a float (numpy scalars included) or None.

    Returns
    -------
    str
        ``40963912`` -> ``"40,963,912"``; ``1234.56789`` -> ``"1,234.57"``;
        ``0.30000000000000004`` -> ``"0.3"``; ``2.5e17`` -> ``"2.5e+17"``;
        ``inf`` -> ``"inf"``.

    Examples
    --------
    >>> readable_number(40963912.0)
    '40,963,912'
    >>> readable_number(-1234.56789)
    '-1,234.57'
    """
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    number = float(value)
    if not math.isfinite(number):
        return str(number)  # inf, -inf, nan
    magnitude = abs(number)
    if magnitude >= LARGEST_POSITIONAL or (0 < magnitude < SMALLEST_POSITIONAL):
        return f"{number:.{SIGNIFICANT_DIGITS}g}"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"  # exact, even where a float would round
    if number.is_integer():
        return f"{int(number):,}"
    # Digits after the point that make six significant ones (none when the
    # integer part already has six or more: it is then shown in full).
    decimals = max(0, SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(magnitude)))
    text = f"{number:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
