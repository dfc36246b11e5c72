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
simulator of ``model/fluid.py`` (the validator) is independent of this code; the
tests check that both agree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.deadline import Deadline
from .model import Application, Instance


def nominal_bursts(instance: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Nominal bursts (no slowdown) as arrays ``(application, start, end, rate)``, by application then iteration."""
    apps = instance.applications
    iterations = np.array([app.iterations for app in apps])
    owners = np.repeat(np.arange(len(apps)), iterations)
    j = np.arange(owners.size) - np.repeat(np.cumsum(iterations) - iterations, iterations)

    def column(values: list[float]) -> np.ndarray:
        return np.asarray(values, dtype=float)[owners]

    begin = column([app.release for app in apps]) + j * column([app.period for app in apps])
    begin = begin + column([app.compute for app in apps])
    return owners, begin, begin + column([app.burst_time for app in apps]), column([app.rate for app in apps])


def _elapsed(rate, volume, compute, iterations, size, drain) -> np.ndarray:
    """Time from release to completion, elementwise over flat arrays of parameters.

    Elements whose state repeats from one iteration to the next are finished
    in closed form (periodic regime) and dropped from the working set.
    """
    total = np.zeros(size.shape)
    active = np.arange(size.size)
    content = np.zeros(size.shape)
    elapsed = np.zeros(size.shape)
    previous_content = np.full(size.shape, np.nan)
    previous_duration = np.full(size.shape, np.nan)
    iteration = 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while active.size:
            r, v, w, n, S, d = (
                rate[active],
                volume[active],
                compute[active],
                iterations[active],
                size[active],
                drain[active],
            )
            c = np.maximum(content - d * w, 0.0)
            slow = d < r
            fill_time = np.where(slow, (S - c) / np.where(slow, r - d, 1.0), np.inf)
            filled_volume = r * fill_time
            fits = v <= filled_volume
            throttled_time = np.where(d > 0, (v - filled_volume) / np.where(d > 0, d, 1.0), np.inf)
            burst = np.where(fits | ~slow, v / r, fill_time + throttled_time)
            c = np.where(slow, np.where(fits, c + (r - d) * v / r, S), np.maximum(c - (d - r) * v / r, 0.0))
            duration = w + burst
            spent = elapsed + duration
            repeat = (c == previous_content) & (duration == previous_duration)
            spent = np.where(repeat, spent + duration * (n - 1 - iteration), spent)
            finished = repeat | (iteration + 1 >= n) | ~np.isfinite(spent)
            total[active[finished]] = spent[finished]
            keep = ~finished
            active = active[keep]
            content, elapsed = c[keep], spent[keep]
            previous_content, previous_duration = c[keep], duration[keep]
            iteration += 1
    return total


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
    size, drain = np.broadcast_arrays(np.asarray(size, dtype=float), np.asarray(drain, dtype=float))
    shape = size.shape
    flat_size, flat_drain = size.ravel().copy(), drain.ravel().copy()
    ones = np.ones(flat_size.shape)
    elapsed = _elapsed(
        app.rate * ones, app.volume * ones, app.compute * ones, app.iterations * ones, flat_size, flat_drain
    )
    return app.release + elapsed.reshape(shape)


#: Cells of a drain table one recurrence pass covers between two looks at the deadline: a pass over
#: the whole table of 10^5 applications x 33 sizes took seconds (its first pass, ~40 iterations).
CELLS_PER_CHECK = 1 << 18


def _elapsed_checked(deadline: Deadline, *columns: np.ndarray) -> np.ndarray:
    """`_elapsed` over chunks of `CELLS_PER_CHECK` cells, the deadline read before each (it is elementwise)."""
    count = columns[0].size
    if count <= CELLS_PER_CHECK:
        return _elapsed(*columns)
    out = np.empty(count)
    for start in range(0, count, CELLS_PER_CHECK):
        deadline.check("tabulating the least drain rates")
        part = slice(start, start + CELLS_PER_CHECK)
        out[part] = _elapsed(*(column[part] for column in columns))
    return out


def drain_table_brackets(
    apps: Sequence[Application],
    sizes,
    target: float,
    *,
    low=None,
    high=None,
    precision: float = 1e-12,
    steps: int = 64,
    deadline: Deadline | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bracket the least drain meeting ``target`` for every application and size at once.

    Parameters
    ----------
    apps
        The applications (rows of the tables).
    sizes
        Partition sizes in bytes (columns).
    target
        The dilation to meet.
    low, high
        Optional starting brackets of shape (K, len(sizes)): ``low`` must miss
        the target (or be 0), ``high`` must meet it. The sharing bisection
        passes the tables of its current bounds, so late steps start narrow.
    precision
        Stop when ``high - low <= precision * r_k``.
    deadline
        Checked before every bisection step over the whole table (a step
        costs one recurrence pass over K x len(sizes) cells).

    Returns
    -------
    (low, high)
        ``high`` meets the target, ``low`` misses it unless it is 0 and 0 meets it.

    Raises
    ------
    TimeLimitReached
        When ``deadline`` passes before the brackets are tight.
    """
    deadline = deadline or Deadline(None)
    sizes = np.asarray(sizes, dtype=float)
    shape = (len(apps), sizes.size)

    def column(values: list[float]) -> np.ndarray:
        return np.repeat(np.asarray(values, dtype=float)[:, None], sizes.size, axis=1).ravel()

    rate = column([a.rate for a in apps])
    volume = column([a.volume for a in apps])
    compute = column([a.compute for a in apps])
    iterations = column([a.iterations for a in apps])
    nominal = column([a.nominal_time for a in apps])
    size = np.tile(sizes, len(apps))
    limit = target * (1 + 1e-13) * nominal
    low = np.zeros(size.shape) if low is None else np.array(low, dtype=float).ravel()
    high = rate.copy() if high is None else np.array(high, dtype=float).ravel()
    deadline.check("tabulating the least drain rates")
    at_zero = np.flatnonzero(low <= 0)
    if at_zero.size:
        ok = (
            _elapsed_checked(
                deadline,
                rate[at_zero],
                volume[at_zero],
                compute[at_zero],
                iterations[at_zero],
                size[at_zero],
                np.zeros(at_zero.size),
            )
            <= limit[at_zero]
        )
        high[at_zero[ok]] = 0.0
    open_ = np.flatnonzero(high - low > precision * rate)
    for _ in range(steps):
        if not open_.size:
            break
        deadline.check("tabulating the least drain rates")
        middle = 0.5 * (low[open_] + high[open_])
        ok = (
            _elapsed_checked(
                deadline, rate[open_], volume[open_], compute[open_], iterations[open_], size[open_], middle
            )
            <= limit[open_]
        )
        high[open_] = np.where(ok, middle, high[open_])
        low[open_] = np.where(ok, low[open_], middle)
        open_ = open_[high[open_] - low[open_] > precision * rate[open_]]
    return low.reshape(shape), high.reshape(shape)


def dilations(app: Application, size, drain) -> np.ndarray:
    """Dilation (completion - release) / nominal time for each (size, drain)."""
    return (completion_times(app, size, drain) - app.release) / app.nominal_time


def dilations_alone(apps: Sequence[Application], size, drain) -> np.ndarray:
    """Dilation of each application alone, for one (size, drain) each or the same for all, in one pass.

    ``size`` and ``drain`` are scalars or arrays of ``len(apps)``; the values are those of
    `dilations` called application by application (the same arithmetic), at the cost of one
    vectorized recurrence instead of one per application (10^5 applications: 7 s -> 0.1 s).
    """
    count = len(apps)

    def column(values) -> np.ndarray:
        return np.broadcast_to(np.asarray(values, dtype=float), (count,)).copy()

    release = column([a.release for a in apps])
    elapsed = _elapsed(
        column([a.rate for a in apps]),
        column([a.volume for a in apps]),
        column([a.compute for a in apps]),
        column([a.iterations for a in apps]),
        column(size),
        column(drain),
    )
    return ((release + elapsed) - release) / column([a.nominal_time for a in apps])
