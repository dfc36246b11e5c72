"""Heuristics and baselines of ``offload``.

Every heuristic chooses an offload set O; the ASAP simulator
(`simulate.simulate`) times it.  Sets that do not fit are *repaired*: the
candidates not yet chosen are added in the heuristic's priority order, the
shortest feasible prefix being found by bisection (feasibility is monotone
in practice; a linear scan finishes the job when it is not).

- ``no-offload``: the framework default; NOT_APPLICABLE when it does not fit.
- ``offload-all``: vDNN-all; always fits on a feasible instance.
- ``vdnn-conv``: offload the inputs of convolution layers (by name when the
  instance has layer names, else the layers whose f_{i+1}/s_i is in the top
  half), then repair by size.
- ``greedy-size``: largest activations first, shortest feasible prefix, then
  each further candidate kept if it shortens the makespan (time-limited).
- ``greedy-hideability``: priority ``(f_{i+1} + b_{i+1}) / (tau_out_i + tau_in_i)``
  (compute that can hide the copies per unit of copy time), same procedure.
- ``lp-rounding``: the LP relaxation of `bounds.lp_relaxation` gives
  fractional o_i; the best of the roundings {o_i >= theta} for several
  theta, each repaired in the order of decreasing o_i, then additions.
- ``dp``: POFO-style dynamic program over discretized memory.  The state
  after deciding a_0..a_i is the (rounded up) number of kept bytes; the
  memory floors of F_{i+2} and B_{i+2} with that prefix kept are checked
  exactly (rounding up is conservative), the cost of offloading a_i is its
  exposed copy time ``max(0, tau_out - f_{i+1}) + max(0, tau_in - b_{i+1})``
  plus alpha times its copy time.  Anytime: finer grids and several alpha
  until the time limit; each DP set is simulated and the best kept.
- ``local-search``: from the best of the greedy/DP/vDNN sets, flip/swap
  moves, first improvement, random order (seeded); then iterated: kicks of
  2-4 random flips followed by local search, for 70 % of the time limit
  (`best_heuristic_solution`, the exact methods' warm start: its whole
  budget, plus a third more for the orders);
  then the *channel orders* (`ordered_iterated_search`): the simulator
  accepts any offload order and prefetch order, and a local search moves
  one transfer up to three places in its order, alternated with flips of O
  that keep the orders, with kicks until the time limit.  (Production order
  out / order of use in is not always best: on the earlier 36-layer VGG16, PCIe 3 at 60 %, moving
  the offload of a_17 after a_20's and a_26's last gives 1,066,597 instead
  of 1,070,307.)

All heuristics report ``bounds.best`` as their bound (valid, cheap).
"""

from __future__ import annotations

from .dp import dp, dp_offload_set
from .search import (
    best_heuristic_solution,
    channel_orders,
    improve_orders,
    iterated_local_search,
    local_search,
    local_search_from,
    ordered_iterated_search,
    ordered_local_search,
)
from .sets import (
    greedy_hideability,
    greedy_size,
    hideability_priority,
    improve_by_adding,
    lp_rounding,
    no_offload,
    offload_all,
    round_fractions,
    shortest_feasible_prefix,
    size_priority,
    vdnn_conv,
)

__all__ = [
    "best_heuristic_solution",
    "channel_orders",
    "dp",
    "dp_offload_set",
    "greedy_hideability",
    "greedy_size",
    "hideability_priority",
    "improve_by_adding",
    "improve_orders",
    "iterated_local_search",
    "local_search",
    "local_search_from",
    "lp_rounding",
    "no_offload",
    "offload_all",
    "ordered_iterated_search",
    "ordered_local_search",
    "round_fractions",
    "shortest_feasible_prefix",
    "size_priority",
    "vdnn_conv",
]
