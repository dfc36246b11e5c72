"""Hypothesis strategies: small random pipeline instances (random block graphs and stage chains)."""

from __future__ import annotations

from hypothesis import strategies as st

from hpcsched.pipeline import Instance
from hpcsched.pipeline.generate import stage_chain_data


@st.composite
def block_graphs(draw, max_blocks: int = 4, max_devices: int = 3, objective: str = "makespan", max_micro: int = 3):
    """A random acyclic block graph on up to ``max_devices`` devices (some blocks on several devices).

    Memory comes in pairs: an edge u -> v between blocks that share a device may
    carry an allocation of a at u and a free of a at v on their shared devices,
    which keeps every device balanced and every level >= 0.
    """
    devices = draw(st.integers(1, max_devices))
    count = draw(st.integers(1, max_blocks))
    placed = []
    for _ in range(count):
        if devices > 1 and draw(st.integers(0, 5)) == 0:
            placed.append(sorted(draw(st.sets(st.integers(0, devices - 1), min_size=2, max_size=devices))))
        else:
            placed.append([draw(st.integers(0, devices - 1))])
    durations = [draw(st.integers(1, 3)) for _ in range(count)]
    memory = [0] * count
    edges = []
    for v in range(count):
        for u in range(v):
            if draw(st.integers(0, 2)) == 0:
                edges.append({"from": f"b{u}", "to": f"b{v}", "delay": draw(st.integers(0, 2))})
                if placed[u] == placed[v] and draw(st.booleans()):
                    amount = draw(st.integers(1, 3))
                    memory[u] += amount
                    memory[v] -= amount
    blocks = [
        {"name": f"b{b}", "device": placed[b], "duration": durations[b], "memory": memory[b]} for b in range(count)
    ]
    data = {"devices": devices, "blocks": blocks, "edges": edges, "objective": objective}
    micro = draw(st.integers(1, max_micro))
    data["micro_batches" if objective == "makespan" else "period_micro_batches"] = micro
    limits = []
    for device in range(devices):
        on = [m for b, m in enumerate(memory) if device in placed[b]]
        largest, alone = max([0, *on]), sum(max(m, 0) for m in on)
        limits.append(draw(st.one_of(st.none(), st.integers(largest, max(alone, 1) * micro))))
    data["memory_limit"] = limits
    return Instance.from_data(data, name="random")


@st.composite
def stage_chains(draw, max_stages: int = 3, objective: str = "makespan", max_micro: int = 3, split: bool | None = None):
    """A random stage chain (F, B and maybe W per stage), stages placed round-robin on 1..stages devices."""
    stages = draw(st.integers(1, max_stages))
    devices = draw(st.integers(1, stages))
    forward = [draw(st.integers(1, 3)) for _ in range(stages)]
    backward = [draw(st.integers(1, 4)) for _ in range(stages)]
    activation = [draw(st.integers(0, 3)) for _ in range(stages)]
    split = draw(st.booleans()) if split is None else split
    weight = [draw(st.integers(1, 2)) for _ in range(stages)] if split else None
    kept = [draw(st.integers(0, a)) for a in activation] if split else None
    blocks, edges = stage_chain_data(
        [s % devices for s in range(stages)],
        forward,
        backward,
        activation,
        weight=weight,
        weight_memory=kept,
        delay=draw(st.integers(0, 2)),
    )
    micro = draw(st.integers(1, max_micro))
    limits = []
    for device in range(devices):
        mine = [activation[s] for s in range(stages) if s % devices == device]
        limits.append(draw(st.one_of(st.none(), st.integers(max(mine), max(sum(mine), 1) * micro))))
    data = {"devices": devices, "memory_limit": limits, "blocks": blocks, "edges": edges, "objective": objective}
    data["micro_batches" if objective == "makespan" else "period_micro_batches"] = micro
    return Instance.from_data(data, name="chain")


def instances(objective: str = "makespan", max_jobs: int = 8):
    """Random block graphs or stage chains with at most ``max_jobs`` jobs."""
    either = st.one_of(
        block_graphs(objective=objective, max_micro=3), stage_chains(objective=objective, max_stages=2, max_micro=2)
    )
    return either.filter(lambda instance: instance.micro_batches * instance.n_blocks <= max_jobs)
