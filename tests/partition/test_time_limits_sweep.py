"""Time limits found overrun by the 2026-12-04 sweep of every partition method at growing sizes.

The greedy memory-overflow repair (`simulate.repair_memory`) checked the deadline once per over-full
GPU; scoring one unit costs O(degree x GPUs), so one pass over a dense random graph (1,600 nodes,
384,000 edges, read from its file as the CLI does) took seconds: pardnn, and cpsat and cpsat-lns
through their pardnn incumbent, returned after 2.7-3.3 s at a 0.5 s limit (CLI, 3 runs). The repair now checks the
deadline per unit scored or popped.

No wall clock (tests/workclock.py): on a dense 500-node random graph (37,400 edges) pardnn reads the
deadline clock 5 times before the repair and about 500 times in it (once per unit); its Python lines
1.24 M to 2.99 M are the repair. The deadline passes at readings inside the repair and after 1.5 M and
2.2 M lines (inside the repair, between two readings: the old code read the clock once per over-full
GPU and ran 1.5 M and 0.8 M lines past the deadline there, allowed 0.2 M; at the 250th reading its
deadline never passed). After it, at most one unit's scoring (8,500-45,000 lines) before the method
stops. (The 800-node graph, 96,000 edges, that the sweep ran took 4-6 s a case: the lines-counted ones
trace every line up to their deadline.)
"""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.partition import generate_random, validate


@pytest.mark.parametrize("passes", [{"reads": 6}, {"reads": 250}, {"lines": 1_500_000}, {"lines": 2_200_000}])
def test_overflow_repair_stops_at_the_limit(passes):
    instance = generate_random(seed=0, n=500)  # made afresh: nothing cached by an earlier solve
    result, clock = solve_past_deadline(instance, "pardnn", problem="partition", budget=10_000_000, **passes)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE), result.notes
    if result.solution is not None:
        assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)
