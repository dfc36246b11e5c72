"""Data model of ``offload``: activation offloading during DNN training.

A chain of L layers is trained with one serial compute stream in the fixed
order F_1..F_L, B_L..B_1.  Activations a_0..a_L (a_0 is the input of layer 1)
may be copied to host memory after the forward step that produced them and
copied back before the backward step that reads them; copies share the PCIe
or NVLink link ("full" duplex: one channel per direction, "half": one shared
channel).  The question is which activations to offload and when, so that the
step ends as early as possible within the memory budget M.

Modelling choices where ``offload.md`` leaves room (a scheduling researcher's
reading, written down once here):

- Transfer durations are integers: ``tau = ceil(s / bandwidth) + latency``
  computed exactly with fractions; ``bandwidth: null`` means infinite
  bandwidth (``tau = latency``).  Compute plus every transfer once (the
  worst makespan any method considers) must stay at most 2^53, so a tiny
  positive bandwidth is refused naming ``data.bandwidth_out``/``_in``
  (`_check_time_range`); keys outside the schema are refused too.
- a_L is never offloadable (B_L reads it right after F_L); a_0's offload may
  start at time 0 (it is "produced" by the data loader before F_1).
- Residency intervals are half-open and the memory sweep applies releases
  before allocations at equal times:
  a_i kept ``[start F_i, end B_{i+1})`` (a_0 from 0, a_L until end B_L);
  a_i offloaded ``[start F_i, max(end offload_i, end F_{i+1}))`` and
  ``[start prefetch_i, end B_{i+1})``;
  δ_i (gradient of a_i, size s_i, written by B_{i+1}) ``[start B_{i+1}, end B_i)``
  for 1 <= i < L, δ_0 ``[start B_1, end B_1)``; B_L reads the loss, so there is
  no δ_L; workspaces during their step.
- Feasibility: during F_k the memory must hold a_{k-1}, a_k, wf_k and every
  non-offloadable a_i (i <= k-2); during B_k it must hold a_{k-1}, δ_{k-1},
  δ_k (a_L when k = L), wb_k and every non-offloadable a_i (i <= k-2).  These
  floors are necessary for any offload decision, and sufficient: offloading
  everything offloadable and waiting for each transfer fits (see
  `memory_floors`).  `check_feasible` raises `InfeasibleError` naming the
  first step whose floor exceeds M.
- A step of zero duration contains no instant of the half-open intervals,
  so the sweep alone would let it hold nothing (a schedule of makespan 0
  then passed the validator on an instance where every exact model proves
  2).  It still reads its operands: the validator requires the kept
  a_0..a_{k-2} plus its floor to fit in M, the row every exact model
  (`formulations.build_cpsat`, the brute force's pre-check) and
  `check_feasible` already had.  For a step of positive duration the sweep
  implies that row.  The Kineto importer keeps zero-time layers (16 steps
  of ResNet-50); the PipeDream importer drops them.

The validator (`validate`) is written from the definition above and shares
no code with the simulator, the formulations or the heuristics.
"""

from .floors import check_feasible, kept_prefix_fits, memory_floors, step_floor
from .instance import DATA_KEYS, DATA_SCHEMA, DUPLEX_MODES, Instance
from .solution import (
    Solution,
    canonical_schedule,
    canonical_set_count,
    exchange_pairs,
    identical_classes,
)
from .validate import evaluate, memory_profile, validate

__all__ = [
    "DATA_KEYS",
    "DATA_SCHEMA",
    "DUPLEX_MODES",
    "Instance",
    "Solution",
    "canonical_schedule",
    "canonical_set_count",
    "check_feasible",
    "evaluate",
    "exchange_pairs",
    "identical_classes",
    "kept_prefix_fits",
    "memory_floors",
    "memory_profile",
    "step_floor",
    "validate",
]
