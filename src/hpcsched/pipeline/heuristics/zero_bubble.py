"""The zero-bubble handcrafted schedules ZB-H1 and ZB-H2.

Qi, Wan, Huang and Lin, "Zero Bubble Pipeline Parallelism", ICLR 2024.

Both need the backward split into B (input gradient, on the critical path)
and W (weight gradient, which only its own stage waits for), one stage per
device. Both are 1F1B orders (`stages.one_f_one_b_orders`) in which W_s runs
``lag_s = s`` rounds after its B_s (the delayed W's fill the cooldown):

* ZB-H1 keeps 1F1B's warm-up, S - s - 1 forwards, so every stage has S
  micro-batches in flight (forward done, W not yet) and the first device,
  which holds the most, keeps 1F1B's peak; the others hold more W inputs but
  not more than the first.
* ZB-H2 warms up with 2 (S - s - 1) forwards (up to 2S - 1 micro-batches in
  flight on the first device, the paper's (2p - 1) M_B), which fills the
  warm-up bubble.

With F = B = W, no delays and N >= S, ZB-H1 already reaches the device bound
3N + S - 1 here (the paper's remaining bubble is the optimizer
synchronisation this model does not have); ZB-H2 gains with unequal times
and delays. Both are memory-aware the same way: where a device overflows,
lower the lags then the warm-ups (ZB-H1) or the warm-ups then the lags
(ZB-H2) (`common.memory_aware`). Period: the modulo schedule with every W
placed after all F's and B's (`periodic.repetend`), the same for both.
"""

from __future__ import annotations

from ...core.deadline import Deadline
from ...core.result import Result
from ..model import Instance, require_fits
from ..stages import one_f_one_b_orders, one_f_one_b_warmups
from .common import chain_of, memory_aware, not_applicable, timed
from .periodic import repetend


def _zero_bubble(instance: Instance, time_limit: float, h2: bool) -> Result:
    require_fits(instance)
    deadline = Deadline.after(time_limit)
    name = "ZB-H2" if h2 else "ZB-H1"
    chain = chain_of(instance, one_per_device=True, split=True, what=name)
    if isinstance(chain, Result):
        return chain
    if instance.is_period:
        position = {b: i for i, b in enumerate(instance.topological_order())}
        weight = set(chain.weight)
        return repetend(instance, lambda r, b: (b in weight, r, position[b]), deadline, f"the {name} repetend")
    n = instance.micro_batches
    warmups = one_f_one_b_warmups(chain, n)
    if h2:
        warmups = [min(n, 2 * w) for w in warmups]
    lags = list(range(chain.stages))
    found = memory_aware(
        instance,
        chain,
        lambda w, lag: one_f_one_b_orders(instance, chain, w, lag),
        warmups,
        lags,
        deadline,
        lags_first=not h2,
    )
    if isinstance(found, str):
        return not_applicable(f"{name} does not fit in memory even as plain 1F1B without warm-up: {found}")
    orders, warmups, lags = found
    return timed(instance, orders, name, deadline, (f"warm-ups {warmups}, W lags {lags}",))


def zb_h1(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ZB-H1 (Qi et al., ICLR 2024, section 2.1): 1F1B's warm-up, W_s delayed by s rounds (module docstring)."""
    return _zero_bubble(instance, time_limit, h2=False)


def zb_h2(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ZB-H2 (Qi et al., ICLR 2024, section 2.2): 2 (S - s - 1) warm-up forwards, W_s delayed by s rounds."""
    return _zero_bubble(instance, time_limit, h2=True)
