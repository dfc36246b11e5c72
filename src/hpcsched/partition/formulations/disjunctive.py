"""Exhaustive search for the best schedule of a fixed assignment under dynamic memory (used by `brute_force`).

With dynamic memory an optimum may need deliberate idle time (a copy
arrives at C_u + c_uv whatever its consumer does, so delaying u can be
the only way to let the consumer's GPU free memory first), so the
semi-active enumeration of static memory is not exhaustive. This module
searches the *disjunctions* instead: every rule of the definition is a
difference constraint once it is decided which of two things comes first.

Variables (integers): the origin Z = 0, the starts S_v, the output ends
O_u and the makespan C. Every memory item of the definition is an
interval between two of them plus constant offsets:

* the persistent memory of GPU g (Σ w_v of its nodes): [Z, C);
* the output of u on its GPU: [S_u, O_u), O_u >= S_u + p_u and >= S_v + p_v
  for every consumer v on the same GPU;
* the copy of a cut edge (u, v) on v's GPU: [S_u + p_u + c_uv, S_v + p_v).

Base constraints: S_v >= 0, S_v >= S_u + p_u (+ c_uv when cut), C >= S_v + p_v
and the O_u rows. A *branch* adds more constraints x_b >= x_a + w; its
*earliest* schedule is the least solution of the system (longest paths
from Z; a positive cycle means the branch is empty). Only the definitional
rows have O_u or C on their larger side, so in the earliest schedule O_u
and C are exactly the definition's values, and every variable is <= its
value in any schedule of the branch: the earliest makespan is the best
of the branch.

Theorem (exhaustive). If the earliest schedule x of a branch breaks no
rule, it is an optimum of the branch. Otherwise, let σ be any valid
schedule of the branch:

* two nodes i, j of positive time overlap on one GPU in x: σ runs i before
  j (S_j >= S_i + p_i) or j before i; branch on the two;
* on GPU g the items L alive at an instant t hold more than M in x: in σ
  some item of L is empty (end <= begin) or two of them are disjoint
  (end_I <= begin_J), since otherwise the items of L pairwise intersect,
  half-open intervals on a line that pairwise intersect share a point
  (Helly in one dimension), and σ would hold Σ_L > M there; branch on
  those |L| + |L|(|L| - 1) constraints.

σ satisfies one child, so no valid schedule is lost. Each child's
constraint is broken by x (the items are non-empty and contain t; the
nodes overlap), so it is new to the branch: every path adds distinct
constraints from a finite set, and the search ends. A branch whose
earliest makespan is no better than the best found is cut. All constants
are integers, so every earliest schedule has integer starts, as a
solution must.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.deadline import Deadline
from ..model import Instance

#: A difference constraint ``(a, b, w)``: x_b >= x_a + w.
Constraint = tuple[int, int, int]


@dataclass(frozen=True)
class _Item:
    """A memory item: ``size`` bytes on ``gpu`` over [x[begin] + begin_offset, x[end] + end_offset)."""

    gpu: int
    begin: int
    begin_offset: int
    end: int
    end_offset: int
    size: int

    def interval(self, x: Sequence[int]) -> tuple[int, int]:
        return x[self.begin] + self.begin_offset, x[self.end] + self.end_offset

    def empty(self) -> Constraint:
        """end <= begin."""
        return (self.end, self.begin, self.end_offset - self.begin_offset)

    def before(self, other: _Item) -> Constraint:
        """This item ends no later than ``other`` begins."""
        return (self.end, other.begin, self.end_offset - other.begin_offset)


class AssignmentSearch:
    """The disjunctive search of the module docstring for one node -> GPU assignment.

    Parameters
    ----------
    instance
        A dynamic-memory instance.
    gpu_of
        The GPU of every node.
    deadline
        Checked every 256 branches.
    """

    ORIGIN = 0

    def __init__(self, instance: Instance, gpu_of: Sequence[int], deadline: Deadline) -> None:
        n = instance.n
        self.instance, self.gpu_of, self.deadline = instance, list(gpu_of), deadline
        self.times = instance.times
        self.makespan_var = 2 * n + 1
        self.variables = 2 * n + 2
        self.base = self._base_constraints()
        self.items = self._items()
        self.branches = 0

    @staticmethod
    def start_var(v: int) -> int:
        return 1 + v

    def output_end_var(self, u: int) -> int:
        return 1 + self.instance.n + u

    def _base_constraints(self) -> list[Constraint]:
        """Starts >= 0, precedence with the transfer of cut edges, the definitional O_u and C."""
        times, gpu_of, start = self.times, self.gpu_of, self.start_var
        rows: list[Constraint] = []
        for v in range(self.instance.n):
            rows.append((self.ORIGIN, start(v), 0))
            rows.append((start(v), self.makespan_var, times[v]))
            rows.append((start(v), self.output_end_var(v), times[v]))
        for edge in self.instance.edges:
            cut = gpu_of[edge.u] != gpu_of[edge.v]
            rows.append((start(edge.u), start(edge.v), times[edge.u] + (int(edge.delay) if cut else 0)))
            if not cut:
                rows.append((start(edge.v), self.output_end_var(edge.u), times[edge.v]))
        return rows

    def _items(self) -> list[_Item]:
        """Persistent memory per GPU, outputs, copies of cut edges (those of positive size)."""
        nodes, gpu_of, times, start = self.instance.nodes, self.gpu_of, self.times, self.start_var
        resident = [0] * self.instance.gpus
        for v, node in enumerate(nodes):
            resident[gpu_of[v]] += node.persistent
        items = [_Item(g, self.ORIGIN, 0, self.makespan_var, 0, w) for g, w in enumerate(resident) if w > 0]
        for u, node in enumerate(nodes):
            if node.output > 0:
                items.append(_Item(gpu_of[u], start(u), 0, self.output_end_var(u), 0, node.output))
        for edge in self.instance.edges:
            size = nodes[edge.u].output
            if size > 0 and gpu_of[edge.u] != gpu_of[edge.v]:
                arrival = times[edge.u] + int(edge.delay)
                items.append(_Item(gpu_of[edge.v], start(edge.u), arrival, start(edge.v), times[edge.v], size))
        return items

    def earliest(self, constraints: Sequence[Constraint], lower: Sequence[int]) -> list[int] | None:
        """The least solution of ``constraints`` at or above ``lower`` (a lower bound of it), or None (empty).

        Bellman-Ford for longest paths from Z: a value still rising after as many rounds as there are
        variables, or Z itself rising above 0, is a positive cycle.
        """
        x = list(lower)
        for _ in range(self.variables + 1):
            changed = False
            for a, b, w in constraints:
                if x[a] + w > x[b]:
                    x[b] = x[a] + w
                    changed = True
            if x[self.ORIGIN] > 0:
                return None
            if not changed:
                return x
        return None

    def children(self, x: Sequence[int]) -> list[Constraint]:
        """The branching constraints of the first rule ``x`` breaks (module docstring); [] when it breaks none."""
        overlap = self._gpu_overlap(x)
        if overlap:
            return overlap
        return self._memory_overflow(x)

    def _gpu_overlap(self, x: Sequence[int]) -> list[Constraint]:
        times, start = self.times, self.start_var
        per_gpu: dict[int, list[int]] = {}
        for v in range(self.instance.n):
            if times[v] > 0:
                per_gpu.setdefault(self.gpu_of[v], []).append(v)
        for members in per_gpu.values():
            members.sort(key=lambda v: x[start(v)])
            # sorted by start, two runs overlap only if two consecutive ones do
            for i, j in itertools.pairwise(members):
                if x[start(j)] < x[start(i)] + times[i]:
                    return [(start(i), start(j), times[i]), (start(j), start(i), times[j])]
        return []

    def _memory_overflow(self, x: Sequence[int]) -> list[Constraint]:
        memory = self.instance.memory
        for g in range(self.instance.gpus):
            alive = [(item, *item.interval(x)) for item in self.items if item.gpu == g]
            alive = [entry for entry in alive if entry[2] > entry[1]]  # empty items hold nothing
            changes: dict[int, int] = {}
            for item, begin, end in alive:
                changes[begin] = changes.get(begin, 0) + item.size
                changes[end] = changes.get(end, 0) - item.size
            level = 0
            for instant in sorted(changes):  # a release and an allocation at one instant: applied together
                level += changes[instant]
                if level > memory:
                    held = [item for item, begin, end in alive if begin <= instant < end]
                    branches = [item.empty() for item in held]
                    branches += [first.before(second) for first in held for second in held if first is not second]
                    return branches
        return []

    def best(self, bound: int) -> tuple[int, list[int]] | None:
        """The best makespan below ``bound`` with its starts, or None when no schedule of this assignment beats it."""
        root = self.earliest(self.base, [0] * self.variables)
        if root is None:
            return None
        found: list[tuple[int, list[int]]] = []
        seen: set[frozenset[Constraint]] = set()
        self._search(frozenset(), root, [bound], found, seen)
        return found[-1] if found else None

    def _search(
        self,
        added: frozenset[Constraint],
        x: list[int],
        bound: list[int],
        found: list[tuple[int, list[int]]],
        seen: set[frozenset[Constraint]],
    ) -> None:
        self.branches += 1
        if self.branches % 256 == 0:
            self.deadline.check("searching the disjunctions (brute force, dynamic memory)")
        if x[self.makespan_var] >= bound[0] or added in seen:
            return
        seen.add(added)
        branching = self.children(x)
        if not branching:
            bound[0] = x[self.makespan_var]
            found.append((bound[0], [x[self.start_var(v)] for v in range(self.instance.n)]))
            return
        candidates = []
        for constraint in branching:
            child = self.earliest([*self.base, *added, constraint], x)
            if child is not None:
                candidates.append((child[self.makespan_var], constraint, child))
        candidates.sort(key=lambda candidate: candidate[0])  # the most promising child first: better cuts
        for makespan, constraint, child in candidates:
            if makespan < bound[0]:
                self._search(added | {constraint}, child, bound, found, seen)
