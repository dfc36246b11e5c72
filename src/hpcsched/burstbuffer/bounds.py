"""Lower bounds on the optimum of each objective.

* ``sharing``: no application can do better than alone with the whole
  buffer (N granules) and the whole PFS bandwidth B, and its dilation is at
  least 1, so max(1, max_k D_k(N G, B)) is a lower bound on the static
  optimum (and on any dynamic allocation of capacity S as well: in the
  shared buffer an application gets at most S and B).
  That argument is for a room of N G: a dynamic allocation of capacity
  S > N G (S not a multiple of G) gives an application more room than any
  static partition, so `dynamic_bound` recomputes it with the room S.
* ``sizing-dynamic``: the maximum nominal backlog S*_dyn is the optimum itself.
* ``sizing-static``: S*_dyn (on the finite horizon) is a lower bound: at every
  instant the total content of static partitions drained at sum d_k(t) <= B
  is at least the backlog of the work-conserving queue.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InfeasibleError
from .model import Instance
from .simulate import dilations_alone, nominal_bursts


def check_load(instance: Instance) -> None:
    """Raise InfeasibleError when the long-run I/O load exceeds the PFS bandwidth.

    Over a long horizon the buffer cannot absorb more than B per second on
    average: with sum_k v_k/T_k > B some application must be slowed down,
    whatever the buffer size.
    """
    total = sum(app.io_rate for app in instance.applications)
    bandwidth = instance.platform.pfs_bandwidth
    if total > bandwidth * (1 + 1e-12):
        heaviest = max(instance.applications, key=lambda app: app.io_rate)
        raise InfeasibleError(
            f"I/O load sum_k v_k/T_k = {total:.6g} B/s exceeds the PFS bandwidth B = {bandwidth:.6g} B/s "
            f"(load {total / bandwidth:.4f} > 1; heaviest: {heaviest.name} at {heaviest.io_rate:.6g} B/s): "
            "no buffer size avoids slowdown in the long run"
        )


def dynamic_backlog(instance: Instance) -> tuple[float, float]:
    """Maximum backlog of the nominal fluid queue and the instant it is reached (Reich's formula).

    This is S*_dyn, the least shared buffer with no slowdown (the optimum of
    ``sizing-dynamic``, proof in ``docs/burstbuffer.md``) and a lower bound
    for ``sizing-static``.
    """
    _, starts, ends, rates = nominal_bursts(instance)
    times = np.concatenate([starts, ends])
    deltas = np.concatenate([rates, -rates])
    order = np.argsort(times, kind="stable")
    times, deltas = times[order], deltas[order]
    inflow = np.cumsum(deltas)  # aggregate rate on [times[i], times[i+1])
    lengths = np.diff(times)
    net = (inflow[:-1] - instance.platform.pfs_bandwidth) * lengths
    cumulative = np.concatenate([[0.0], np.cumsum(net)])
    backlog = cumulative - np.minimum.accumulate(cumulative)
    best = int(np.argmax(backlog))
    return float(max(backlog[best], 0.0)), float(times[best])


def dynamic_backlog_floor(instance: Instance) -> float:
    """`dynamic_backlog` less its worst float error: a lower bound that rounding cannot lift.

    Reich's formula sums n products (rate - B) x length: the computed running
    sums are off by at most about n x 1.1e-16 x the sum of their magnitudes
    (the classic bound for recursive summation; the doubled factor covers the
    products and the running minimum). With volumes of 2^52 bytes that is a
    few bytes: enough for a 2-byte "backlog" where none exists, which as a
    bound on a solution of size 0 the registry rightly refuses.
    """
    _, starts, ends, rates = nominal_bursts(instance)
    times = np.sort(np.concatenate([starts, ends]))
    magnitude = float(
        np.sum(np.abs(rates) * (ends - starts)) + instance.platform.pfs_bandwidth * (times[-1] - times[0])
    )
    error = 2.0 * (len(times) + 2) * np.finfo(float).eps * magnitude
    return max(0.0, dynamic_backlog(instance)[0] - error)


def single_application_bound(instance: Instance) -> float:
    """max(1, max_k dilation of k alone with the whole buffer and bandwidth)."""
    room = instance.platform.granules * instance.platform.granule
    bandwidth = instance.platform.pfs_bandwidth
    worst = float(dilations_alone(instance.applications, room, bandwidth).max())
    return max(1.0, worst)


def dynamic_bound(instance: Instance, capacity: float) -> float:
    """max(1, max_k dilation of k alone with room ``capacity`` and bandwidth B).

    A lower bound on the max dilation of any *dynamic* allocation of that
    capacity: in the shared buffer an application never has more than the
    whole capacity and the whole bandwidth. (`single_application_bound` uses
    the room N G of the static problem, which a dynamic buffer of S > N G
    may beat.)
    """
    bandwidth = instance.platform.pfs_bandwidth
    worst = float(dilations_alone(instance.applications, capacity, bandwidth).max())
    return max(1.0, worst)


def best(instance: Instance) -> float:
    """The best cheap lower bound for the instance's objective."""
    if instance.objective == "sharing":
        return single_application_bound(instance)
    return dynamic_backlog(instance)[0]
