"""treemem at 10^4-10^5 nodes: every method answers within its limit, with a valid answer where one is cheap.

No wall clock: the deadline passes after a chosen number of readings of the deadline clock
(tests/workclock.py) and the work done after it is counted in Python lines. What the sweep of every
method at 10^3-10^5 nodes found, and each test here pins:

- the greedy took O(n x ready) steps (6 s of CPU on a 10^5-node tree, where it was also the
  incumbent of dp, milp, cpsat and local-search); it is O((n + m) log n) now, and when the limit
  cuts it the order so far is completed (`greedy`); forest-postorder and sp-ization answer the DFS
  post-order when cut;
- dp built its n-bit done sets on any size, and the slot models (milp, cpsat) their n² Booleans until
  the limit; above `DP_MAX_N` / `SLOT_MODEL_MAX_N` nodes they answer at once with the heuristic
  incumbent and the MemReq bound;
- the list schedules, ParSubtrees and the MemLimit heuristics answered TIME_LIMIT_NO_SOLUTION when
  the limit cut them on a tree, although Liu's order (known before they start, within M) is a valid
  one-processor schedule; on a DAG the list schedules now answer the spanning-forest or DFS order at
  hand when its peak fits M;
- the eviction rules ran O(n x gap length) before their first deadline check (10^5-node DAG: killed
  after 70 s) and answered nothing when cut; a cut sweep now evicts every output unused at the steps
  left, which is valid (each step then holds its MemReq <= M).
"""

from __future__ import annotations

import functools

import pytest
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import (
    Instance,
    as_out_of_core,
    as_parallel,
    generate_parallel_tree,
    generate_random_dag,
    generate_random_tree,
)
from hpcsched.treemem.formulations.sequential import DP_MAX_N
from hpcsched.treemem.formulations.slot_models import SLOT_MODEL_MAX_N
from hpcsched.treemem.heuristics import greedy_order
from hpcsched.treemem.simulate import Graph


@functools.cache
def _tree(n: int) -> Instance:
    return generate_random_tree(seed=0, n=n)


@functools.cache
def _sparse_dag() -> Instance:
    """The 3,000-node sparse DAG of the list-schedule and eviction tests, made once (2 s: every node pair is drawn).

    Instances are frozen and hold no cache, so sharing it changes no method's work.
    """
    return generate_random_dag(seed=0, n=3000, edge_probability=4 / 3000)


def _answered(instance: Instance, result) -> None:
    """A valid answer (the registry validated it: an invalid one is ERROR) with a bound at most its value."""
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert result.bound is None or result.bound <= result.objective


def test_the_greedy_is_not_quadratic():
    # a random tree has many leaves ready at once: the old greedy scanned them all at every step
    # (5.9 million lines here, 9 times those of 1,000 nodes); now ~105 lines per node at both sizes
    small, large = (count_lines(greedy_order, Graph.of(_tree(n))) for n in (1000, 3000))
    assert large < 200 * 3000, large
    assert large < 4 * small, (small, large)


def test_a_cut_greedy_completes_its_order():
    # the greedy reads the clock every 256 steps; the deadline passes at its second reading (step 256):
    # was TIME_LIMIT_NO_SOLUTION, now the order so far completed in Kahn's order (one linear pass)
    instance = _tree(3000)
    result, clock = solve_past_deadline(instance, "greedy", reads=4, problem="treemem")
    _answered(instance, result)
    assert "time limit reached after 256 of 3,000 steps" in result.notes[0]
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("method", ["forest-postorder", "sp-ization"])
def test_a_cut_order_heuristic_answers_the_dfs_postorder(method):
    # the deadline passes at the method's first check: the DFS post-order (one linear pass) is a valid
    # traversal; forest-postorder did not check the deadline at all (1.9 s of CPU at 10^5 nodes, -t 1)
    # and sp-ization answered TIME_LIMIT_NO_SOLUTION
    instance = _tree(3000)
    result, clock = solve_past_deadline(instance, method, reads=3, problem="treemem")
    _answered(instance, result)
    assert result.notes[0].endswith("the DFS post-order instead"), result.notes
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize(
    "method, n, note",
    [
        ("milp", SLOT_MODEL_MAX_N + 1, "not built above"),
        ("cpsat", SLOT_MODEL_MAX_N + 1, "not built above"),
        ("dp", DP_MAX_N + 1, "not run above"),
    ],
)
def test_exact_models_too_large_to_build_answer_at_once(method, n, note):
    # the incumbent (greedy, then spanning forest) reads the clock ~n/256 times; the old methods went on
    # to build the model (milp, cpsat: n² slot Booleans) or the DP's n-bit masks and search until the
    # deadline passed: here, after 200 readings
    instance = _tree(n)
    result, clock = solve_past_deadline(instance, method, reads=200, problem="treemem")
    assert not clock.expired, f"{method} ran until its deadline: {result.notes}"
    _answered(instance, result)
    assert note in result.notes[0]


@functools.cache
def _parallel_tree() -> Instance:
    return generate_parallel_tree(seed=0, n=5000, memory_factor=50.0)  # M never binds: neither rule deadlocks


@pytest.mark.parametrize("method", ["par-inner-first-capped", "par-deepest-first-capped"])
def test_capped_list_schedule_cut_on_a_tree_returns_liu_order(method):
    # the deadline passes while list-scheduling (Liu's order was made before, within M): was
    # TIME_LIMIT_NO_SOLUTION
    instance = _parallel_tree()
    result, clock = solve_past_deadline(instance, method, reads=100, problem="treemem")
    _answered(instance, result)
    assert result.notes[0].startswith("time limit reached while"), result.notes
    assert "Liu's sequential order on one processor" in result.notes[0]
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize(
    "reads, what", [(4, "the DFS post-order"), (100, "the spanning-forest order")], ids=["priorities", "schedule"]
)
@pytest.mark.parametrize("method", ["par-inner-first-capped", "par-deepest-first"])
def test_list_schedule_cut_on_a_dag_returns_a_sequential_order_that_fits(method, reads, what):
    # a sparse DAG, M = the larger peak of its DFS and spanning-forest orders; the deadline passes while
    # the spanning forest (the priorities' ranks) is made, or while list-scheduling: the order at hand
    # runs on one processor (was TIME_LIMIT_NO_SOLUTION)
    dag = _sparse_dag()
    memory = max(
        hpcsched.solve(dag, sequential, problem="treemem", time_limit=60).objective
        for sequential in ("dfs-postorder", "forest-postorder")
    )
    instance = as_parallel(dag, processors=4, memory=int(memory))
    result, clock = solve_past_deadline(instance, method, reads=reads, problem="treemem")
    _answered(instance, result)
    assert result.notes[0].endswith(f"{what} on one processor instead"), result.notes
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("method", ["par-inner-first-memlimit", "par-deepest-first-memlimit"])
def test_memlimit_cut_returns_liu_order(method):
    # the deadline passes in the MemLimit list schedule; Liu's order (made first: M fits it) was at hand
    instance = generate_parallel_tree(seed=0, n=5000)
    result, clock = solve_past_deadline(instance, method, reads=50, problem="treemem")
    _answered(instance, result)
    assert result.notes[0].endswith("Liu's sequential order on one processor instead"), result.notes
    assert_stops_promptly(instance, result, clock)


def test_cpsat_parallel_cut_while_building_returns_the_list_schedule():
    # both capped list schedules finish (~2,500 readings each on this tree), then the model's build
    # checks the deadline every 1,024 edges and every memory term; was TIME_LIMIT_NO_SOLUTION or a model
    # built past the deadline
    instance = generate_parallel_tree(seed=0, n=3000)
    result, clock = solve_past_deadline(instance, "cpsat-parallel", reads=5060, problem="treemem")
    _answered(instance, result)
    assert "incumbent from the capped list schedules" in result.notes[0]
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("method", ["io-belady", "io-largest", "io-first-fit", "io-best-fit"])
def test_eviction_rules_cut_mid_sweep_stay_valid(method):
    # a sparse out-of-core DAG (no bound is computed on DAGs): the traversal's orders read the clock
    # ~18 times, then the sweep every 256 steps; the deadline passes at its second check
    dag = _sparse_dag()
    instance = as_out_of_core(dag, fraction=0.7)
    result, clock = solve_past_deadline(instance, method, reads=19, problem="treemem")
    _answered(instance, result)
    assert any("time limit reached at step" in note for note in result.notes), result.notes
    assert_stops_promptly(instance, result, clock)


def test_auto_on_a_parallel_dag_is_not_cut_by_a_deadlock():
    # 500 nodes: auto runs par-inner-first-capped, which deadlocks at M = the least sequential peak of
    # the orders it tries; it answered TIME_LIMIT_NO_SOLUTION in 0.0 s, the limit never reached
    dag = generate_random_dag(seed=1, n=500, edge_probability=0.01)
    graph = Graph.of(dag)
    memory = min(
        hpcsched.solve(dag, method, problem="treemem", time_limit=60).objective
        for method in ("dfs-postorder", "forest-postorder", "greedy")
    )
    assert memory >= max(graph.memreq(i) for i in range(graph.n))
    instance = as_parallel(dag, processors=4, memory=int(memory))
    result, clock = solve_past_deadline(instance, "auto", reads=10**6, problem="treemem")
    assert not clock.expired
    _answered(instance, result)
