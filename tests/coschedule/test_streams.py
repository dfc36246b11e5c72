"""Streams (issue 20, item 2): data, validator, methods that honour them or say why not; time limits; honest MILP."""

import importlib
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import SAFETY_LIMIT, proven, proven_optimum

from hpcsched import solve
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.result import Status
from hpcsched.coschedule import STREAM_BLIND_METHODS, Instance, Segment, Solution, validate
from hpcsched.coschedule.formulations import common
from hpcsched.solvers.outcome import Outcome

REL = 1e-6
NONPREEMPTIVE_HEURISTICS = (
    "serial",
    "fifo",
    "lpt",
    "spt",
    "greedy-partner",
    "matching-list",
    "lp-merge",
    "local-search",
)
INSTANCES = Path(__file__).resolve().parents[2] / "instances" / "coschedule"


@st.composite
def stream_instances(draw, max_n=5):
    """Small instances, every pair compatible, kernels split into up to three streams (some independent)."""
    n = draw(st.integers(2, max_n))
    durations = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    rate = st.floats(0.3, 1.0).map(lambda r: round(r, 3))
    pairs = [(a, b, draw(rate), draw(rate)) for a in range(n) for b in range(a + 1, n)]
    labels = draw(st.lists(st.integers(-1, 2), min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))
    streams = [[k for k in order if labels[k] == s] for s in range(3)]
    streams = [s for s in streams if s] or [[0, 1]]
    return Instance.create(durations, pairs, name="hyp-streams", streams=streams)


def two_streams():
    return Instance.create(
        [4, 6, 3, 5],
        [(0, 1, 0.9, 0.9), (0, 2, 0.9, 0.9), (0, 3, 0.7, 0.7), (1, 2, 0.8, 0.7), (1, 3, 0.9, 0.9), (2, 3, 0.9, 0.6)],
        streams=[[0, 1], [2, 3]],
    )


def rules(instance, segments):
    return {v.rule for v in validate(instance, Solution(tuple(Segment(*s) for s in segments)))}


def test_streams_reader_checks_and_round_trip():
    instance = two_streams()
    assert instance.to_data()["streams"] == [[0, 1], [2, 3]]
    assert Instance.from_data(instance.to_data(), name="x", time_unit="us", source={}).streams == ((0, 1), (2, 3))
    data = instance.to_data()
    with pytest.raises(InvalidInstanceError, match=r"data.streams\[1\]\[0\]"):
        Instance.from_data({**data, "streams": [[0, 1], [7]]}, name="x", time_unit="us", source={})
    with pytest.raises(InvalidInstanceError, match=r"data.streams\[1\]\[1\].*already in"):
        Instance.from_data({**data, "streams": [[0, 1], [2, 1]]}, name="x", time_unit="us", source={})
    with pytest.raises(InvalidInstanceError, match=r"data.streams\[0\]"):
        Instance.from_data({**data, "streams": [[]]}, name="x", time_unit="us", source={})


def test_validator_refuses_swapped_and_corunning_stream_mates():
    instance = Instance.create([4, 6], [(0, 1, 1.0, 1.0)], streams=[[0, 1]])
    assert rules(instance, [(0, 0, 4), (1, 4, 10)]) == set()
    assert "stream-order" in rules(instance, [(1, 0, 6), (0, 6, 10)])  # swapped
    assert "stream-order" in rules(instance, [(0, 0, 4), (1, 0, 6)])  # co-run, although the pair is listed
    # Without the stream the co-run is fine: the rule comes from the stream alone.
    free = Instance.create([4, 6], [(0, 1, 1.0, 1.0)])
    assert rules(free, [(0, 0, 4), (1, 0, 6)]) == set()


def test_stream_blind_methods_say_why():
    instance = two_streams()
    for method in STREAM_BLIND_METHODS:
        result = solve(instance, method, time_limit=10)
        assert result.status is Status.NOT_APPLICABLE and "stream" in result.notes[0], method


def test_fifo_replays_two_streams_with_the_leftover_policy():
    # Stream A: a0 (10) then a1 (10); stream B: b0 (4). a0 and b0 co-run at rate 0.5 (harmful, 0.5 + 0.5 = 1):
    # the hardware still co-runs them (leftover policy) where list scheduling would not.
    instance = Instance.create([10, 10, 4], [(0, 2, 0.5, 0.5), (1, 2, 0.5, 0.5)], streams=[[0, 1], [2]])
    result = solve(instance, "fifo")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)  # OPTIMAL: it meets the longest stream (24)
    segments = {s.kernel: (s.start, s.end) for s in result.solution.segments}
    assert segments[2] == (0.0, 8.0) and segments[0][0] == 0.0 and segments[1][0] >= segments[0][1]


@settings(max_examples=12, deadline=None)
@given(stream_instances(max_n=4))
def test_exact_methods_agree_with_brute_force_under_streams(instance):
    brute = proven(instance, "brute-force")
    milp = solve(instance, "milp", time_limit=600)  # a proof: safety stop only
    assert milp.status is Status.OPTIMAL and math.isclose(milp.objective, brute.objective, rel_tol=REL), (
        milp.notes,
        brute.objective,
    )
    for method in ("cpsat", "auto", *NONPREEMPTIVE_HEURISTICS):
        # local-search's default 3,000 moves took 0.2 s an instance of at most 4 kernels, a third of the test;
        # its moves honour streams (the answer is validated) and stay above the optimum at any count
        options = {"max_iterations": 300} if method == "local-search" else {}
        result = solve(instance, method, time_limit=20, **options)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE), (method, result.notes)  # validated: streams honoured
        assert result.objective >= brute.objective * (1 - REL), method
        assert result.bound is None or result.bound <= brute.objective * (1 + 1e-9), method


def test_brute_force_optimum_by_hand_with_streams():
    # One stream holds everything: serial is the only schedule.
    instance = Instance.create([3, 4, 5], [(0, 1, 1.0, 1.0), (1, 2, 1.0, 1.0)], streams=[[2, 0, 1]])
    for method in ("brute-force", "milp", "cpsat", "auto"):
        result = solve(instance, method, time_limit=SAFETY_LIMIT)  # a safety stop: no deterministic limit here
        assert result.status is Status.OPTIMAL and result.objective == pytest.approx(12.0), method


def test_milp_not_optimal_unless_highs_says_so(monkeypatch):
    # HiGHS stops with "Not Solved" and a dual bound above the true optimum by what its tolerance
    # (now MIP_TOLERANCE) lets through, as in issue 20, item 5 (there 1.6e-7 at the default 1e-6).
    # The non-preemptive optimum (12.57) is above the preemptive LP (11.89): only HiGHS could prove it.
    instance = Instance.create([8, 8, 4], [(0, 1, 0.94, 0.89), (0, 2, 0.54, 0.83), (1, 2, 0.58, 0.92)])
    exact = proven_optimum(instance, "brute-force")

    def not_solved(model, *, time_limit, seed):
        return Outcome(
            Status.TIME_LIMIT_NO_SOLUTION,
            None,
            exact * (1 + 2 * common.MIP_TOLERANCE),
            0.0,
            "highs (stub)",
            message="Not Solved / No Solution Found",
        )

    milp_module = importlib.import_module(
        "hpcsched.coschedule.formulations.milp"
    )  # the package exports the function milp
    monkeypatch.setattr(milp_module, "solve_highs", not_solved)
    result = solve(instance, "milp", time_limit=10)
    assert result.status is Status.FEASIBLE, result.notes  # no claim from an unproven run
    assert result.bound <= exact


def test_safe_bound_is_below_the_dual_bound():
    # At least one big-M relaxation (tolerance x big-M) per kernel of a chain is shaved off.
    tolerance = common.MIP_TOLERANCE
    assert common.safe_mip_bound(664_356.652, 20, 700_000.0) <= 664_356.652 - 20 * tolerance * 700_000.0
    assert common.safe_mip_bound(None, 20, 1.0) is None


@pytest.mark.parametrize("method", ["milp", "cpsat", "lp-preemptive", "milp-min-preemptions", "brute-force", "auto"])
def test_tiny_time_limit_returns_without_raising(method):
    from hpcsched.coschedule import generate_uniform

    instance = generate_uniform(seed=1, n=6)
    result = solve(instance, method, time_limit=1e-6)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE, Status.OPTIMAL, Status.NOT_APPLICABLE), (
        result.notes
    )
    assert result.status is not Status.ERROR


@pytest.mark.parametrize("method", ["milp", "cpsat", "lp-preemptive", "milp-min-preemptions", "auto"])
def test_exact_methods_hold_the_time_limit_on_a_large_instance(method):
    # Issue 20 leftover: orion-n200 has streams, so lp-preemptive was trivially NOT_APPLICABLE there.
    # A large stream-free instance and an already spent limit: no clock, the deadline decides.
    from hpcsched.coschedule import generate_uniform

    instance = generate_uniform(seed=4, n=400, density=0.1, r_min=0.3)
    assert not instance.streams
    result = solve(instance, method, time_limit=1e-9)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE), (result.status, result.notes)
    if method in ("lp-preemptive", "milp-min-preemptions", "auto"):  # no LP: the LPT list schedule stands in
        from hpcsched.coschedule import bounds

        assert result.status is Status.FEASIBLE and result.bound == bounds.trivial(instance), result.notes
