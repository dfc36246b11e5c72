"""Fair sharing: exact methods agree, brute force agrees, heuristics never beat the optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from reference import proven

from hpcsched import OptionError, solve
from hpcsched.burstbuffer import Application, Solution, generate_periodic
from hpcsched.burstbuffer.formulations.knapsack import knapsack_dp, knapsack_enumerate, knapsack_milp
from hpcsched.burstbuffer.model.fluid import simulate
from hpcsched.burstbuffer.simulate import dilations, drain_table_brackets
from hpcsched.core.result import Status

from .bb_helpers import single

HEURISTICS = ["greedy-marginal", "equal-split", "proportional-volume", "proportional-rate", "no-burst-buffer"]


def small_instance(seed, n, granules, fraction=0.5, load=0.8):
    return generate_periodic(
        seed=seed, n=n, load=load, iterations=(1, 3), granules=granules, capacity_fraction=fraction
    )


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 4), granules=st.integers(1, 8), fraction=st.floats(0.05, 1.2))
def test_dp_agrees_with_brute_force_and_heuristics_do_not_beat_it(seed, n, granules, fraction):
    instance = small_instance(seed, n, granules, fraction)
    dp = solve(instance, "sharing-dp")
    brute = proven(instance, "sharing-brute-force")
    assert dp.status is Status.OPTIMAL
    assert dp.objective == pytest.approx(brute.objective, rel=1e-6)
    assert dp.bound <= brute.objective * (1 + 1e-9) and brute.bound <= dp.objective * (1 + 1e-9)
    for method in HEURISTICS:
        # no-burst-buffer has no drain policy: the PFS is shared max-min fairly
        policies = [{}] if method == "no-burst-buffer" else [{"drain_policy": d} for d in ("proportional", "even")]
        for options in policies:
            result = solve(instance, method, **options)
            # a heuristic that meets the proven bound is OPTIMAL (the registry's rule), else FEASIBLE
            assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
            assert result.objective >= dp.bound * (1 - 1e-9), method
            assert result.bound <= dp.objective * (1 + 1e-9)


# sharing-milp bisects with one HiGHS run a step (0.4-2 s an instance); the knapsack MILP alone is compared
# with the DP on many more knapsacks in test_three_knapsack_solvers_agree and the near-tie tests
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 3), granules=st.integers(1, 6))
@example(seed=4490, n=3, granules=6)
def test_milp_agrees_with_dp(seed, n, granules):
    instance = small_instance(seed, n, granules)
    dp = proven(instance, "sharing-dp")
    milp = solve(instance, "sharing-milp")
    assert milp.status is Status.OPTIMAL
    assert milp.objective == pytest.approx(dp.objective, rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(1, 4), capacity=st.integers(0, 10))
def test_three_knapsack_solvers_agree(seed, count, capacity):
    rng = np.random.default_rng(seed)
    # non-increasing costs in g, like drain needs
    costs = -np.sort(-rng.uniform(0, 10, size=(count, capacity + 1)), axis=1)
    value_dp, vector_dp = knapsack_dp(costs, capacity)
    value_enum, _ = knapsack_enumerate(costs, capacity)
    milp = knapsack_milp(costs, capacity)
    assert sum(vector_dp) <= capacity and sum(milp.granules) <= capacity
    assert value_dp == pytest.approx(value_enum, rel=1e-9, abs=1e-9)
    assert milp.value == pytest.approx(value_enum, rel=1e-7, abs=1e-7)
    assert milp.lower <= value_enum
    assert value_dp == pytest.approx(sum(costs[k, g] for k, g in enumerate(vector_dp)))


@settings(max_examples=60, deadline=None)
@given(
    release=st.floats(0, 30),
    compute=st.floats(0, 40),
    volume=st.floats(1, 100),
    rate=st.floats(1, 20),
    iterations=st.integers(1, 6),
    granules=st.integers(0, 6),
    fraction=st.floats(0.02, 1.5),
)
def test_recurrence_agrees_with_the_event_simulator(release, compute, volume, rate, iterations, granules, fraction):
    app = Application("x", release, iterations, compute, volume, rate)
    drain = fraction * app.io_rate
    instance = single(app, bandwidth=drain * 2, capacity=60.0, granule=10.0)
    expected = simulate(instance, Solution.static([granules], [drain])).dilation(0)
    assert float(dilations(app, granules * 10.0, drain)) == pytest.approx(expected, rel=1e-9)


def test_drain_brackets_are_brackets():
    app = Application("x", 0.0, 3, 10.0, 100.0, 10.0)
    sizes = np.arange(6) * 10.0
    low, high = drain_table_brackets([app], sizes, 1.05)
    assert np.all(dilations(app, sizes, high[0]) <= 1.05 * (1 + 1e-12))
    missed = low[0] > 0
    assert np.all(dilations(app, sizes[missed], low[0][missed]) > 1.05)
    assert np.all(high - low <= 1e-12 * app.rate + 1e-300)


def test_time_limited_bisection_is_feasible_not_optimal():
    instance = small_instance(5, 3, 8)
    result = solve(instance, "sharing-dp", time_limit=1e-9)
    assert result.status is Status.FEASIBLE
    assert result.bound <= result.objective


def test_dynamic_reference_says_it_is_outside_the_static_space():
    instance = small_instance(7, 3, 8)
    result = solve(instance, "dynamic-reference")
    assert result.status is Status.FEASIBLE and "outside the static solution space" in result.notes[0]


def test_sharing_methods_refuse_sizing_instances():
    instance = small_instance(1, 2, 4).with_objective("sizing-dynamic")
    for method in ["sharing-dp", "sharing-milp", "greedy-marginal", "dynamic-reference"]:
        assert solve(instance, method).status is Status.NOT_APPLICABLE
    assert solve(small_instance(1, 2, 4), "sizing-static-lp").status is Status.NOT_APPLICABLE


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), granules=st.integers(0, 8), fraction=st.floats(0.05, 1.5))
def test_one_application_gets_everything(seed, granules, fraction):
    # Alone, the optimum is the application with all N granules and the whole bandwidth B.
    instance = small_instance(seed, 1, max(granules, 1), fraction)
    app, platform = instance.applications[0], instance.platform
    expected = simulate(instance, Solution.static([platform.granules], [platform.pfs_bandwidth])).dilation(0)
    assert expected == pytest.approx(
        float(dilations(app, platform.granules * platform.granule, platform.pfs_bandwidth))
    )
    result = solve(instance, "sharing-dp")
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(expected, rel=1e-6)


def near_tie_knapsacks(seed, count):
    """Knapsacks whose best vectors differ by about 1e-7 of the largest cost (rounded costs plus noise)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        apps, capacity = int(rng.integers(4, 9)), int(rng.integers(8, 30))
        costs = -np.sort(-rng.uniform(0, 10, size=(apps, capacity + 1)), axis=1)
        costs = np.round(costs, 2) + rng.uniform(0, 1e-6, size=costs.shape)
        yield -np.sort(-costs, axis=1), capacity


def _milp_is_exact_on_near_ties(seed, count):
    for costs, capacity in near_tie_knapsacks(seed, count):
        optimum, _ = knapsack_dp(costs, capacity)
        answer = knapsack_milp(costs, capacity)
        assert answer.status is Status.OPTIMAL
        assert sum(answer.granules) <= capacity
        assert answer.value <= optimum + 1e-12 * costs.max()
        assert answer.lower <= optimum  # a proof of infeasibility never exceeds the true optimum


def test_knapsack_milp_is_exact_on_near_ties():
    # With costs scaled to O(1), HiGHS' absolute gap (1e-6) let such knapsacks come back OPTIMAL up
    # to 1.4e-7 of the scale above the optimum (20 of 1,717 in the review), with the "dual bound" equal
    # to that value: a bisection step that just fits in B was declared infeasible. With that scaling
    # (KNAPSACK_UNITS = 1), 2 of these 20 fail (the 4th and the 17th); each knapsack costs a HiGHS run.
    _milp_is_exact_on_near_ties(2, 20)


@pytest.mark.slow
def test_knapsack_milp_is_exact_on_more_near_ties():
    # 1 of these 150 (the 71st) fails with costs scaled to O(1)
    _milp_is_exact_on_near_ties(0, 150)


def test_epsilon_must_be_positive():
    instance = small_instance(2, 2, 4)
    for method in ["sharing-dp", "sharing-milp", "sharing-brute-force", "exact"]:
        # epsilon = 0 made the bisection loop forever once its ends were neighbouring doubles
        with pytest.raises(OptionError) as error:
            solve(instance, method, epsilon=0.0)
        assert error.value.field == "options.epsilon"
    # the least epsilon ends; at that precision some steps are undecided, so no optimality is claimed
    finest = solve(instance, "sharing-dp", epsilon=1e-12)
    assert finest.status in (Status.OPTIMAL, Status.FEASIBLE) and finest.bound <= finest.objective
    assert solve(instance, "sharing-dp", epsilon=1e-9).status is Status.OPTIMAL


@pytest.mark.parametrize("objective", ["sharing", "sizing-dynamic", "sizing-static"])
def test_exact_checks_options_like_the_method_it_runs(objective):
    instance = small_instance(3, 2, 4).with_objective(objective)
    chosen = {"sharing": "sharing-dp", "sizing-dynamic": "sizing-dynamic-sweep", "sizing-static": "sizing-static-lp"}
    for options in [{"bogus": 1}, {"epsilon": "x"}, {"allow_overload": "yes"}]:
        with pytest.raises(OptionError) as direct:
            solve(instance, chosen[objective], **options)
        with pytest.raises(OptionError) as through_exact:
            solve(instance, "exact", **options)
        assert str(through_exact.value) == str(direct.value)
        assert through_exact.value.field == direct.value.field
