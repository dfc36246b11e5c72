"""Kind chain-offload: the definition over time, its exact CP-SAT, and the mapping to the offload package."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.checkpoint import Instance, Solution, memory_profile, validate
from hpcsched.checkpoint.formulations import shortest_sequence
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason, store_all_peak
from hpcsched.checkpoint.model.two_levels import memory_over_time
from hpcsched.checkpoint.offload_mapping import to_offload_instance
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.result import Status

from .checkpoint_strategies import small_chains

PROOF = {"deterministic_time": 60.0, "workers": 1}


def positive_times(instance: Instance) -> Instance:
    return Instance.create(
        [max(1, v) for v in instance.fw],
        [max(1, v) for v in instance.bw],
        list(instance.x),
        [None, *instance.xbar[1:]],
        instance.memory,
        ftmp=list(instance.ftmp),
        btmp=list(instance.btmp),
    )


def link(instance: Instance, latency: int = 0, bandwidth: float | None = 2) -> Instance:
    return instance.with_link(bandwidth_out=bandwidth, bandwidth_in=bandwidth, latency=latency)


@settings(max_examples=60)
@given(small_chains())
def test_remat_sequence_back_to_back_has_the_chain_memory_and_time(instance):
    chain = positive_times(instance)
    found = shortest_sequence(chain)
    if found is None:
        return
    solution = Solution(found[1])
    two = link(chain)
    assert validate(chain, solution) == [] and validate(two, solution) == []
    assert max((h for _, h in memory_over_time(two, solution)), default=0) == max(memory_profile(chain, solution))
    assert hpcsched.evaluate(two, solution)["objective"] == hpcsched.evaluate(chain, solution)["objective"]


def small_offload_instance(seed: int, max_length: int = 3) -> Instance:
    rng = random.Random(seed)
    L = rng.randint(1, max_length)
    fw = [rng.randint(1, 4) for _ in range(L)]
    bw = [rng.randint(1, 4) for _ in range(L + 1)]
    x = [rng.randint(1, 4) for _ in range(L + 1)]
    xbar = [None] + [x[i] + rng.randint(0, 1) for i in range(1, L + 1)]
    probe = link(Instance.create(fw, bw, x, xbar, 10**6))
    low, high = offload_memory_lower_bound_with_reason(probe)[0], store_all_peak(probe)
    return probe.with_memory(rng.randint(low, max(low, high)), name=f"two-levels-{seed}")


#: The ways a valid schedule is broken below; each must be refused by the validator.
MUTATIONS = ("budget", "compute-overlap", "drop-host-writers", "drop-offs", "no-start", "drop-backward")


def _mutated(instance: Instance, solution: Solution, kind: str, data) -> tuple[Instance, Solution] | None:
    """``solution`` broken in the way ``kind`` says, with the instance to check it on; None where it cannot be."""
    seq, start = list(solution.sequence), list(solution.start)
    target = instance
    if kind == "budget":
        peak = max(h for _, h in memory_over_time(instance, solution))
        target = instance.__class__(**{**instance.__dict__})
        object.__setattr__(target, "memory", peak - 1)
    elif kind == "compute-overlap":
        compute = [k for k, (name, _) in enumerate(seq) if name in ("F", "Fall", "B")]
        k = compute[data.draw(st.integers(1, len(compute) - 1))]
        start[k] -= 1
    elif kind == "drop-host-writers":
        pres = [k for k, (name, _) in enumerate(seq) if name in ("Pre", "Preall")]
        if not pres:
            return None
        k = data.draw(st.sampled_from(pres))
        writer = "Off" if seq[k][0] == "Pre" else "Offall"
        dropped = (writer, seq[k][1])  # every copy to the host that this prefetch could read
        start = [t for op, t in zip(seq, start, strict=True) if op != dropped]
        seq = [op for op in seq if op != dropped]
    elif kind == "drop-offs":
        keep = [k for k, (name, _) in enumerate(seq) if name not in ("Off", "Offall")]
        if len(keep) == len(seq) or not any(name in ("Pre", "Preall") for name, _ in seq):
            return None
        seq, start = [seq[k] for k in keep], [start[k] for k in keep]
    elif kind == "no-start":
        if not any(name in ("Off", "Pre", "Offall", "Preall") for name, _ in seq):
            return None
        return instance, Solution(tuple(seq))
    else:
        k = seq.index(("B", data.draw(st.integers(0, instance.length))))
        del seq[k], start[k]
    return target, Solution(tuple(seq), tuple(start))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.data())
def test_mutations_of_an_optimal_two_level_schedule_are_refused(seed, data):
    """Every mutation of each optimal schedule (the proof is the expensive part: one per example)."""
    instance = small_offload_instance(seed)
    result = hpcsched.solve(instance, "cpsat-offload", time_limit=600, horizon=40, max_horizon=40, **PROOF)
    if not result.status.has_solution:
        return
    assert validate(instance, result.solution) == []
    for kind in MUTATIONS:
        mutated = _mutated(instance, result.solution, kind, data)
        if mutated is not None:
            target, solution = mutated
            assert validate(target, solution) != [], (kind, solution.sequence, solution.start)


@settings(max_examples=15, deadline=None)
@given(small_chains(max_length=3, max_size=3))
def test_with_an_unusable_link_the_two_level_optimum_is_the_remat_optimum(instance):
    chain = positive_times(instance)
    if shortest_sequence(chain) is None:
        return
    remat = hpcsched.solve(chain, "cpsat", time_limit=600, **PROOF)
    two = hpcsched.solve(link(chain, latency=10**6), "cpsat-offload", time_limit=600, **PROOF)
    assert remat.status is Status.OPTIMAL and two.status is Status.OPTIMAL, two.notes
    assert two.objective == remat.objective


@pytest.mark.parametrize("seed", range(8))
def test_without_recomputation_the_offload_package_optimum_matches(seed):
    rng = random.Random(seed)
    L = rng.randint(1, 3)
    x = [rng.randint(1, 4) for _ in range(L + 1)]
    probe = link(
        Instance.create(
            [rng.randint(1, 4) for _ in range(L)], [rng.randint(1, 4) for _ in range(L + 1)], x, [None, *x[1:]], 10**6
        )
    )  # xbar = x: the mapping's class
    low, high = offload_memory_lower_bound_with_reason(probe)[0], store_all_peak(probe)
    instance = probe.with_memory(rng.randint(low, max(low, high)))
    ours = hpcsched.solve(
        instance, "cpsat-offload", allow_recomputation=False, horizon=60, max_horizon=60, time_limit=600, **PROOF
    )
    theirs = hpcsched.solve(to_offload_instance(instance), "cpsat", time_limit=600)
    assert theirs.status is Status.OPTIMAL
    assert "optimal within the restricted class / horizon only" in ours.notes
    assert ours.objective >= theirs.objective  # the offload model is a relaxation on this class (docstring)
    assert ours.objective == theirs.objective  # measured: equal on these chains


def test_remat_methods_run_on_a_two_level_instance_as_feasible_schedules():
    instance = small_offload_instance(3)
    for method in ("store-all", "recompute-all", "dp", "chen"):
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status is not Status.ERROR, (method, result.notes)
        if result.status is Status.OPTIMAL:  # only where the bound Σfw + Σbw meets it
            assert result.objective == instance.compute_time


def test_two_level_data_round_trip_and_errors():
    instance = small_offload_instance(5)
    data = instance.to_data()
    again = Instance.from_data(data, name=instance.name)
    assert again == instance
    with pytest.raises(InvalidInstanceError, match=r"data\.latency"):
        Instance.from_data({**data, "latency": -1}, name="bad")
    with pytest.raises(InvalidInstanceError, match=r"data\.fw"):
        Instance.from_data({**data, "fw": [0] * instance.length}, name="bad")
    with pytest.raises(InvalidInstanceError, match="only for kind"):
        Instance.from_data({**data, "kind": "chain"}, name="bad")
    with pytest.raises(InvalidInstanceError, match=r"data\.bandwidth_out"):
        Instance.from_data({k: v for k, v in data.items() if k != "bandwidth_out"}, name="bad")
