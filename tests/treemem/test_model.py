"""Reading instances and solutions: one clear error naming the field; the memory semantics by hand."""

from __future__ import annotations

import pytest

from hpcsched.core.errors import InvalidInstanceError, InvalidSolutionError
from hpcsched.treemem import Instance, Solution, evaluate, memory_profile, validate


def data(nodes, edges, question="sequential", **extra):
    return {"question": question, "graph": {"nodes": nodes, "edges": edges}, **extra}


def node(name, time=1, exec_=0, output=1):
    return {"name": name, "time": time, "exec": exec_, "output": output}


def read(payload):
    return Instance.from_data(payload, name="t")


def error_field(payload):
    with pytest.raises(InvalidInstanceError) as caught:
        read(payload)
    return caught.value.field, caught.value.reason


def test_round_trip():
    payload = data([node("a", 3, 0, 5), node("b"), node("c", 2, 4, 0)], [["a", "c"], ["b", "c"]])
    instance = read(payload)
    assert instance.to_data() == payload
    assert instance.is_tree and instance.predecessors[2] == (0, 1)


def test_cycle_is_named():
    field, reason = error_field(data([node("a"), node("b"), node("c")], [["a", "b"], ["b", "c"], ["c", "a"]]))
    assert field == "data.graph.edges" and "cycle" in reason and "a -> b -> c -> a" in reason


def test_self_loop_and_duplicate_edge():
    assert error_field(data([node("a")], [["a", "a"]]))[0] == "data.graph.edges[0]"
    field, reason = error_field(data([node("a"), node("b")], [["a", "b"], ["a", "b"]]))
    assert field == "data.graph.edges[1]" and "duplicate" in reason


def test_dangling_edge_names_the_end():
    field, reason = error_field(data([node("a")], [["a", "zz"]]))
    assert field == "data.graph.edges[0][1]" and "zz" in reason


@pytest.mark.parametrize("key", ["time", "exec", "output"])
def test_negative_size_names_the_field(key):
    bad = node("a")
    bad[key] = -1
    field, _ = error_field(data([bad], []))
    assert field == f"data.graph.nodes[0].{key}"


def test_other_bad_fields():
    assert error_field(data([node("a"), node("a")], []))[0] == "data.graph.nodes[1].name"
    assert error_field(data([{**node("a"), "colour": 1}], []))[0] == "data.graph.nodes[0].colour"
    assert error_field(data([node("a")], [], question="fastest"))[0] == "data.question"
    assert error_field(data([], []))[0] == "data.graph.nodes"
    assert error_field({"question": "sequential"})[0] == "data.graph"


def test_out_of_core_question_needs_m():
    assert read(data([node("a")], [], question="out-of-core", memory=5)).memory == 5
    field, reason = error_field(data([node("a")], [], question="out-of-core"))
    assert field == "data.memory" and "out-of-core" in reason


def test_parallel_question_needs_p_m_and_positive_times():
    assert read(data([node("a")], [], question="parallel", processors=2, memory=5)).processors == 2
    assert error_field(data([node("a")], [], question="parallel", memory=5))[0] == "data.processors"
    assert error_field(data([node("a")], [], question="parallel", processors=2))[0] == "data.memory"
    assert error_field(data([node("a")], [], question="parallel", processors=0, memory=5))[0] == "data.processors"
    assert error_field(data([node("a", time=0)], [], question="parallel", processors=1, memory=5))[0] == (
        "data.graph.nodes[0].time"
    )


def test_solution_reading():
    instance = read(data([node("a"), node("b")], [["a", "b"]]))
    assert Solution.from_data({"order": ["a", "b"]}, instance=instance).order == ("a", "b")
    with pytest.raises(InvalidSolutionError) as caught:
        Solution.from_data({"order": ["a", "x"]}, instance=instance)
    assert caught.value.field == "solution.order[1]"
    with pytest.raises(InvalidInstanceError):
        Solution.from_data({"order": "ab"}, instance=instance)


def test_memory_semantics_by_hand():
    # a (f=5) and b (n=2, f=3) feed c (n=4, f=0); d (f=7) is an isolated sink.
    instance = read(
        data(
            [node("a", output=5), node("b", exec_=2, output=3), node("c", exec_=4, output=0), node("d", output=7)],
            [["a", "c"], ["b", "c"]],
        )
    )
    # a: 0+5; b: 5 held + 2 + 3; c: 5 + 3 + 4 + 0 (then a, b freed); d: sink, 7 during its step only
    assert memory_profile(instance, [0, 1, 2, 3]) == [5, 10, 12, 7]
    # d first: its output is freed at its own end (the sink convention)
    assert memory_profile(instance, [3, 0, 1, 2]) == [7, 5, 10, 12]
    # memDAG's convention keeps sink outputs: +7 on every later step
    assert memory_profile(instance, [3, 0, 1, 2], keep_sinks=True) == [7, 12, 17, 19]
    kpis = evaluate(instance, Solution(("d", "a", "b", "c")))
    assert kpis["objective"] == 12 and kpis["peak_keep_sinks"] == 19 and kpis["max_memreq"] == 12
    assert validate(instance, Solution(("d", "a", "b", "c"))) == []


def test_validator_rules_by_hand():
    instance = read(data([node("a"), node("b")], [["a", "b"]]))

    def rules(order):
        return sorted({v.rule for v in validate(instance, Solution(order))})

    assert rules(("b", "a")) == ["precedence"]
    assert rules(("a",)) == ["missing"]
    assert rules(("a", "a", "b")) == ["duplicate"]
    assert rules(("a", "b", "x")) == ["unknown-node"]
