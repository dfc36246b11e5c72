"""Memory floors: what each step needs whatever is offloaded, and the feasibility check.

Feasibility: during F_k the memory must hold a_{k-1}, a_k, wf_k and every
non-offloadable a_i (i <= k-2); during B_k it must hold a_{k-1}, δ_{k-1},
δ_k (a_L when k = L), wb_k and every non-offloadable a_i (i <= k-2). These
floors are necessary for any offload decision, and sufficient (see
`memory_floors`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...core.errors import InfeasibleError
from .instance import Instance


def memory_floors(instance: Instance) -> list[tuple[str, int]]:
    """Memory that step F_k / B_k needs whatever is offloaded, in compute order.

    Returns ``[("F1", bytes), ..., ("FL", ...), ("BL", ...), ..., ("B1", ...)]``.
    Necessary: a step's inputs, outputs and workspace are resident while it
    runs, and so is every non-offloadable activation still to be read.
    Sufficient when every floor is <= M: offload everything offloadable, let
    F_k wait until the offloads of a_0..a_{k-2} are done, and let each
    prefetch of a_{k-1} start after B_{k+1} ends; memory is then at most the
    floor of the running step.
    """
    s, n = instance.activation, instance.n_layers
    pinned = [0] * (n + 1)  # pinned[i] = Σ_{j<i, j not offloadable} s_j
    offloadable = set(instance.offloadable)
    for i in range(n):
        pinned[i + 1] = pinned[i] + (0 if i in offloadable else s[i])
    floors = [(f"F{k}", pinned[max(k - 1, 0)] + step_floor(instance, f"F{k}")) for k in range(1, n + 1)]
    floors += [(f"B{k}", pinned[max(k - 1, 0)] + step_floor(instance, f"B{k}")) for k in range(n, 0, -1)]
    return floors


def step_floor(instance: Instance, step: str) -> int:
    """Bytes step F_k / B_k itself needs: its inputs, its outputs and its workspace."""
    s, n, k = instance.activation, instance.n_layers, int(step[1:])
    if step[0] == "F":
        return s[k - 1] + s[k] + instance.workspace_forward[k - 1]
    gradient_in = s[n] if k == n else s[k]  # δ_k (a_L stands for the loss gradient of B_L)
    return 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1]


def kept_prefix_fits(instance: Instance, offloaded: Iterable[int]) -> bool:
    """Whether every step fits with the kept a_0..a_{k-2}: kept bytes + `step_floor` <= M for all k.

    Necessary for any schedule that offloads exactly ``offloaded`` (the row of
    the validator's zero-duration check, implied by the sweep for a step of
    positive duration); a cheap filter before timing a set.
    """
    chosen, s = set(offloaded), instance.activation
    kept = 0
    for k in range(1, instance.n_layers + 1):
        kept += s[k - 2] if k >= 2 and (k - 2) not in chosen else 0
        if kept + max(step_floor(instance, f"F{k}"), step_floor(instance, f"B{k}")) > instance.memory:
            return False
    return True


def check_feasible(instance: Instance) -> None:
    """Raise `InfeasibleError` naming the first step that cannot fit in M."""
    for step, need in memory_floors(instance):
        if need > instance.memory:
            k = int(step[1:])
            raise InfeasibleError(
                f"step {step} ({'forward' if step[0] == 'F' else 'backward'} of {instance.layer_name(k)}) "
                f"needs at least {need} bytes whatever is offloaded, budget is {instance.memory}"
            )
