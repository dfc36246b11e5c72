"""The setup before a partition method's first schedule stops at the time limit (work clock, tests/workclock.py).

At 5 x 10^5 nodes (the training generator's largest graph) the passes before the first schedule
(feasibility screen, memory reservations, upward ranks, ParDNN's levels and critical-path slicing,
the lower bound) take about 1 s each. They used to run one after the other without reading the
deadline: at a 1 s limit pardnn answered after 5.2 s, cpsat after 6.1 s, etf after 4.4 s
(`benchmarks/limits.py --problems partition --sizes 500000`). Now the deadline is read between them
and inside levels and slicing (every `pardnn.CHECK_EVERY` nodes).

On a 10,000-node training graph these passes are the methods' Python lines up to about 0.8 M; the
deadline passes inside them at the ``lines`` points below. The old code then ran 0.22 M to 0.78 M lines
before its next reading (allowed: `workclock.SLACK_LINES`, 0.2 M, nothing to check without an answer).
"""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.partition import generate_training


@pytest.mark.parametrize("method", ["pardnn", "heft", "etf", "cpsat", "cpsat-lns"])
@pytest.mark.parametrize("lines", [300_000, 450_000, 600_000])
def test_a_deadline_in_the_setup_stops_the_method(method, lines):
    instance = generate_training(seed=0, nodes=10_000)  # made afresh: no pass cached by an earlier solve
    result, clock = solve_past_deadline(instance, method, problem="partition", lines=lines)
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION, result.notes
    assert_stops_promptly(instance, result, clock)
