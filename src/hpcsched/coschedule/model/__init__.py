"""Data model of coschedule: GPU kernels co-scheduled two at a time.

Definition (``shared/spec/coschedule.md``): kernels i with solo durations
p_i > 0 (integers in ``time_unit``); at most two kernels run at once; two
kernels may run together only when they form a listed compatible pair
{i, j}, and then i progresses at r_{i|j} in (0, 1] times its solo speed. A
schedule is a list of segments (kernel, start, end); kernel i completes when
its progress reaches 1 and its last segment ends exactly then. Objective:
makespan.

Modelling choices where the spec leaves room (documented for users):

- Times of a schedule are real numbers (floats in files): co-run rates are
  real, so completion times are not integers even when durations are.
- A *preemption* is an interruption: touching segments of one kernel
  (``end == start`` exactly) are one run. preemptions = Σ_i (runs_i − 1); the
  preempted fraction is the share of kernels with at least two runs.
- The validator integrates progress with exact rational arithmetic
  (``fractions.Fraction`` of the float times and rates: every float is a
  rational number, so nothing is rounded), then accepts a final progress of
  kernel i within ``1e-9 + 1e-12 * makespan / p_i`` of 1. The first term is
  the relative tolerance the spec allows; the second absorbs float rounding
  of cumulated times (a few ulps of the makespan) on short kernels.
- Idle time is the part of [0, makespan] where no kernel runs.
- The ratio to the preemptive optimum needs an LP solve, so ``evaluate``
  does not report it (it stays a pure function of the schedule): divide the
  makespan by ``bounds.lp(instance)`` where it is wanted.

Kernels may carry an optional ``profile`` (SM demand, class compute / memory
/ unknown, grid, block, registers, shared memory...) kept for provenance only:
no method reads it; the rates in ``pairs`` are the whole model.

Streams (optional ``data.streams``): ordered lists of kernel ids, each
kernel in at most one stream; kernels in no stream are independent. Kernels
of one stream run one after another in stream order, as on a CUDA stream:
the first segment of kernel k+1 starts no earlier than the last segment of
kernel k ends (``start(k+1) >= end(k)``, touching allowed). Hence a kernel
never co-runs with a kernel of its own stream; it may co-run with kernels of
other streams (and with independent kernels) when the pair is listed.

Keys: ``data`` holds only ``kernels``, ``pairs``, ``gpu`` and ``streams``; a kernel record
only ``name``, ``duration`` and ``profile``; a pair record only ``a``, ``b``,
``rate_a``, ``rate_b``; ``gpu`` only ``name`` and ``sms``. Any other key is
refused (naming it): a misspelt key, ``"kernals"`` or ``"rate_ab"``, would
otherwise be silently ignored. The ``profile`` object is the one open place:
extra descriptive fields of a kernel (``app``, ``stream``, ``job_type``, ...)
go there, any key is kept, and the known ones are typed.
"""

from .instance import DATA_KEYS, DATA_SCHEMA, GPU_KEYS, KERNEL_CLASSES, KERNEL_KEYS, PAIR_KEYS, Instance, Kernel, Pair
from .schedule import PROGRESS_TOLERANCE, TIME_TOLERANCE, Segment, Solution, evaluate, validate

__all__ = [
    "DATA_KEYS",
    "DATA_SCHEMA",
    "GPU_KEYS",
    "KERNEL_CLASSES",
    "KERNEL_KEYS",
    "PAIR_KEYS",
    "PROGRESS_TOLERANCE",
    "TIME_TOLERANCE",
    "Instance",
    "Kernel",
    "Pair",
    "Segment",
    "Solution",
    "evaluate",
    "validate",
]
