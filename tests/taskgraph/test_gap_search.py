"""The sub-linear gap search (`BusyIntervals`) against the linear scan it replaced (the oracle).

The engine's insertion mode must place every task exactly where the old
linear scan placed it: first per query (random busy intervals, integer and
float times, tiny blocks so that splits and block skipping happen), then
per whole schedule (random DAGs through `list_schedule`, old engine versus
new engine, identical placements).
"""

from __future__ import annotations

import bisect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.taskgraph import Edge, engine
from hpcsched.taskgraph.engine import BusyIntervals, ListScheduler, earliest_start_linear, list_schedule


def _disjoint(draw, floats: bool) -> list[tuple[float, float]]:
    """Random disjoint non-empty intervals (gaps of zero length included), in random insertion order."""
    count = draw(st.integers(0, 60))
    time = draw(st.integers(0, 3)) if not floats else draw(st.floats(0, 3))
    intervals = []
    for _ in range(count):
        if floats:
            gap = draw(st.one_of(st.just(0.0), st.floats(0, 5, allow_nan=False)))
            length = draw(st.floats(1e-6, 5, allow_nan=False))
        else:
            gap = draw(st.integers(0, 4))
            length = draw(st.integers(1, 5))
        begin = time + gap
        intervals.append((begin, begin + length))
        time = begin + length
    return draw(st.permutations(intervals)) if intervals else []


@st.composite
def busy_and_queries(draw):
    floats = draw(st.booleans())
    intervals = _disjoint(draw, floats)
    horizon = max((end for _, end in intervals), default=5) + 5
    if floats:
        queries = draw(st.lists(st.tuples(st.floats(0, horizon), st.floats(1e-7, 8)), min_size=1, max_size=20))
    else:
        queries = draw(st.lists(st.tuples(st.integers(0, int(horizon)), st.integers(1, 8)), min_size=1, max_size=20))
    block = draw(st.integers(1, 4))
    return intervals, queries, block


@settings(max_examples=150, deadline=None)
@given(busy_and_queries())
def test_blocked_search_answers_the_linear_scan(case):
    intervals, queries, block = case
    structure = BusyIntervals(block=block)
    reference: list[tuple[float, float]] = []
    for interval in intervals:
        structure.insert(interval)
        bisect.insort(reference, interval)
        assert list(structure) == reference
        for ready, length in queries:
            assert structure.earliest_start(ready, length) == earliest_start_linear(reference, ready, length)


def test_a_fitting_gap_far_behind_is_found_past_skipped_blocks():
    # 200 back-to-back unit tasks with one gap of 3 at t = 150: a task of 3 ready at 0 goes there.
    structure = BusyIntervals(block=2)
    reference = []
    for begin in range(0, 203):
        if 150 <= begin < 153:
            continue
        structure.insert((begin, begin + 1))
        reference.append((begin, begin + 1))
    assert structure.earliest_start(0, 3) == earliest_start_linear(reference, 0, 3) == 150
    assert structure.earliest_start(0, 4) == earliest_start_linear(reference, 0, 4) == 203


class _LinearScheduler(ListScheduler):
    """The engine as it was: plain sorted lists per machine and the linear scan (the oracle)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.busy = {cls: [[] for _ in range(count)] for cls, count in self.machines.items()}

    def _earliest_start(self, machine_class, machine, ready, length):
        if not self.insertion:
            return max(ready, self.free[machine_class][machine])
        if length == 0:
            return ready
        return earliest_start_linear(self.busy[machine_class][machine], ready, length)

    def place(self, task, placement):
        self.placements[task] = placement
        if placement.duration > 0:
            bisect.insort(self.busy[placement.machine_class][placement.machine], (placement.start, placement.end))
        machine_class, machine = placement.machine_class, placement.machine
        if placement.end > self.free[machine_class][machine]:
            self.free[machine_class][machine] = placement.end
            engine.heapq.heappush(self.heaps[machine_class], (placement.end, machine))


@st.composite
def dags(draw):
    n = draw(st.integers(1, 40))
    machines = {"gpu": draw(st.integers(0, 3)), "cpu": draw(st.integers(1, 4))}
    floats = draw(st.booleans())
    value = st.floats(0, 20, allow_nan=False) if floats else st.integers(0, 12)
    durations = [
        {c: draw(st.one_of(st.none(), value)) if c == "gpu" else draw(value) for c in machines} for _ in range(n)
    ]
    edges = [
        Edge(u, v, draw(st.integers(0, 3)))
        for v in range(n)
        for u in range(max(0, v - 6), v)
        if draw(st.integers(0, 3)) == 0
    ]
    priority = list(draw(st.permutations(range(n))))
    rule = draw(st.sampled_from(["class", "machine"]))
    return n, edges, machines, durations, priority, rule


@settings(max_examples=80, deadline=None)
@given(dags())
def test_old_and_new_engine_place_every_task_identically(monkeypatch_case):
    n, edges, machines, durations, priority, rule = monkeypatch_case

    def run(scheduler_class):
        original = engine.ListScheduler
        engine.ListScheduler = scheduler_class
        try:
            return list_schedule(n, edges, machines, lambda j, c: durations[j][c], priority, rule=rule, insertion=True)
        finally:
            engine.ListScheduler = original

    assert run(ListScheduler) == run(_LinearScheduler)


@pytest.mark.parametrize("seed", range(3))
def test_heft_insertion_on_a_wide_random_graph_matches_the_oracle(seed):
    """A few hundred tasks on two machines: long busy lists, so the skipping is exercised."""
    import random

    rng = random.Random(seed)
    n = 400
    durations = [{"cpu": rng.randint(1, 30), "gpu": rng.randint(1, 5)} for _ in range(n)]
    edges = [Edge(u, v, 0) for v in range(n) for u in rng.sample(range(v), min(v, 2)) if rng.random() < 0.5]
    priority = [rng.random() for _ in range(n)]
    machines = {"gpu": 1, "cpu": 1}
    new = list_schedule(n, edges, machines, lambda j, c: durations[j][c], priority, rule="class", insertion=True)
    original = engine.ListScheduler
    engine.ListScheduler = _LinearScheduler
    try:
        old = list_schedule(n, edges, machines, lambda j, c: durations[j][c], priority, rule="class", insertion=True)
    finally:
        engine.ListScheduler = original
    assert new == old
