"""core.memo.LastOf: computed again for other objects, equal or not; reused only for the same ones."""

from __future__ import annotations

from hpcsched.core.memo import LastOf


def test_the_same_objects_reuse_the_value_and_others_compute_it_again():
    calls = []
    cache: LastOf[int] = LastOf()

    def compute(value):
        calls.append(value)
        return value

    first, second = [1], [1]  # equal, not the same
    assert cache.get((first, "s"), lambda: compute(10)) == 10
    assert cache.get((first, "s"), lambda: compute(11)) == 10  # same objects: not recomputed
    assert cache.get((second, "s"), lambda: compute(12)) == 12  # an equal copy is another key
    assert cache.get((first, "s"), lambda: compute(13)) == 13  # one entry: the first pair was replaced
    assert cache.get((first,), lambda: compute(14)) == 14  # a shorter key is another key
    assert calls == [10, 12, 13, 14]
