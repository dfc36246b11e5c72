"""The dynamic memory rows of the partition MILP: memory checked at event points (the begin of every item).

Why event points and not time steps: a time-indexed model needs a
variable per node and per instant of the horizon, so its size grows with
the magnitude of the times (microseconds in the real graphs); rows at
event points grow with the number of items only, whatever the times.

Items (the definition's): the output of u, [S_u, O_u) on u's GPU, with
O_u >= S_u + p_u and O_u >= S_v + p_v - H y_uv for every consumer v (the
split bit y is exact: 1 iff apart); the copy of edge (u, v),
[S_u + p_u + c_uv, S_v + p_v) on v's GPU when y_uv = 1; and the persistent
memory W_g = Σ_v w_v x_vg of GPU g over [0, C). Starts are integers.

Rows. For every ordered pair of items (I, J): π_IJ = 0 forces
b_I >= b_J + 1 and ρ_IJ = 0 forces e_I <= b_J (T: a big-M larger than any
difference of event times), so "I contains the instant b_J" (b_I <= b_J <
e_I) forces π_IJ = ρ_IJ = 1; δ_IJg >= π_IJ + ρ_IJ + on_Ig - 2 (on_Ig: I is
on GPU g). For every item J and GPU g:

    W_g + s_J + Σ_{I != J} s_I δ_IJg <= M + B_J (2 - on_Jg - ρ_JJ),

with ρ_JJ = 0 forcing e_J <= b_J (J empty), so the row binds when J is on
g and not empty; and W_g <= M when the makespan is positive (a binary μ,
fixed to 1 when Σp > 0, with C <= H μ).

Why exact. (i) Every valid schedule is a solution: set every binary to
its meaning (π, ρ, on, y exact, δ = 1 iff I contains b_J and is on g,
O_u its definition, μ = [C > 0]); the level on g at b_J of a non-empty
item J is W_g + s_J + the items containing b_J, at most M. (ii) Every
solution is valid: the auxiliary variables are only forced upward, and a
larger O_u only lengthens an item, so the MILP's items cover the
definition's; the level of a GPU is piecewise constant, rises only where
an item begins, and is W_g alone where nothing else is held: its maximum
over [0, C) is W_g (row W_g <= M) or is reached at the begin b_J of a
non-empty item J, where every item holding memory contains b_J and so has
δ_IJg = 1 (the persistent memory contains b_J: b_J < e_J <= C). Rows
at event points of half-open intervals: a release and an allocation at
the same instant never coexist, as in the definition (e_I <= b_J lets
ρ_IJ = 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class _Item:
    """An item: begin and end expressions, size, and per GPU the expression that is 1 when it is there."""

    begin: Any
    end: Any
    size: int
    on: tuple[Any, ...]


class DynamicMemoryRows:
    """Adds the rows of the module docstring to a `milp._PartitionMilp` whose starts are integers and split bits
    exact.

    Parameters
    ----------
    built
        The MILP under construction (its ``problem``, ``x``, ``start``, ``split``, ``makespan``, ``horizon``).
    """

    def __init__(self, built: Any) -> None:
        self.built = built
        self.pulp = built.pulp
        instance = built.instance
        self.instance, self.gpus, self.times = instance, built.gpus, built.times
        largest_transfer = max((int(edge.delay) for edge in instance.edges), default=0)
        # event times lie in [0, H + max c]: b_J + 1 - b_I and e_I - b_J stay below T
        self.big_time = built.horizon + largest_transfer + 1

    def add(self) -> None:
        """Every row of the module docstring."""
        items = self._items()
        self._add_persistent_rows()
        self._add_event_rows(items)

    def _items(self) -> list[_Item]:
        """The outputs and the possible copies of positive size."""
        pulp, built, instance = self.pulp, self.built, self.instance
        nodes, times, start, x = instance.nodes, self.times, built.start, built.x
        release = [pulp.LpVariable(f"O_{u}", lowBound=0, upBound=built.horizon) for u in range(instance.n)]
        for u in range(instance.n):
            built.problem += release[u] >= start[u] + times[u]
        for edge, y in zip(instance.edges, built.split, strict=True):
            built.problem += release[edge.u] >= start[edge.v] + times[edge.v] - built.horizon * y
        items = [
            _Item(start[u], release[u], nodes[u].output, tuple(x[u])) for u in range(instance.n) if nodes[u].output > 0
        ]
        for e, (edge, y) in enumerate(zip(instance.edges, built.split, strict=True)):
            size = nodes[edge.u].output
            if size == 0:
                continue
            on = []
            for g in range(self.gpus):
                there = pulp.LpVariable(f"copy_{e}_{g}", lowBound=0, upBound=1)
                built.problem += there >= y + x[edge.v][g] - 1
                on.append(there)
            arrival = start[edge.u] + times[edge.u] + int(edge.delay)
            items.append(_Item(arrival, start[edge.v] + times[edge.v], size, tuple(on)))
        return items

    def persistent(self, g: int) -> Any:
        """W_g = Σ_v w_v x_vg."""
        nodes, x = self.instance.nodes, self.built.x
        return self.pulp.lpSum(nodes[v].persistent * x[v][g] for v in range(self.instance.n) if nodes[v].persistent)

    def _add_persistent_rows(self) -> None:
        """W_g <= M whenever the makespan is positive (always when Σp > 0)."""
        built, memory = self.built, self.instance.memory
        total = sum(node.persistent for node in self.instance.nodes)
        if sum(self.times) > 0:
            for g in range(self.gpus):
                built.problem += self.persistent(g) <= memory
            return
        positive = self.pulp.LpVariable("positive_makespan", cat="Binary")
        built.problem += built.makespan <= built.horizon * positive
        for g in range(self.gpus):
            built.problem += self.persistent(g) <= memory + total * (1 - positive)

    def _add_event_rows(self, items: list[_Item]) -> None:
        """π, ρ, δ and the memory row at the begin of every item on every GPU."""
        pulp, built, big_time = self.pulp, self.built, self.big_time
        problem = built.problem
        total = sum(node.persistent for node in self.instance.nodes) + sum(item.size for item in items)
        for j, later in enumerate(items):
            built.deadline.check("building the MILP's memory rows")
            alive = pulp.LpVariable(f"rho_{j}_{j}", cat="Binary")  # 0: J is empty
            problem += later.end <= later.begin + big_time * alive
            held: list[list[Any]] = [[] for _ in range(self.gpus)]
            for i, earlier in enumerate(items):
                if i == j:
                    continue
                begun = pulp.LpVariable(f"pi_{i}_{j}", cat="Binary")  # 0: I begins after b_J
                problem += earlier.begin >= later.begin + 1 - big_time * begun
                running = pulp.LpVariable(f"rho_{i}_{j}", cat="Binary")  # 0: I has ended by b_J
                problem += earlier.end <= later.begin + big_time * running
                for g in range(self.gpus):
                    contains = pulp.LpVariable(f"delta_{i}_{j}_{g}", lowBound=0, upBound=1)
                    problem += contains >= begun + running + earlier.on[g] - 2
                    held[g].append(earlier.size * contains)
            for g in range(self.gpus):
                level = self.persistent(g) + later.size + pulp.lpSum(held[g])
                problem += level <= self.instance.memory + total * (2 - later.on[g] - alive)
