"""The validator accepts every topological order and refuses every mutation the definition forbids."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.treemem import Solution, validate
from hpcsched.treemem.simulate import Graph, topological_order

from .treemem_strategies import dags

SETTINGS = settings(max_examples=60, deadline=None)


def is_topological(instance, order):
    position = {name: k for k, name in enumerate(order)}
    return all(position[instance.nodes[u].name] < position[instance.nodes[v].name] for u, v in instance.edges)


@settings(max_examples=40, deadline=None)
@given(dags(max_n=6))
def test_accepts_exactly_the_topological_permutations(instance):
    names = [node.name for node in instance.nodes]
    for order in itertools.permutations(names):
        assert (validate(instance, Solution(order)) == []) == is_topological(instance, order)


@SETTINGS
@given(dags(min_n=2, max_n=9), st.data())
def test_refuses_mutated_orders(instance, data):
    order = [instance.nodes[i].name for i in topological_order(Graph.of(instance))]
    assert validate(instance, Solution(order)) == []
    mutation = data.draw(st.sampled_from(["drop", "duplicate", "unknown", "swap"]))
    k = data.draw(st.integers(0, len(order) - 1))
    mutated = list(order)
    if mutation == "drop":
        del mutated[k]
    elif mutation == "duplicate":
        mutated.insert(data.draw(st.integers(0, len(order))), order[k])
    elif mutation == "unknown":
        mutated[k] = "no-such-node"
    else:
        j = data.draw(st.integers(0, len(order) - 1))
        mutated[k], mutated[j] = mutated[j], mutated[k]
        if is_topological(instance, mutated):
            assert validate(instance, Solution(mutated)) == []
            return
    assert validate(instance, Solution(mutated)) != []
