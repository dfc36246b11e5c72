"""Lower bounds on the optimal makespan, and the infeasibility checks every method shares.

Every makespan bound ignores transfers and memory (c_uv >= 0 only delays;
memory only restricts), so it holds for both memory models and for the
problem without memory limit (P|prec, c_uv|Cmax, NP-hard: these bounds are
what we have there). Times are integers, so ``ceil`` of a valid bound is
valid: some optimal schedule has integer starts (shift every start left to
the end of a predecessor plus its transfer or of the previous task on its
GPU; memory permitting, see `hpcsched.partition.formulations`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from ..core.errors import InfeasibleError
from ..taskgraph import successors, topological_order
from .model import Instance
from .simulate import units


def area(instance: Instance) -> int:
    """⌈Σp / K⌉. Proof: K GPUs do Σp units of work before the makespan."""
    return math.ceil(sum(instance.times) / instance.gpus)


def critical_path(instance: Instance) -> int:
    """The longest path with node times only. Proof: the nodes of a path run one after the other."""
    outgoing = successors(instance.n, instance.edges)
    head = [0] * instance.n  # longest path ending at v, v included
    for u in topological_order(instance.n, instance.edges):
        head[u] += instance.nodes[u].time
        for edge in outgoing[u]:
            head[edge.v] = max(head[edge.v], head[u])
    return max(head)


def best(instance: Instance) -> int:
    """The larger of `area` and `critical_path`."""
    return max(area(instance), critical_path(instance))


def unit_memory_floor(instance: Instance, members: Sequence[int], *, positive_makespan: bool = True) -> int:
    """Memory a set of nodes placed together needs on its GPU in any schedule.

    Static: Σ (w_v + s_v), the definition. Dynamic: Σ w_v (held the whole
    iteration) plus the largest s_v of a node with p_v > 0. Proof (dynamic):
    at an instant inside that node's run [S_v, C_v), non-empty, its output
    and every w of the set are held. When every time is 0 (pass
    ``positive_makespan=False``) the dynamic model holds nothing: 0.
    """
    nodes = instance.nodes
    if instance.memory_model == "dynamic" and not positive_makespan:
        return 0
    if instance.memory_model == "static":
        return sum(nodes[v].persistent + nodes[v].output for v in members)
    return sum(nodes[v].persistent for v in members) + max(
        (nodes[v].output for v in members if nodes[v].time > 0), default=0
    )


def gpus_needed(instance: Instance) -> int:
    """Bin-packing lower bound on the number of GPUs of memory M that the colocation units need.

    Items: static, each unit's Σ (w + s); dynamic, each unit's Σ w (every
    w of a GPU is held during the whole iteration, so they share one GPU's
    M at once, provided the makespan is positive). Bound: max(⌈Σ items /
    M⌉, number of items > M/2), the two classic bin-packing bounds (two
    items above M/2 never share a bin). 0 items of positive size: 1 GPU.
    """
    sizes = []
    for unit in units(instance):
        if instance.memory_model == "static":
            sizes.append(unit_memory_floor(instance, unit.members))
        else:
            sizes.append(sum(instance.nodes[v].persistent for v in unit.members))
    total = sum(sizes)
    if total == 0:
        return 1
    if instance.memory_model == "dynamic" and sum(instance.times) == 0:
        return 1  # a makespan of 0 holds nothing (the definition's persistent interval is [0, 0)), even with M = 0
    if instance.memory == 0:
        return math.inf  # type: ignore[return-value]
    large = sum(1 for size in sizes if 2 * size > instance.memory)
    return max(1, math.ceil(total / instance.memory), large)


def require_feasible(instance: Instance) -> None:
    """Raise `InfeasibleError` (with the reason) when a simple argument proves the instance infeasible.

    A group pinned to two GPUs; a colocation unit (a group, or a node alone)
    needing more than M (`unit_memory_floor`); the units pinned to one GPU
    needing more than M together; and, for static memory and for dynamic
    memory with a positive total time, `gpus_needed` > K ("K is too small").
    """
    pinned: dict[int, list[int]] = defaultdict(list)
    positive = any(node.time > 0 for node in instance.nodes)
    for unit in units(instance):
        pins = {pin for v in unit.members if (pin := instance.nodes[v].pin) is not None}
        label = f"group {unit.group!r}" if unit.group is not None else f"node '{instance.nodes[unit.members[0]].name}'"
        if len(pins) > 1:
            raise InfeasibleError(f"{label} is pinned to GPUs {sorted(pins)} but must stay on one GPU")
        need = unit_memory_floor(instance, unit.members, positive_makespan=positive)
        if need > instance.memory:
            raise InfeasibleError(
                f"{label} needs {need} bytes ({instance.memory_model} memory) but a GPU has {instance.memory}"
            )
        if pins:
            pinned[pins.pop()].extend(unit.members)
    for gpu, members in sorted(pinned.items()):
        need = unit_memory_floor(instance, members, positive_makespan=positive)
        if need > instance.memory:
            raise InfeasibleError(
                f"the nodes pinned to GPU {gpu} need {need} bytes together but it has {instance.memory}"
            )
    needed = gpus_needed(instance)
    if needed > instance.gpus:
        raise InfeasibleError(
            f"K is too small: the colocation units need at least {needed} GPUs of {instance.memory} bytes "
            f"(bin-packing bound, {instance.memory_model} memory) but K = {instance.gpus}"
        )
