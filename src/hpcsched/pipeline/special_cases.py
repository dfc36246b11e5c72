"""Polynomial special cases of the pipeline problem, each with its theorem; NOT_APPLICABLE outside its class.

* `one_device` — D = 1 and no delays: the optimum is N Σd (makespan) or
  R Σd (period) when the least peak of one micro-batch fits, else no
  schedule exists.
* `uniform_1f1b` — a stage chain with one stage per device, uniform stage
  times f and b, no W blocks, no delays, memory enough for 1F1B: 1F1B
  reaches (N + S - 1)(f + b) = the device bound.
* `unlimited_period` — single-device blocks, period objective: P = R max_d
  work_d (phases packed per device, offsets lifted by multiples of P in
  topological order) whenever that schedule fits in memory, always when
  memory is unlimited.

Proofs: the docstrings and docs/pipeline.md, "Special cases".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..core.deadline import Deadline
from ..core.errors import InfeasibleError
from ..core.result import Result, Status
from .bounds import device_bound, heads, work_bound
from .model import Instance, Solution, require_fits, steady_state_levels
from .simulate import order_peaks, semi_active
from .stages import one_f_one_b_orders, one_f_one_b_warmups, stage_chain

#: Most search states (predecessor-closed sets) `least_peak_order` explores before giving up.
MAX_PEAK_STATES = 200_000


def _not_applicable(why: str) -> Result:
    return Result(status=Status.NOT_APPLICABLE, notes=(why,))


def least_peak_order(instance: Instance, device: int = 0, max_states: int = MAX_PEAK_STATES) -> tuple[int, list[int]]:
    """The least peak on ``device`` over the topological orders of one micro-batch, and an order reaching it.

    Exact search over the predecessor-closed sets of blocks (the level of a
    set is fixed; the peak of an order is max over its steps of level before
    + allocation). Dominance: a ready block that frees or is neutral
    (δ <= 0) runs at once. *Proof*: in any order, moving such a block j to
    the current position leaves the step it takes at the current level
    (≤ the peak of the step that was there) and lowers by |δ_j| or leaves
    unchanged the levels of the steps it overtakes; the other steps are
    unchanged. Raises ValueError past ``max_states`` states.
    """
    blocks, predecessors = instance.blocks, instance.predecessors()
    delta = [b.memory if device in b.devices else 0 for b in blocks]
    need = [sum(1 << u for u, _ in predecessors[b]) for b in range(len(blocks))]
    full = (1 << len(blocks)) - 1

    def close(done: int, level: int, order: list[int]) -> tuple[int, int]:
        changed = True
        while changed:
            changed = False
            for b in range(len(blocks)):
                if not done >> b & 1 and need[b] & done == need[b] and delta[b] <= 0:
                    done |= 1 << b
                    level += delta[b]
                    order.append(b)
                    changed = True
        return done, level

    start_order: list[int] = []
    done, level = close(0, 0, start_order)
    best: dict[int, tuple[int, int, list[int]]] = {done: (0, level, start_order)}
    frontier = [done]
    while frontier:
        if len(best) > max_states:
            raise ValueError(f"more than {max_states} predecessor-closed sets")
        following = []
        for state in frontier:
            peak, level, order = best[state]
            for b in range(len(blocks)):
                if state >> b & 1 or need[b] & state != need[b]:
                    continue
                step = max(peak, level + delta[b])
                after = [*order, b]
                closed, closed_level = close(state | 1 << b, level + delta[b], after)
                if closed not in best or best[closed][0] > step:
                    if closed not in best:
                        following.append(closed)
                    best[closed] = (step, closed_level, after)
        frontier = following
    peak, _, order = best[full]
    return peak, order


def one_device(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """D = 1 without delays: micro-batch after micro-batch in a least-peak order is optimal.

    **Theorem.** Let D = 1, every delay 0, p* the least peak of one
    micro-batch over its topological orders. If M >= p* (or M unlimited),
    running the micro-batches one after another, each in an order of peak
    p*, is optimal: makespan N Σ_b d_b, period R Σ_b d_b. If M < p*, no
    schedule exists (makespan and period).

    *Proof.* The device runs N Σd of work one block at a time, so every
    makespan is >= N Σd (and every period >= R Σd, the work bound); the
    schedule has no idle time (no delays, and each block's predecessors ran
    before it on the same device), so it reaches the bound; by the
    memory-order lemma its peak is that of one micro-batch's order, p*. For a
    period, R micro-batches back to back fill [0, R Σd) = one period, so two
    copies never overlap and the steady-state level is one micro-batch's.
    Conversely, in any order of the jobs, the jobs of one micro-batch m form,
    at every step, a predecessor-closed set of m, whose level is >= 0
    (instance rule 3), so the level before any job of m is >= m's own level
    before it; at m's own peak step the total is >= p*. Hence a schedule
    fits only if p* <= M. For a period this is the feasibility theorem
    (docs/pipeline.md): the stream fits only if one micro-batch alone does. ∎
    """
    require_fits(instance)
    if instance.devices != 1:
        return _not_applicable(f"{instance.devices} devices (the special case needs one)")
    if any(edge.delay for edge in instance.edges):
        return _not_applicable("an edge has a delay (idle time on one device; the special case needs none)")
    Deadline.after(time_limit).check("starting one-device")
    try:
        peak, order = least_peak_order(instance)
    except ValueError as error:
        return _not_applicable(f"the least-peak search is too large: {error}")
    limit = instance.memory_limit[0]
    if limit is not None and peak > limit:
        raise InfeasibleError(f"one micro-batch needs at least {peak} on device 0 in any order, the limit is {limit}")
    total = sum(block.duration for block in instance.blocks)
    position, clock = [0] * instance.n_blocks, 0
    for b in order:
        position[b] = clock
        clock += instance.blocks[b].duration
    rows = [[m * total + p for p in position] for m in range(instance.micro_batches)]
    bound = instance.micro_batches * total
    note = f"one micro-batch at a time in a least-peak order (peak {peak})"
    solution = Solution.periodic(bound, rows) if instance.is_period else Solution.makespan(rows)
    return Result(status=Status.OPTIMAL, solution=solution, bound=bound, notes=(note,))


def uniform_1f1b(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """1F1B on uniform stages, one per device, no delays, enough memory: (N + S - 1)(f + b), optimal.

    **Theorem.** Let the instance be a stage chain with S stages on S
    distinct devices, every F of duration f, every B of duration b, no W
    blocks, no delays, F_s allocating a_s, and M_{dev(s)} >= min(N, S - s) a_s.
    Then 1F1B (warm-up min(S - s - 1, N) forwards on stage s) fits and its
    makespan is (N + S - 1)(f + b), the device bound: it is optimal.

    *Proof.* Lower bound: the device of stage S - 1 cannot start before
    F_{S-1}'s head (S - 1) f, runs N (f + b), and its last job is a B_{S-1}
    whose tail is (S - 1) b: (N + S - 1)(f + b) (`bounds.device_bound`).
    Upper bound: with T = f + b, the times F_s(m) = s f + m T and
    B_s(m) = S f + (S - 1 - s) b + m T follow 1F1B's order on every device
    (B_s(i) = F_s(w_s + i) + f: each steady backward right after its forward,
    the next forward right after it; consecutive forwards, and consecutive
    backwards, are T >= f, b apart; when N <= S - s - 1 the last forward
    (s + N) f + (N - 1) b ends before B_s(0)) and respect every edge
    (F_{s+1}(m) = F_s(m) + f, B_{S-1}(m) = F_{S-1}(m) + f,
    B_s(m) = B_{s+1}(m) + b, F_s(m) + f <= B_s(m)); the last end is
    B_0(N - 1) + b = (N + S - 1) T. The semi-active timing of the same
    orders is no later (corollary of the memory-order lemma). Memory: along
    stage s's order at most min(N, w_s + 1) = min(N, S - s) forwards precede
    their backwards, so its peak is min(N, S - s) a_s. ∎
    """
    require_fits(instance)
    chain = stage_chain(instance)
    if isinstance(chain, str):
        return _not_applicable(chain)
    if instance.is_period:
        return _not_applicable("a period instance (see unlimited-period)")
    if not chain.one_stage_per_device():
        return _not_applicable("a device holds several stages")
    if any(w is not None for w in chain.weight):
        return _not_applicable("the backward is split into B and W")
    if any(edge.delay for edge in instance.edges):
        return _not_applicable("an edge has a delay")
    durations = (
        {instance.blocks[b].duration for b in chain.forward},
        {instance.blocks[b].duration for b in chain.backward},
    )
    if len(durations[0]) > 1 or len(durations[1]) > 1:
        return _not_applicable("the stages' forward or backward durations differ")
    n, stages = instance.micro_batches, chain.stages
    for s in range(stages):
        limit, need = (
            instance.memory_limit[chain.device[s]],
            min(n, stages - s) * instance.blocks[chain.forward[s]].memory,
        )
        if limit is not None and need > limit:
            return _not_applicable(f"1F1B needs {need} on device {chain.device[s]}, whose limit is {limit}")
    deadline = Deadline.after(time_limit)
    deadline.check("starting uniform-1f1b")
    orders = one_f_one_b_orders(instance, chain, one_f_one_b_warmups(chain, n))
    start = semi_active(instance, orders, deadline)
    assert start is not None and _fits(instance, order_peaks(instance, orders))
    bound = device_bound(instance)
    solution = Solution.makespan(start)
    return Result(status=Status.OPTIMAL, solution=solution, bound=bound, notes=("1F1B: (N + S - 1)(f + b)",))


def _fits(instance: Instance, peaks: Sequence[int]) -> bool:
    return all(m is None or p <= m for p, m in zip(peaks, instance.memory_limit, strict=True))


def lift(instance: Instance, period: int, phase: Mapping[tuple[int, int], int]) -> list[list[int]]:
    """Offsets with the given phases (mod ``period``), each as early as its in-edges allow, micro-batch by micro-batch.

    Job (r, b) gets the least t >= max over its edges u -> b of o_u + d_u + ℓ
    (0 for a source) with t ≡ phase[r, b] (mod P), in topological order:
    every edge holds by construction and the phases are kept.
    """
    predecessors = instance.predecessors()
    order = instance.topological_order()
    offsets = []
    for r in range(instance.micro_batches):
        row = [0] * instance.n_blocks
        for b in order:
            ready = max((row[u] + instance.blocks[u].duration + delay for u, delay in predecessors[b]), default=0)
            row[b] = ready + (phase[r, b] - ready) % period
        offsets.append(row)
    return offsets


def steady_fits(instance: Instance, solution: Solution) -> bool:
    """True when the periodic ``solution``'s steady-state level stays within every device's limit."""
    for d, limit in enumerate(instance.memory_limit):
        if limit is not None and any(level > limit for _, level in steady_state_levels(instance, solution, d)):
            return False
    return True


def unlimited_period(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Period R max_d work_d, the work bound: phases packed per device, offsets lifted in topological order.

    **Theorem.** If every block occupies one device, the period
    P = R max_d work_d is reached by this schedule: on each device, its R
    micro-batches' executions are packed back to back from phase 0 (in order
    of their blocks' heads, then micro-batch), and each execution gets the
    least offset >= the ends (plus delays) of its predecessors that has its
    phase modulo P (`lift`). When it fits in memory (always with unlimited
    memory) it is optimal.

    *Proof.* A device's executions take R work_d <= P on the circle, packed
    without overlap, and every execution of the stream sits at its phase
    modulo P, so no two overlap; every edge holds by the lift. P equals the
    work bound R max_d work_d, below which no period exists. With blocks on
    several devices the phases of one block would have to agree on all of
    them (three blocks pairwise sharing a device need three distinct phases),
    which packing per device does not give: outside the class. ∎
    """
    require_fits(instance)
    if not instance.is_period:
        return _not_applicable("a makespan instance (the special case is for the period)")
    if any(len(block.devices) > 1 for block in instance.blocks):
        return _not_applicable("a block occupies several devices")
    Deadline.after(time_limit).check("starting unlimited-period")
    period = work_bound(instance)
    head, phase = heads(instance), {}
    for d in range(instance.devices):
        clock = 0
        jobs = sorted((head[b], r, b) for b in instance.device_blocks(d) for r in range(instance.micro_batches))
        for _, r, b in jobs:
            phase[r, b] = clock
            clock += instance.blocks[b].duration
    solution = Solution.periodic(period, lift(instance, period, phase))
    if not steady_fits(instance, solution):
        return _not_applicable("the packed schedule exceeds a memory limit (not a proof that P is infeasible)")
    return Result(status=Status.OPTIMAL, solution=solution, bound=period, notes=("P = R max_d work_d",))
