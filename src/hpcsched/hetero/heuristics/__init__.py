"""Heuristics and baselines for hetero: HEFT, HeteroPrio, HLP rounding, MinMin, DualHP, CLB2C, one-type baselines.

All list schedules come from the shared engine (`hpcsched.taskgraph`), the
HeteroPrio simulation from `hpcsched.hetero.simulate`. Only HLP rounding returns
a bound (the HLP value); the tests and benchmarks compare the others with
`bounds.best`; every schedule is checked by the validator in the registry.
One module per family: `listing`, `heteroprio_family`, `independent`
(`common` holds what they share).
"""

from .heteroprio_family import HeteroPrioParams, heteroprio, heteroprio_nospol
from .independent import clb2c, dual_assignment, dualhp
from .listing import all_cpu, all_gpu, heft, heft_insertion, heft_ranks, hlp_rounding, minmin, minmin_placements

__all__ = [
    "HeteroPrioParams",
    "all_cpu",
    "all_gpu",
    "clb2c",
    "dual_assignment",
    "dualhp",
    "heft",
    "heft_insertion",
    "heft_ranks",
    "heteroprio",
    "heteroprio_nospol",
    "hlp_rounding",
    "minmin",
    "minmin_placements",
]
