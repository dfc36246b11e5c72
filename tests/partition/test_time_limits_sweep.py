"""Time limits found overrun by the 2026-12-04 sweep of every partition method at growing sizes.

The greedy memory-overflow repair (`simulate.repair_memory`) checked the deadline once per over-full
GPU; scoring one unit costs O(degree x GPUs), so one pass over a dense random graph (1,600 nodes,
384,000 edges, read from its file as the CLI does) took seconds: pardnn, and cpsat and cpsat-lns
through their pardnn incumbent, returned after 2.7-3.3 s at a 0.5 s limit (CLI, 3 runs). The repair now checks the
deadline per unit scored or popped.

No wall clock (tests/workclock.py): on a dense 800-node random graph (96,000 edges) pardnn reads the
deadline clock 5 times before the repair and about 800 times in it (once per unit); its Python lines
3.1 M to 9.0 M are the repair. The deadline passes at readings inside the repair and after 4 M and
7 M lines (inside the repair, between two readings: the old code read the clock once per over-full
GPU and ran 2.0-5.0 M lines past the deadline there). After it, at most one unit's scoring (~120,000
lines) before the method stops.
"""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.partition import generate_random, validate


@pytest.mark.parametrize("passes", [{"reads": 6}, {"reads": 400}, {"lines": 4_000_000}, {"lines": 7_000_000}])
def test_overflow_repair_stops_at_the_limit(passes):
    instance = generate_random(seed=0, n=800)  # made afresh: nothing cached by an earlier solve
    result, clock = solve_past_deadline(instance, "pardnn", problem="partition", budget=10_000_000, **passes)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE), result.notes
    if result.solution is not None:
        assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)
