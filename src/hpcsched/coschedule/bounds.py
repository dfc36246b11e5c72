"""Lower bounds on the makespan (valid for preemptive and non-preemptive schedules).

- ``trivial``: max(p_max, Σp / s) where s = max(1, max over pairs of
  r_{i|j} + r_{j|i}) is the most solo-work per time unit the GPU can do.
- ``lp``: the preemptive LP optimum, the best bound (every non-preemptive
  schedule is a preemptive one). Solved by HiGHS in well under a second for
  n <= a few hundred.
- ``streams``: the longest stream, Σ p over its kernels (they run one
  after another, each at most at solo speed). The LP ignores streams: it
  stays a valid bound (a relaxation), and ``best`` takes the larger.
- ``best``: the LP, falling back to ``trivial`` when the LP is not solved.
"""

from __future__ import annotations

from .model import Instance


def trivial(instance: Instance) -> float:
    speed = max([1.0] + [p.rate_a + p.rate_b for p in instance.pairs])
    durations = instance.durations
    return max(float(max(durations)), sum(durations) / speed, streams(instance))


def streams(instance: Instance) -> float:
    """Σ p of the longest stream (0 without streams): an exact integer sum, a proven bound."""
    return float(max((sum(instance.kernels[k].duration for k in stream) for stream in instance.streams), default=0))


def lp(instance: Instance) -> float | None:
    """The preemptive LP optimum; None unless the LP was solved to proven optimality."""
    from .formulations.preemptive import preemptive_optimum

    return preemptive_optimum(instance)


def best(instance: Instance) -> float:
    value = lp(instance)
    # The LP carries HiGHS' 1e-10 tolerances: shave them so the bound stays proven.
    return trivial(instance) if value is None else max(trivial(instance) * (1 - 1e-9), value * (1 - 1e-9))
