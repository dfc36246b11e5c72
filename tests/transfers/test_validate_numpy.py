"""The numpy paths of the transfers model and heuristics against plain-Python definitions.

`validate`/`evaluate` switch to int64 arrays from `check.NUMPY_TASKS` tasks; here the switch is
lowered to 0 so that small random instances with random and mutated schedules go through both
paths, which must give the same violations (same messages, same order) and the same KPIs. Both are
also held to a brute-force reading of the definition. Johnson's order, the static sorts and the
flow-shop closed form are compared with ``sorted()`` and the recurrence; the dynamic rules with an
O(n^2) transcription of their rule.
"""

from __future__ import annotations

import heapq
import math
from contextlib import contextmanager
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpcsched import solve, validate
from hpcsched.core.fields import LARGEST_INTEGER
from hpcsched.transfers import Instance, Solution
from hpcsched.transfers.heuristics import rules
from hpcsched.transfers.model import check, makespan_of
from hpcsched.transfers.simulate import Simulator, flow_shop_makespan, flow_shop_starts, johnson_order

from .transfers_strategies import small_instances

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def numpy_path():
    """`validate`/`evaluate` on arrays whatever the number of tasks."""
    with mock.patch.object(check, "NUMPY_TASKS", 0):
        yield


def both_paths(instance: Instance, solution: Solution):
    """(validate, evaluate) on the Python path and on the numpy path."""
    assert instance.n < check.NUMPY_TASKS  # the default switch keeps small instances in Python
    python = (check.validate(instance, solution), check.evaluate(instance, solution))
    with numpy_path():
        assert check._columns(instance, solution) is not None or _beyond_int64(solution)
        arrays = (check.validate(instance, solution), check.evaluate(instance, solution))
    return python, arrays


def _beyond_int64(solution: Solution) -> bool:
    return any(abs(x) > LARGEST_INTEGER for x in (*solution.transfer_start, *solution.compute_start))


def definition_rules(instance: Instance, solution: Solution) -> set[str]:
    """The rules broken, read off the definition pair by pair and instant by instant."""
    s, t = solution.transfer_start, solution.compute_start
    c, p, m = instance.transfer, instance.compute, instance.memory
    n, broken = instance.n, set()
    if any(x < 0 for x in (*s, *t)):
        broken.add("negative-start")
    for machine, start, length in (("link", s, c), ("device", t, p)):
        for i in range(n):
            for j in range(i + 1, n):
                if length[i] and length[j] and start[i] < start[j] + length[j] and start[j] < start[i] + length[i]:
                    broken.add(f"{machine}-overlap")
    if any(t[i] < s[i] + c[i] for i in range(n)):
        broken.add("precedence")
    # Held bytes only rise at a transfer start, so checking every start instant checks every instant.
    for x in s:
        if sum(m[i] for i in range(n) if s[i] <= x < t[i] + p[i]) > instance.capacity:
            broken.add("memory")
    return broken


MUTATIONS = ("shift", "swap", "copy", "overlap", "release-tie", "negative")


@st.composite
def schedules(draw, instance: Instance) -> Solution:
    """A permutation schedule of a random order or random starts, then a few mutations."""
    n = instance.n
    if draw(st.booleans()):
        order = draw(st.permutations(range(n)))
        base = Simulator(instance).schedule(order)
        assert base is not None
        s, t = list(base.transfer_start), list(base.compute_start)
    else:
        horizon = sum(instance.transfer) + sum(instance.compute) + 1
        s = draw(st.lists(st.integers(0, horizon), min_size=n, max_size=n))
        t = draw(st.lists(st.integers(0, horizon), min_size=n, max_size=n))
    index = st.integers(0, n - 1)
    for _ in range(draw(st.integers(0, 3))):
        kind, i, j = draw(st.sampled_from(MUTATIONS)), draw(index), draw(index)
        starts = s if draw(st.booleans()) else t
        if kind == "shift":
            starts[i] += draw(st.sampled_from([-1, 1]))
        elif kind == "swap":
            starts[i], starts[j] = starts[j], starts[i]
        elif kind == "copy":  # same start: zero-length operations meet busy ones here
            starts[j] = starts[i]
        elif kind == "overlap":  # j's transfer starts inside i's
            s[j] = s[i] + draw(st.integers(0, max(instance.transfer[i] - 1, 0)))
        elif kind == "release-tie":  # j allocates, or computes, at the instant i releases
            starts[j] = t[i] + instance.compute[i]
        else:
            starts[i] = -draw(st.integers(1, 3))
    offset = draw(st.sampled_from([0, 0, 2**40, LARGEST_INTEGER - 200]))  # int64 near the 2^53 cap too
    return Solution(tuple(x + offset for x in s), tuple(x + offset for x in t))


@st.composite
def cases(draw) -> tuple[Instance, Solution]:
    """An instance and a schedule; the capacity is sometimes cut to the schedule's peak or one below."""
    instance = draw(small_instances(max_n=7, max_time=4))
    solution = draw(schedules(instance))
    cut = draw(st.sampled_from([None, 0, -1, -2]))
    if cut is not None:
        peak = int(check.evaluate(instance, solution)["peak_memory"])
        capacity = max(peak + cut, 1)
        instance = Instance.create(instance.transfer, instance.compute, instance.memory, capacity)
    return instance, solution


@SETTINGS
@given(cases())
def test_numpy_and_python_paths_agree_on_violations_and_kpis(case):
    instance, solution = case
    (python_violations, python_kpis), (array_violations, array_kpis) = both_paths(instance, solution)
    assert array_violations == python_violations
    assert array_kpis == python_kpis
    assert {v.rule for v in python_violations} == definition_rules(instance, solution)


@SETTINGS
@given(cases())
def test_numpy_path_with_numpy_integers_in_the_solution(case):
    # Solutions built from numpy arrays (a MILP's, a numpy method's) become plain ints first.
    instance, solution = case
    again = Solution(np.array(solution.transfer_start, dtype=np.int64), np.array(solution.compute_start))
    with numpy_path():
        assert check.validate(instance, again) == check.validate(instance, solution)


@SETTINGS
@given(st.lists(st.tuples(st.integers(-3, 8), st.integers(0, 3)), min_size=1, max_size=8))
def test_array_overlap_screen_is_exact(intervals):
    # Exact both ways: a false alarm would only cost time (the Python check words it), but then the
    # arrays no longer spare the Python pass on valid schedules with touching or empty operations.
    starts, lengths = (np.array(column, dtype=np.int64) for column in zip(*intervals, strict=True))
    python = check._overlaps([(x, x + length, i) for i, (x, length) in enumerate(intervals)], "link")
    assert check._overlap_free(starts, lengths) == (python == [])


def test_numpy_path_is_used_and_switch_is_read_at_call_time():
    instance = Instance.create([2, 3], [4, 1], [6, 4], 9)
    solution = Solution((0, 5), (2, 8))  # both held on [5, 6): 10 > 9
    assert check._columns(instance, solution) is None
    with numpy_path():
        assert check._columns(instance, solution) is not None
        assert [v.rule for v in check.validate(instance, solution)] == ["memory"]
        beyond = Solution((0, LARGEST_INTEGER + 1), (2, LARGEST_INTEGER + 4))
        assert check._columns(instance, beyond) is None  # left to the exact Python checks
        assert check.validate(instance, beyond) == []


def test_numpy_path_when_no_task_holds_memory():
    # Every task of zero length: no holding interval at all, an empty sweep on the arrays.
    n = check.NUMPY_TASKS
    instance = Instance.create([0] * n, [0] * n, [1] * n, 1)
    solution = Solution((0,) * n, (0,) * n)
    assert check._columns(instance, solution) is not None
    assert check.validate(instance, solution) == []
    assert check.evaluate(instance, solution)["peak_memory"] == 0.0


# -- orders and the flow-shop makespan ------------------------------------------------
def johnson_reference(instance: Instance) -> list[int]:
    c, p = instance.transfer, instance.compute
    first = sorted((i for i in range(instance.n) if c[i] <= p[i]), key=lambda i: (c[i], i))
    last = sorted((i for i in range(instance.n) if c[i] > p[i]), key=lambda i: (-p[i], i))
    return first + last


def static_reference(instance: Instance, rule: str) -> list[int]:
    c, p = instance.transfer, instance.compute
    keys = {
        "fifo": lambda i: i,
        "sort-transfer-asc": lambda i: (c[i], i),
        "sort-compute-desc": lambda i: (-p[i], i),
        "sort-ratio-asc": lambda i: (c[i] / p[i] if p[i] else math.inf, i),
        "sort-gain-desc": lambda i: (c[i] - p[i], i),
    }
    return sorted(range(instance.n), key=keys[rule])


# Few distinct times: ties are the rule, not the exception.
tied_instances = small_instances(max_n=12, max_time=3)


@SETTINGS
@given(tied_instances)
def test_johnson_and_static_orders_are_the_sorted_definitions(instance):
    assert johnson_order(instance) == johnson_reference(instance)
    assert rules.static_order(instance, "johnson") == johnson_reference(instance)
    for rule in ("fifo", "sort-transfer-asc", "sort-compute-desc", "sort-ratio-asc", "sort-gain-desc"):
        assert rules.static_order(instance, rule) == static_reference(instance, rule), rule


def test_ratio_ties_of_equal_quotients_go_by_index():
    instance = Instance.create([2, 1, 0, 3, 0], [6, 3, 0, 9, 5], [1] * 5, 5)  # 1/3 three times, 0/0 last
    assert rules.static_order(instance, "sort-ratio-asc") == [4, 0, 1, 3, 2]
    assert static_reference(instance, "sort-ratio-asc") == [4, 0, 1, 3, 2]


@SETTINGS
@given(small_instances(max_n=10, max_time=9), st.data())
def test_flow_shop_closed_form_is_the_recurrences_makespan(instance, data):
    order = data.draw(st.permutations(range(instance.n)))
    transfer_start, compute_start = flow_shop_starts(instance, order)
    assert flow_shop_makespan(instance, order) == makespan_of(instance, Solution(transfer_start, compute_start))


# -- dynamic rules ---------------------------------------------------------------------
def dynamic_reference(instance: Instance, priority) -> list[int]:
    """The rule read literally: whenever the link is idle, the fitting unsent task of least (priority, index)."""
    c, p, m = instance.transfer, instance.compute, instance.memory
    unsent, free, releases = set(range(instance.n)), instance.capacity, []
    link_free = device_free = 0
    order = []
    while unsent:
        while releases and releases[0][0] <= link_free:
            free += heapq.heappop(releases)[1]
        fitting = [i for i in unsent if m[i] <= free]
        if not fitting:
            released_at, size = heapq.heappop(releases)
            link_free, free = max(link_free, released_at), free + size
            continue
        task = min(fitting, key=lambda i: (int(priority[i]), i))
        unsent.remove(task)
        order.append(task)
        free -= m[task]
        link_free += c[task]
        device_free = max(device_free, link_free) + p[task]
        heapq.heappush(releases, (device_free, m[task]))
    return order


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(max_n=20, max_time=4))
def test_dynamic_rules_follow_their_definition_and_are_valid(instance):
    for name, priority in rules.dynamic_priorities(instance).items():
        assert rules.dynamic_order(instance, priority) == dynamic_reference(instance, priority), name
        result = solve(instance, name, time_limit=30)
        assert validate(instance, result.solution) == [], name
        with numpy_path():
            assert check.validate(instance, result.solution) == [], name


def test_prefix_best_against_a_scan():
    # Sizes around powers of two, removals in a fixed pseudo-random order.
    for n in (1, 2, 3, 5, 8, 9, 17):
        keys = [(7 * k + 3) % 11 for k in range(n)]
        tree = rules._PrefixBest(np.array(keys, dtype=np.int64), 99)
        alive = list(keys)
        for step in range(n + 1):
            for r in range(n + 1):
                assert tree.best_before(r) == min(alive[:r], default=99)
            if step < n:
                slot = (5 * step + 1) % n
                while alive[slot] == 99:
                    slot = (slot + 1) % n
                tree.remove(slot)
                alive[slot] = 99
