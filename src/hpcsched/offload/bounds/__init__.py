"""Lower bounds on the makespan of ``offload``.

All are valid for the problem as defined (not for a restricted model):

- `compute_bound`: Σ (f_i + b_i), the compute stream alone.
- `transfer_bound` (`transfer_bound_chains`): the bytes that must have left
  before F_k (resp. be absent during B_k) shipped by a fluid or whole-item
  channel from their release (docs/offload.md, "Lower bounds").
- `lp_bound`: the LP "fractional offloading" relaxation (`lp_relaxation`).
- `instant_relaxation`: CP-SAT with memory checked at 2L instants; its
  proven bound, and refutations of branches of the offload-set search.

`best` returns the maximum of the cheap ones (compute and transfer bounds);
the LP and the instant relaxation are solved on demand (solver calls).
"""

from .instant import (
    RelaxationVars,
    instant_relaxation,
    missing_rows,
    relaxation_outcome_bound,
    relaxed_solution,
)
from .lp import build_cannot_fit, compute_chain, lp_bound, lp_relaxation, lp_variables
from .probes import instant_relaxation_bound, instant_relaxation_search
from .transfer import (
    best,
    compute_bound,
    earliest,
    transfer_bound,
    transfer_bound_chains,
    transfer_bound_parts,
)

__all__ = [
    "RelaxationVars",
    "best",
    "build_cannot_fit",
    "compute_bound",
    "compute_chain",
    "earliest",
    "instant_relaxation",
    "instant_relaxation_bound",
    "instant_relaxation_search",
    "lp_bound",
    "lp_relaxation",
    "lp_variables",
    "missing_rows",
    "relaxation_outcome_bound",
    "relaxed_solution",
    "transfer_bound",
    "transfer_bound_chains",
    "transfer_bound_parts",
]
