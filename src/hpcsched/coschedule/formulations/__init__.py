"""Exact formulations of coschedule (see each module's docstring).

- `preemptive`: the preemptive LP (``lp-preemptive``), the caterpillar phase
  order, and the small-n MILP minimizing preemptions at optimal makespan.
- `nonpreemptive`: the non-preemptive MILP, the CP-SAT grid model and the
  brute force (n <= 6).
- `slabs`: the exact timing LP of a fixed slab sequence shared by all decoders.
"""

from .nonpreemptive import (
    brute_force_nonpreemptive as brute_force_nonpreemptive,
    cpsat_nonpreemptive as cpsat_nonpreemptive,
    milp_nonpreemptive as milp_nonpreemptive,
)
from .preemptive import (
    lp_preemptive as lp_preemptive,
    milp_min_preemptions as milp_min_preemptions,
    order_phases as order_phases,
    solve_preemptive_lp as solve_preemptive_lp,
)
