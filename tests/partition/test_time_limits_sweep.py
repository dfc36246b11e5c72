"""Time limits found overrun by the 2026-12-04 sweep of every partition method at growing sizes.

The greedy memory-overflow repair (`simulate.repair_memory`) checked the deadline once per over-full
GPU; scoring one unit costs O(degree x GPUs), so one pass over a dense random graph (1,600 nodes,
384,000 edges, read from its file as the CLI does) took seconds: pardnn, and cpsat and cpsat-lns
through their pardnn incumbent, returned after 2.7-3.3 s at a 0.5 s limit (CLI, 3 runs). The repair now checks the
deadline per unit scored or popped.
"""

from __future__ import annotations

import pytest
from timed import SLACK, timed_solve

from hpcsched.core.io.instances import read_instance, write_instance
from hpcsched.core.result import Status
from hpcsched.partition import generate_random

LIMIT = 0.5


@pytest.fixture(scope="module")
def dense_random(tmp_path_factory):
    path = tmp_path_factory.mktemp("partition") / "random-1600.json"
    write_instance(generate_random(seed=0, n=1600), path)
    return read_instance(path)


def test_overflow_repair_stops_at_the_limit(dense_random):
    # the first solve after reading (as in the CLI): a second pardnn in the same process reached another phase first
    result, elapsed = timed_solve(dense_random, "pardnn", problem="partition", time_limit=LIMIT)
    assert elapsed < LIMIT + SLACK, (elapsed, result.notes)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE), result.notes
