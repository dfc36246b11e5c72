"""The offload package's instance for the same chain: remat only vs offload only vs both.

`to_offload_instance` maps a ``chain-offload`` instance (no recomputation:
every stage forwarded once, by ``Fall``) to an ``offload`` instance:

* offload layer j+1 is stage j (j < L): f = fw[j], b = bw[j], wf = ftmp[j];
  layer L+1 is the loss: f = 0, b = bw[L];
* activation a_0 = x_0, a_i = xbar_i (1 <= i <= L, what ``Fall i-1`` keeps),
  a_{L+1} = 0; offloadable: a_0..a_{L-1} (xbar_L is read by ``B L`` right
  after it is produced);
* the checkpoint ``B j`` reads xbar_{j+1} (and x_j), the offload ``B_{j+1}``
  reads only a_j: xbar_{j+1} is added to the workspace of ``B_{j+1}``
  (wb_{j+1} = btmp_j + xbar_{j+1} for j < L, wb_{L+1} = btmp_L);
* same link (bandwidths, latency, duplex), same budget M.

What the mapping preserves (stated, and tested on random small chains):
the offload gradient δ_i has the size of a_i = xbar_i where the checkpoint
δ_i has x_i bytes, so the mapping is meant for chains with ``xbar = x``.
For those, during every compute operation the two models hold the same
bytes when the compute stream has no idle time between ``B j+1`` and
``B j``; in an idle gap the checkpoint still holds xbar_{j+1} (read by the
coming ``B j``), which the offload model has already released. Hence the
offload optimum is a lower bound on the no-recomputation two-level optimum
(the offload model is a relaxation on this class), with equality when an
optimal schedule needs no such gap; the tests check the inequality always
and report how often it is an equality.
"""

from __future__ import annotations

from typing import Any

from .model import Instance


def to_offload_instance(instance: Instance) -> Any:
    """The ``offload`` instance of the same chain and link (see the module docstring for what it preserves)."""
    from ..offload import Instance as OffloadInstance

    if instance.kind != "chain-offload":
        raise ValueError("to_offload_instance needs a chain-offload instance (the link is part of the mapping)")
    L = instance.length
    forward = [*instance.fw, 0]
    backward = [*instance.bw[:L], instance.bw[L]]
    activation = [instance.x[0], *instance.xbar[1:], 0]
    workspace_backward = [instance.btmp[j] + instance.xbar[j + 1] for j in range(L)] + [instance.btmp[L]]
    return OffloadInstance(
        name=f"{instance.name}-offload",
        forward=tuple(forward),
        backward=tuple(backward),
        activation=tuple(activation),
        memory=instance.memory,
        bandwidth_out=instance.bandwidth_out,
        bandwidth_in=instance.bandwidth_in,
        latency=instance.latency,
        duplex=instance.duplex,
        workspace_forward=(*instance.ftmp, 0),
        workspace_backward=tuple(workspace_backward),
        offloadable=tuple(range(L)),
        time_unit=instance.time_unit,
        source={"mapped_from": instance.name, "mapping": "hpcsched.checkpoint.offload_mapping.to_offload_instance"},
    )


__all__ = ["to_offload_instance"]
