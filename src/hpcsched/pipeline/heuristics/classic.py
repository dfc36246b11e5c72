"""The classic pipeline schedules: GPipe, 1F1B (PipeDream-flush) and interleaved 1F1B (Megatron-LM).

Each builds per-device orders of a stage chain (`hpcsched.pipeline.stages`)
and times them semi-actively (`simulate.semi_active`: the shortest schedule
with those orders). For the period objective, 1F1B and interleaved 1F1B
return their steady state, the modulo schedule of `periodic.repetend`.
"""

from __future__ import annotations

from ...core.deadline import Deadline
from ...core.result import Result
from ..model import Instance, require_fits
from ..stages import StageChain, gpipe_orders, interleaved_orders, one_f_one_b_orders, one_f_one_b_warmups
from .common import chain_of, memory_aware, not_applicable, timed
from .periodic import repetend, topological_key


def gpipe(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """GPipe (Huang et al., "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism").

    NeurIPS 2019.
    Every device runs all its forwards (by stage, then micro-batch), then all
    its backwards (by stage descending, then micro-batch; a W right after its
    B), on any stage chain. Each device holds every micro-batch's activations
    at once (peak N a_s with one stage per device); not memory-aware: when
    that exceeds a limit the result is NOT_APPLICABLE (not a proof). Period:
    NOT_APPLICABLE (a flush schedule has no steady state; see 1f1b).
    """
    require_fits(instance)
    if instance.is_period:
        return not_applicable("GPipe flushes the pipeline: it has no steady state (1f1b gives the repetend)")
    chain = chain_of(instance, what="GPipe")
    if isinstance(chain, Result):
        return chain
    deadline = Deadline.after(time_limit)
    deadline.check("building GPipe's orders")
    return timed(instance, gpipe_orders(instance, chain), "GPipe", deadline)


def _capacities(instance: Instance, chain: StageChain) -> list[int | None]:
    """Per stage, how many micro-batches its device holds within its limit (a_s = F_s's allocation)."""
    caps: list[int | None] = []
    for s in range(chain.stages):
        limit, held = instance.memory_limit[chain.device[s]], instance.blocks[chain.forward[s]].memory
        caps.append(None if limit is None or held <= 0 else limit // held)
    return caps


def one_f_one_b(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """1F1B, PipeDream-flush (Narayanan et al., "Memory-Efficient Pipeline-Parallel DNN Training", ICML 2021).

    One stage per device. Stage s warms up with min(S - s - 1, N,
    capacity_s - 1) forwards, capacity_s = ⌊M / a_s⌋ the micro-batches its
    device holds (memory-aware), warm-ups made non-increasing along the
    stages (which keeps the orders deadlock-free, `stages.one_f_one_b_orders`);
    then one forward, one backward (W right after its B) until the
    forwards run out, then the remaining backwards. If the orders still
    overflow (blocks whose memory is not "F allocates, B frees"), warm-ups are
    lowered where they overflow (`common.memory_aware`). Peak on uniform
    chains: min(N, S - s) activations on stage s's device. Period: the 1F1B
    repetend (`periodic.repetend`, micro-batch by micro-batch in topological
    order), on any stage chain.
    """
    require_fits(instance)
    deadline = Deadline.after(time_limit)
    chain = chain_of(instance, one_per_device=not instance.is_period, what="1F1B")
    if isinstance(chain, Result):
        return chain
    if instance.is_period:
        return repetend(instance, topological_key(instance), deadline, "the 1F1B repetend")
    n = instance.micro_batches
    warmups = one_f_one_b_warmups(chain, n, _capacities(instance, chain))
    found = memory_aware(
        instance,
        chain,
        lambda w, lag: one_f_one_b_orders(instance, chain, w, lag),
        warmups,
        [0] * chain.stages,
        deadline,
    )
    if isinstance(found, str):
        return not_applicable(f"1F1B does not fit in memory even without warm-up: {found}")
    orders, warmups, _ = found
    return timed(instance, orders, "1F1B", deadline, (f"warm-up forwards per stage: {warmups}",))


def interleaved_1f1b(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Interleaved 1F1B of Megatron-LM (Narayanan et al., SC 2021).

    "Efficient Large-Scale Language Model Training on GPU Clusters Using
    Megatron-LM", section 2.2.
    The placement of `generate_interleaved`: S = v D' stages on the D' devices
    that hold stages, stage s on device s mod D' (v = 1 is plain 1F1B's
    placement). Device d runs (D' - d - 1) 2 + (v - 1) D' forwards first (all
    when N = D'), then one forward, one backward (`stages.interleaved_orders`).
    Megatron asks N to be a multiple of D'; for other N the generalised order
    may deadlock, then NOT_APPLICABLE. Not memory-aware (NOT_APPLICABLE when
    it overflows). Period: the 1F1B repetend on this placement.
    """
    require_fits(instance)
    deadline = Deadline.after(time_limit)
    chain = chain_of(instance, what="interleaved 1F1B")
    if isinstance(chain, Result):
        return chain
    used = len(set(chain.device))
    if any(d != s % used for s, d in enumerate(chain.device)) or chain.stages % used:
        return not_applicable(f"interleaved 1F1B needs stage s on device s mod {used} and S a multiple of {used}")
    if instance.is_period:
        return repetend(instance, topological_key(instance), deadline, "the interleaved 1F1B repetend")
    deadline.check("building interleaved 1F1B's orders")
    orders = interleaved_orders(instance, chain, chain.stages // used)
    return timed(instance, orders, "interleaved 1F1B", deadline)
