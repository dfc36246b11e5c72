"""The validator refuses every mutation of a valid sequence that the definition forbids."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.checkpoint import Solution, memory_profile, validate
from hpcsched.checkpoint.formulations import shortest_sequence

from .checkpoint_strategies import small_chains


@st.composite
def valid_cases(draw):
    instance = draw(small_chains())
    found = shortest_sequence(instance)
    return instance, (found[1] if found else None)


@settings(max_examples=80)
@given(valid_cases(), st.data())
def test_mutations_are_refused(case, data):
    instance, sequence = case
    if sequence is None:
        return
    assert validate(instance, Solution(sequence)) == []
    L = instance.length
    kind = data.draw(
        st.sampled_from(
            [
                "drop-backward",
                "swap-backwards",
                "drop-all-fall",
                "drop-forwards-of-0",
                "tighter-budget",
                "duplicate-backward",
            ]
        )
    )
    seq = list(sequence)
    if kind == "drop-backward":
        stage = data.draw(st.integers(0, L))
        seq.remove(("B", stage))
        target = instance
    elif kind == "duplicate-backward":
        stage = data.draw(st.integers(0, L))
        seq.insert(seq.index(("B", stage)), ("B", stage))
        target = instance
    elif kind == "swap-backwards":
        a = data.draw(st.integers(0, L - 1))
        i, j = seq.index(("B", a + 1)), seq.index(("B", a))
        seq[i], seq[j] = seq[j], seq[i]
        target = instance
    elif kind == "drop-all-fall":
        stage = data.draw(st.integers(0, L - 1))
        seq = [op for op in seq if op != ("Fall", stage)]
        target = instance
    elif kind == "drop-forwards-of-0":
        seq = [op for op in seq if op[0] == "B" or op[1] != 0]
        target = instance
    else:
        peak = max(memory_profile(instance, Solution(sequence)))
        target = instance.__class__(
            instance.name,
            instance.fw,
            instance.bw,
            instance.x,
            instance.xbar,
            instance.ftmp,
            instance.btmp,
            instance.memory,
            instance.kind,
        )
        # a budget one byte below the sequence's peak (built without the constructor's floor check)
        object.__setattr__(target, "memory", peak - 1)
    assert validate(target, Solution(tuple(seq))) != [], (kind, seq)


@settings(max_examples=60)
@given(valid_cases())
def test_simulator_and_definition_agree_on_memory(case):
    # two independent implementations of the liveness rule (forward in model, backward in simulate)
    from hpcsched.checkpoint.formulations import persistent_dp
    from hpcsched.checkpoint.simulate import memory_levels

    instance, sequence = case
    if sequence is None:
        return
    assert memory_levels(instance, sequence) == memory_profile(instance, Solution(sequence))
    plan = persistent_dp(instance)
    if plan.time is not None:
        assert memory_levels(instance, plan.sequence) == memory_profile(instance, Solution(plan.sequence))


def test_an_empty_sequence_is_refused_not_a_crash():
    """An empty sequence breaks rule 4 (no backward): one violation, no IndexError."""
    from hpcsched.checkpoint import Instance

    instance = Instance.from_data(
        {"kind": "chain", "memory": 100, "fw": [1, 1], "bw": [1, 1, 1], "x": [1, 1, 1], "xbar": [None, 1, 1]},
        name="tiny",
    )
    violations = validate(instance, Solution(()))
    assert [v.rule for v in violations] == ["backward-order"]
