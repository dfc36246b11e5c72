"""Special cases against exact methods on their class; heuristics valid and never below the optimum or a bound."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from reference import proven_optimum, proven_or_infeasible

import hpcsched
from hpcsched.core.result import Status
from hpcsched.partition import BASELINE_METHODS, Instance, bounds, generate_chain, generate_training
from hpcsched.partition.special_cases import _cheapest_cuts

from .partition_strategies import INSTALLED_HEURISTICS, small_instances

PROOF = {"deterministic_time": 20.0, "workers": 1, "stop_at_bound": False}


@settings(max_examples=40)
@given(small_instances(max_n=6, memory_model=None))
def test_heuristics_are_valid_and_never_below_the_optimum_or_the_bound(instance):
    exact = proven_or_infeasible(instance, "cpsat", **PROOF)
    lower = bounds.best(instance)
    for method in INSTALLED_HEURISTICS + BASELINE_METHODS:
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status in (Status.FEASIBLE, Status.NOT_APPLICABLE, Status.INFEASIBLE), (method, result.notes)
        if result.status is Status.INFEASIBLE:
            assert exact.status is Status.INFEASIBLE, method
        if result.status.has_solution:
            assert result.objective >= lower, method
            assert exact.status is Status.OPTIMAL and result.objective >= exact.objective, method


@settings(max_examples=30)
@given(small_instances(max_n=6, max_gpus=1, memory_model=None, pins=False))
def test_single_gpu_is_optimal_where_it_answers(instance):
    result = hpcsched.solve(instance, "single-gpu", time_limit=60)
    exact = proven_or_infeasible(instance, "cpsat", **PROOF)
    if result.status is Status.OPTIMAL:
        assert result.objective == exact.objective == sum(instance.times)
    elif result.status is Status.INFEASIBLE:
        assert exact.status is Status.INFEASIBLE
    else:
        assert instance.memory_model == "dynamic" and result.status is Status.NOT_APPLICABLE


@st.composite
def chains(draw, max_n: int = 6):
    n = draw(st.integers(1, max_n))
    time = [draw(st.integers(1, 6)) for _ in range(n)]
    persistent = [draw(st.integers(1, 6)) for _ in range(n)]
    transfers = [draw(st.integers(0, 4)) for _ in range(n - 1)]
    uniform = draw(st.booleans())
    if uniform:
        transfers = [2] * (n - 1)
    order = draw(st.permutations(range(n)))  # node indices need not follow the chain
    edges = [(order[i], order[i + 1], transfers[i]) for i in range(n - 1)]
    times = [0] * n
    weights = [0] * n
    for i, v in enumerate(order):
        times[v], weights[v] = time[i], persistent[i]
    memory = draw(st.integers(max(persistent), sum(persistent)))
    return Instance.create(times, edges, gpus=draw(st.integers(1, 3)), memory=memory, persistent=weights, name="chain")


@settings(max_examples=60)
@given(chains())
def test_chain_cuts_against_cpsat(instance):
    result = hpcsched.solve(instance, "chain-cuts", time_limit=60)
    exact = proven_or_infeasible(instance, "cpsat", **PROOF)
    if result.status is Status.OPTIMAL:
        assert result.objective == exact.objective
    elif result.status is Status.FEASIBLE:
        assert result.bound <= exact.objective <= result.objective
    elif result.status is Status.NOT_APPLICABLE:
        assert exact.status in (Status.OPTIMAL, Status.INFEASIBLE)
    else:
        assert result.status is exact.status is Status.INFEASIBLE


def test_chain_cuts_fewest_cuts_with_equal_transfers():
    instance = Instance.create([1] * 6, [(i, i + 1, 3) for i in range(5)], gpus=3, memory=4, persistent=[2] * 6)
    result = hpcsched.solve(instance, "chain-cuts", time_limit=60)
    assert result.status is Status.OPTIMAL and result.objective == 6 + 2 * 3
    assert result.kpis["cut_edges"] == 2


def test_chain_cuts_not_optimal_when_segments_must_share_a_gpu():
    # weights 6 6 4 4, M = 10, K = 2: contiguous splits need 3 segments; GPU 0 can hold the 1st and 4th
    instance = Instance.create([1] * 4, [(0, 1, 1), (1, 2, 1), (2, 3, 1)], gpus=2, memory=10, persistent=[6, 6, 4, 4])
    result = hpcsched.solve(instance, "chain-cuts", time_limit=60)
    assert result.status is Status.NOT_APPLICABLE
    assert proven_optimum(instance, "cpsat", **PROOF) == 4 + 2


def test_cheapest_cuts_dp_against_enumeration():
    import itertools

    memory, cost, capacity = [3, 1, 4, 1, 5, 2], [0, 5, 1, 2, 7, 1], 6
    best = {}
    for mask in itertools.product([0, 1], repeat=5):
        cuts = [i + 1 for i in range(5) if mask[i]]
        bounds_ = [0, *cuts, 6]
        if all(sum(memory[a:b]) <= capacity for a, b in itertools.pairwise(bounds_)):
            k = len(cuts) + 1
            best[k] = min(best.get(k, 99), sum(cost[c] for c in cuts))
    for limit in (2, 3, 4, 6):
        expected = min((v for k, v in best.items() if k <= limit), default=float("inf"))
        assert _cheapest_cuts(memory, cost, capacity, limit)[0] == expected
    assert _cheapest_cuts(memory, cost, capacity, None)[0] == min(best.values())


@settings(max_examples=40)
@given(chains())
def test_pipeline_split_bottleneck_is_optimal_for_its_objective(instance):
    import itertools
    import re

    result = hpcsched.solve(instance, "pipeline-split", time_limit=60)
    if result.status is not Status.FEASIBLE:
        return
    claimed = int(re.search(r"= (\d+)", result.notes[0]).group(1))
    from hpcsched.partition.special_cases import chain_order

    order = chain_order(instance)
    times = [instance.nodes[v].time for v in order]
    memory = [instance.nodes[v].persistent for v in order]
    n, best = len(order), None
    for mask in itertools.product([0, 1], repeat=n - 1):
        cuts = [0] + [i + 1 for i in range(n - 1) if mask[i]] + [n]
        if len(cuts) - 1 > instance.gpus:
            continue
        stages = list(itertools.pairwise(cuts))
        if all(sum(memory[a:b]) <= instance.memory for a, b in stages):
            value = max(sum(times[a:b]) for a, b in stages)
            best = value if best is None else min(best, value)
    assert claimed == best


def test_training_generator_builds_forward_backward_graphs_and_heuristics_scale():
    instance = generate_training(seed=3, nodes=2001, gpus=4)
    assert instance.n == 2001
    backward = [v for v, node in enumerate(instance.nodes) if node.name.startswith("bwd")]
    assert len(backward) == 1000
    for method in ("pardnn", "heft", "round-robin"):
        result = hpcsched.solve(instance, method, time_limit=120)
        assert result.status is Status.FEASIBLE, (method, result.notes)
        assert result.objective >= bounds.best(instance)


def test_pardnn_repairs_memory_overflows():
    instance = generate_training(seed=5, nodes=301, gpus=4, memory_slack=1.02)
    result = hpcsched.solve(instance, "pardnn", time_limit=60)
    assert result.status is Status.FEASIBLE, result.notes
    assert any(note.startswith("overflow repair moved") for note in result.notes)  # the repair did work
    assert result.kpis["peak_memory"] <= instance.memory


def test_dynamic_training_graph_heuristics_stay_within_memory():
    instance = generate_training(seed=2, nodes=201, gpus=2, memory_slack=1.6, memory_model="dynamic")
    for method in INSTALLED_HEURISTICS:
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status is Status.FEASIBLE, (method, result.notes)


def test_generators_are_seeded():
    assert generate_chain(seed=4) == generate_chain(seed=4)
    assert generate_training(seed=4, nodes=51) == generate_training(seed=4, nodes=51)
    assert generate_training(seed=4, nodes=51) != generate_training(seed=5, nodes=51)


@settings(max_examples=15)
@given(small_instances(max_n=6, memory_model=None))
def test_cpsat_lns_is_valid_and_never_below_the_optimum(instance):
    exact = proven_or_infeasible(instance, "cpsat", **PROOF)
    result = hpcsched.solve(
        instance,
        "cpsat-lns",
        time_limit=600,
        workers=1,
        max_iterations=3,
        neighbourhood=3,
        iteration_deterministic_time=1.0,
    )
    assert result.status is not Status.ERROR, result.notes
    if result.status.has_solution:
        assert result.objective >= exact.objective
        if result.status is Status.OPTIMAL:
            assert result.objective == exact.objective


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([2, 3, 4]), st.sampled_from(["static", "dynamic"]))
def test_pardnn_path_swapping_never_makes_it_worse(seed, gpus, memory_model):
    # with path_swaps the refinement also runs from the swapped mapping and the best of both chains is kept
    instance = generate_training(seed=seed, nodes=61, gpus=gpus, memory_slack=1.6, memory_model=memory_model)
    without = hpcsched.solve(instance, "pardnn", time_limit=60, path_swaps=False)
    with_swaps = hpcsched.solve(instance, "pardnn", time_limit=60, path_swaps=True)
    assert with_swaps.status is without.status
    if without.status.has_solution:
        assert with_swaps.objective <= without.objective
        assert with_swaps.objective >= bounds.best(instance)


def test_path_swapping_swaps_two_overlapping_clusters_to_cut_their_transfers():
    from hpcsched.core.deadline import Deadline
    from hpcsched.partition.heuristics.path_swap import Span, swap_paths

    class Profile:  # plain per-bucket sums, independent of the heuristic's Fenwick tree
        def __init__(self, size):
            self.values = [0] * size

        def add(self, index, value):
            self.values[index] += value

        def prefix(self, index):
            return sum(self.values[:index])

    # primaries 0 -> 1 (GPU 0) and 2 -> 3 (GPU 1); secondary 4 on GPU 1 talks to GPU 0 with transfer 9,
    # secondary 5 on GPU 0 talks to GPU 1 with transfer 9; all in the same bucket, equal times:
    # swapping 4 and 5 leaves the overlap unchanged and removes 18 of cut transfer
    instance = Instance.create([1] * 6, [(0, 1, 0), (2, 3, 0), (0, 4, 9), (2, 5, 9)], gpus=2, memory=100)
    paths = [[0, 1], [2, 3], [4], [5]]
    gpu_of = [0, 0, 1, 1, 1, 0]
    work = [Profile(1), Profile(1)]
    for g in gpu_of:
        work[g].add(0, 1)
    incident = [[] for _ in range(6)]
    for u, v, c in [(0, 1, 0), (2, 3, 0), (0, 4, 9), (2, 5, 9)]:
        incident[u].append((v, c))
        incident[v].append((u, c))
    spans = [Span(0, 0)] * 4
    swaps = swap_paths(
        instance, paths, gpu_of, work, [0] * 6, spans, incident, primaries=2, candidates=4, deadline=Deadline.after(10)
    )
    assert swaps == 1
    assert gpu_of == [0, 0, 1, 1, 0, 1]
    assert [profile.values for profile in work] == [[3], [3]]
