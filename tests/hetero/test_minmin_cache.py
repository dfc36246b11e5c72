"""MinMin with cached best placements against the plain MinMin it replaced (every ready task re-evaluated)."""

from __future__ import annotations

from hypothesis import given, settings

from hpcsched.hetero.heuristics import minmin_placements
from hpcsched.hetero.model import Instance
from hpcsched.taskgraph import ListScheduler

from .hetero_strategies import small_instances


def plain_minmin(instance: Instance):
    """The oracle: at every step evaluate every ready task, place the smallest (end, index)."""
    n = instance.n
    state = ListScheduler(n, instance.edges, instance.machines, instance.time, rule="class")
    waiting = [0] * n
    outgoing = [[] for _ in range(n)]
    for edge in instance.edges:
        waiting[edge.v] += 1
        outgoing[edge.u].append(edge.v)
    ready = {j for j in range(n) if waiting[j] == 0}
    while ready:
        best = None
        for j in sorted(ready):
            placement = state.best_placement(j)
            if best is None or (placement.end, j) < (best[0].end, best[1]):
                best = (placement, j)
        placement, j = best
        state.place(j, placement)
        ready.remove(j)
        for v in outgoing[j]:
            waiting[v] -= 1
            if waiting[v] == 0:
                ready.add(v)
    return state.schedule()


@settings(max_examples=200, deadline=None)
@given(small_instances(max_n=25, max_machines=3, forbid=False))
def test_cached_minmin_places_every_task_as_plain_minmin(instance):
    assert minmin_placements(instance) == plain_minmin(instance)


def test_cached_minmin_matches_on_a_generated_cholesky():
    from hpcsched.hetero import generate_cholesky

    instance = generate_cholesky(tiles=6, cpus=3, gpus=2)
    assert minmin_placements(instance) == plain_minmin(instance)
