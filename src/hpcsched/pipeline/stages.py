"""Stage chains: recognising them, and the per-device orders of the classic pipeline schedules.

A *stage chain* (docs/pipeline.md, "Instances and generators") labels every
block with a stage s in 0..S-1 and a kind: F_s, B_s and optionally W_s, all
on one device dev(s), with the chain edges F_s -> F_{s+1},
F_{S-1} -> B_{S-1}, B_{s+1} -> B_s, B_s -> W_s (and optionally
F_s -> B_s), any delays. `stage_chain` recognises one; the order templates
below (GPipe, 1F1B, interleaved 1F1B, zero-bubble) turn it into per-device
orders of jobs ``(m, b)`` that `simulate.timing` times. Special cases and
heuristics share this module (the special case ``uniform-1f1b`` *is* the
1F1B order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import Instance

Job = tuple[int, int]


@dataclass(frozen=True)
class StageChain:
    """The stage structure of an instance (block indices per stage).

    Attributes
    ----------
    forward, backward
        Block index of F_s and B_s, s = 0..S-1.
    weight
        Block index of W_s, or None where the stage's backward is not split.
    device
        dev(s), the device of stage s.
    """

    forward: tuple[int, ...]
    backward: tuple[int, ...]
    weight: tuple[int | None, ...]
    device: tuple[int, ...]

    @property
    def stages(self) -> int:
        """S."""
        return len(self.forward)

    @property
    def split(self) -> bool:
        """True when every stage has a W block."""
        return all(w is not None for w in self.weight)

    def stages_on(self, device: int) -> tuple[int, ...]:
        """The stages of ``device``, in increasing order."""
        return tuple(s for s, d in enumerate(self.device) if d == device)

    def one_stage_per_device(self) -> bool:
        """True when no device holds two stages."""
        return len(set(self.device)) == len(self.device)


def stage_chain(instance: Instance) -> StageChain | str:
    """The `StageChain` of ``instance``, or the reason (one sentence) why it is not a stage chain."""
    slots: dict[tuple[int, str], int] = {}
    for b, block in enumerate(instance.blocks):
        if len(block.devices) > 1:
            return f"block '{block.name}' occupies several devices (stage schedules place a block on one)"
        if block.stage is None or block.kind is None:
            return f"block '{block.name}' has no stage or kind label"
        if (block.stage, block.kind) in slots:
            return f"stage {block.stage} has two {block.kind} blocks"
        slots[block.stage, block.kind] = b
    stages = 1 + max(s for s, _ in slots)
    for s in range(stages):
        for kind in ("F", "B"):
            if (s, kind) not in slots:
                return f"stage {s} has no {kind} block"
    forward = tuple(slots[s, "F"] for s in range(stages))
    backward = tuple(slots[s, "B"] for s in range(stages))
    weight = tuple(slots.get((s, "W")) for s in range(stages))
    device = tuple(instance.blocks[b].device for b in forward)
    for s in range(stages):
        for other in (backward[s], weight[s]):
            if other is not None and instance.blocks[other].device != device[s]:
                return f"the blocks of stage {s} are not all on one device"
    chain = StageChain(forward, backward, weight, device)
    why = _edges_reason(instance, chain)
    return why if why is not None else chain


def _edges_reason(instance: Instance, chain: StageChain) -> str | None:
    """None when the edges are the chain's (module docstring), else the reason."""
    f, b, w, last = chain.forward, chain.backward, chain.weight, chain.stages - 1
    required = {(f[s], f[s + 1]) for s in range(last)} | {(b[s + 1], b[s]) for s in range(last)}
    required |= {(f[last], b[last])} | {(b[s], ws) for s, ws in enumerate(w) if ws is not None}
    allowed = required | {(f[s], b[s]) for s in range(last + 1)}
    present = {(e.source, e.target) for e in instance.edges}
    extra = present - allowed
    if extra:
        u, v = sorted(extra)[0]
        return f"edge {instance.blocks[u].name} -> {instance.blocks[v].name} is not an edge of a stage chain"
    missing = required - present
    if missing:
        u, v = sorted(missing)[0]
        return f"the chain edge {instance.blocks[u].name} -> {instance.blocks[v].name} is missing"
    return None


def _orders(instance: Instance, sequences: dict[int, list[Job]]) -> tuple[tuple[Job, ...], ...]:
    return tuple(tuple(sequences.get(d, ())) for d in range(instance.devices))


def _backward(chain: StageChain, s: int, m: int) -> list[Job]:
    """B_s of micro-batch m, then its W_s when split (the unsplit behaviour: W right after B)."""
    w = chain.weight[s]
    return [(m, chain.backward[s])] if w is None else [(m, chain.backward[s]), (m, w)]


def gpipe_orders(instance: Instance, chain: StageChain) -> tuple[tuple[Job, ...], ...]:
    """GPipe (Huang et al., NeurIPS 2019): per device every forward, then every backward.

    Forwards by (stage, micro-batch), backwards by (stage descending,
    micro-batch), each W right after its B. The orders are restrictions of
    one global order that respects every chain edge, so together with the
    edges they are acyclic.
    """
    sequences: dict[int, list[Job]] = {}
    n = instance.micro_batches
    for s in range(chain.stages):
        sequences.setdefault(chain.device[s], []).extend((m, chain.forward[s]) for m in range(n))
    for s in reversed(range(chain.stages)):
        for m in range(n):
            sequences[chain.device[s]].extend(_backward(chain, s, m))
    return _orders(instance, sequences)


def one_f_one_b_warmups(chain: StageChain, n: int, capacity: Sequence[int | None] | None = None) -> list[int]:
    """Warm-up forwards per stage: min(S - s - 1, N, capacity_s - 1), made non-increasing along the stages.

    ``capacity[s]``: micro-batches stage s may hold at once (None: no cap).
    Non-increasing warm-ups keep the 1F1B orders acyclic (`one_f_one_b_orders`).
    """
    warmups, previous = [], n
    for s in range(chain.stages):
        w = min(chain.stages - s - 1, n)
        if capacity is not None and capacity[s] is not None:
            w = min(w, max(capacity[s] - 1, 0))  # type: ignore[operator]
        previous = min(w, previous)
        warmups.append(previous)
    return warmups


def one_f_one_b_orders(
    instance: Instance, chain: StageChain, warmups: Sequence[int], lags: Sequence[int] | None = None
) -> tuple[tuple[Job, ...], ...]:
    """1F1B (PipeDream-flush; Narayanan et al., ICML 2021) on one stage per device.

    Stage s runs ``warmups[s]`` forwards, then alternates one forward and one
    backward (forward of micro-batch w + i, then backward of i), then the
    remaining backwards. W_s (when split) runs ``lags[s]`` rounds after its B_s
    (0: right after it; the zero-bubble H1 schedule delays it), the delayed
    ones at the end.

    Acyclic whenever the warm-ups do not increase along the stages: B_s of
    micro-batch i waits for B_{s+1} of i, which on its device follows the
    forwards up to w_{s+1} + i of stage s + 1, hence of stage s, and those run
    on dev(s) before B_s of i since w_{s+1} <= w_s.
    """
    n = instance.micro_batches
    sequences: dict[int, list[Job]] = {}
    for s in range(chain.stages):
        warm, lag = warmups[s], 0 if lags is None else lags[s]
        f, b, w = chain.forward[s], chain.backward[s], chain.weight[s]
        sequence: list[Job] = [(m, f) for m in range(min(warm, n))]
        for i in range(n):
            if warm + i < n:
                sequence.append((warm + i, f))
            sequence.append((i, b))
            if w is not None and i >= lag:
                sequence.append((i - lag, w))
        if w is not None:
            sequence.extend((m, w) for m in range(max(n - lag, 0), n))
        sequences[chain.device[s]] = sequence
    return _orders(instance, sequences)


def interleaved_orders(instance: Instance, chain: StageChain, chunks: int) -> tuple[tuple[Job, ...], ...]:
    """Interleaved 1F1B (Megatron-LM; Narayanan et al., SC 2021) with ``chunks`` = v stages per device.

    Stage s = c D + d is chunk c of device d. Device d runs its forwards in the
    order: micro-batches in groups of D, for each group the chunks 0..v-1, for
    each chunk the group's micro-batches; its backwards in the same order with
    the chunks reversed. It first runs (D - d - 1) 2 + (v - 1) D forwards (all
    of them when N = D, as Megatron does), then alternates one forward, one
    backward, then the remaining backwards; W right after its B.
    """
    n, devices = instance.micro_batches, len(set(chain.device))
    groups = [range(g, min(g + devices, n)) for g in range(0, n, devices)]
    sequences: dict[int, list[Job]] = {}
    for d in range(devices):
        mine = [d + c * devices for c in range(chunks)]
        forwards = [(m, chain.forward[s]) for group in groups for s in mine for m in group]
        backwards = [job for group in groups for s in reversed(mine) for m in group for job in _backward(chain, s, m)]
        per = len(backwards) // len(forwards)  # B, or B and W, per forward
        total = len(forwards)
        warm = total if n == devices else min(total, (devices - d - 1) * 2 + (chunks - 1) * devices)
        sequence = forwards[:warm]
        for i in range(total - warm):
            sequence.append(forwards[warm + i])
            sequence.extend(backwards[i * per : (i + 1) * per])
        sequence.extend(backwards[(total - warm) * per :])
        sequences[d] = sequence
    return _orders(instance, sequences)


def zero_bubble_h2_orders(instance: Instance, chain: StageChain) -> tuple[tuple[Job, ...], ...]:
    """ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024) on one stage per device, split backward.

    Stage s first runs min(N, 2 (S - s) - 1) forwards (the extra forwards fill
    the warm-up bubble; with F = B = W they are what fits before the first
    backward arrives), then per round one B, one F (while any remain), one W;
    the remaining W's at the end.
    """
    n = instance.micro_batches
    sequences: dict[int, list[Job]] = {}
    for s in range(chain.stages):
        warm = min(n, 2 * (chain.stages - s) - 1)
        f, b, w = chain.forward[s], chain.backward[s], chain.weight[s]
        assert w is not None
        sequence: list[Job] = [(m, f) for m in range(warm)]
        for i in range(n):
            sequence.append((i, b))
            if warm + i < n:
                sequence.append((warm + i, f))
            sequence.append((i, w))
        sequences[chain.device[s]] = sequence
    return _orders(instance, sequences)
