"""Fast per-application simulation under a static allocation (used by methods, not by the validator).

Under static allocation an application does not interact with the others:
with a partition of ``size`` bytes and a constant reserved drain rate ``d``
its timeline follows a recurrence over its iterations (content ``c`` of its
partition at the start of each phase):

* compute ``w``: the partition drains, ``c <- max(c - d w, 0)``;
* burst of ``v`` at rate ``r``: if ``d >= r`` nothing accumulates
  (``c <- max(c - (d - r) v / r, 0)``, duration ``v / r``); otherwise the
  partition fills at ``r - d`` for ``(size - c) / (r - d)`` seconds and the
  rest of the burst is throttled to ``d``.

`completion_times` evaluates the recurrence vectorized over numpy arrays of
sizes and drain rates (so a whole column of the sharing tables costs one
pass), stopping early once the state repeats (periodic regime). The event
simulator of ``fluid.py`` (the validator) is independent of this code; the
tests check that both agree.
"""

from __future__ import annotations

import numpy as np

from .model import Application


def completion_times(app: Application, size, drain) -> np.ndarray:
    """Completion instant of ``app`` for each (partition size, constant drain rate).

    Parameters
    ----------
    app
        The application.
    size, drain
        Arrays (or scalars) broadcast together: bytes and bytes/s.

    Returns
    -------
    numpy.ndarray
        Absolute completion times (``inf`` when the application starves).
    """
    size = np.asarray(size, dtype=float)
    drain = np.asarray(drain, dtype=float)
    size, drain = np.broadcast_arrays(size, drain)
    content = np.zeros(size.shape)
    elapsed = np.zeros(size.shape)
    rate, volume, compute = app.rate, app.volume, app.compute
    slow = drain < rate
    with np.errstate(divide="ignore", invalid="ignore"):
        fill_rate = np.where(slow, rate - drain, 1.0)
        previous_duration = None
        previous_content = None
        for iteration in range(app.iterations):
            content = np.maximum(content - drain * compute, 0.0)
            fill_time = np.where(slow, (size - content) / fill_rate, np.inf)
            filled_volume = rate * fill_time
            fits = volume <= filled_volume
            throttled_time = np.where(drain > 0, (volume - filled_volume) / np.where(drain > 0, drain, 1.0), np.inf)
            burst = np.where(fits | ~slow, volume / rate, fill_time + throttled_time)
            content = np.where(
                slow,
                np.where(fits, content + (rate - drain) * volume / rate, size),
                np.maximum(content - (drain - rate) * volume / rate, 0.0),
            )
            duration = compute + burst
            elapsed = elapsed + duration
            if previous_content is not None and np.array_equal(content, previous_content) and np.array_equal(
                duration, previous_duration
            ):
                # The state at the start of an iteration repeats: the rest is periodic.
                elapsed = elapsed + duration * (app.iterations - 1 - iteration)
                break
            previous_content, previous_duration = content, duration
    return app.release + elapsed


def dilations(app: Application, size, drain) -> np.ndarray:
    """Dilation (completion - release) / nominal time for each (size, drain)."""
    return (completion_times(app, size, drain) - app.release) / app.nominal_time


def min_drain_bracket(app: Application, sizes, target: float, *, steps: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Bracket the least constant drain rate that keeps ``app``'s dilation <= ``target``.

    Dilation is non-increasing in the drain rate, and ``d = r`` gives
    dilation 1, so bisection on ``[0, r]`` applies.

    Returns
    -------
    (low, high)
        Arrays over ``sizes``: ``high`` achieves the target (checked by the
        recurrence), ``low`` does not unless it is 0 (then ``low == high == 0``).
    """
    sizes = np.asarray(sizes, dtype=float)
    limit = target * (1 + 1e-13)
    low = np.zeros(sizes.shape)
    high = np.full(sizes.shape, app.rate)
    zero_ok = dilations(app, sizes, low) <= limit
    high = np.where(zero_ok, 0.0, high)
    for _ in range(steps):
        middle = 0.5 * (low + high)
        ok = dilations(app, sizes, middle) <= limit
        high = np.where(ok, middle, high)
        low = np.where(ok, low, middle)
        if np.all(high - low <= 1e-15 * app.rate):
            break
    low = np.where(zero_ok, 0.0, low)
    return low, high
