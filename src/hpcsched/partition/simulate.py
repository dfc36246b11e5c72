"""What the heuristics share: colocation units, memory ledgers, scheduling a fixed assignment, overflow repair.

Nothing here is used by `hpcsched.partition.model.validate`, which is
written from the definition.

* A *unit* is what must stay together: a colocation group, or a node
  without a group. Heuristics assign units, never half a group.
* The *ledger* of a GPU is a memory figure that, when <= M on every GPU,
  guarantees the memory rule for any schedule of the assignment:
  static: Σ (w_v + s_v) of its nodes (the rule itself); dynamic: the same
  plus s_u for every cut edge (u, v) with v on it. Proof (dynamic): every
  item the definition holds on g at an instant (w_v of a hosted node; the
  output of a hosted node; the copy of a cut edge into g) is one term of
  that sum, counted once, so the level never exceeds the ledger.
* `schedule_assignment` list-schedules a fixed assignment with the shared
  engine (`hpcsched.taskgraph.list_schedule`), each node restricted to its
  GPU through ``fits``, by decreasing upward rank (transfers included).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.deadline import Deadline
from ..core.memo import LastOf
from ..taskgraph import Placement, list_schedule, upward_ranks
from .model import MACHINE_CLASS, Instance, Solution


@dataclass(frozen=True, slots=True)
class Unit:
    """Nodes that must share a GPU (a colocation group, or one node), with their pin (None: free)."""

    members: tuple[int, ...]
    group: str | int | None
    pin: int | None


#: The last instance's units: a heuristic, its feasibility screen and its bounds each ask for them
#: (3.3 s a call at 5 x 10^5 nodes).
_LAST_UNITS: LastOf[tuple[Unit, ...]] = LastOf()


def units(instance: Instance) -> tuple[Unit, ...]:
    """The colocation units in order of their first node; ``pin`` is the first pin among the members."""
    return _LAST_UNITS.get((instance,), lambda: _units(instance))


def _units(instance: Instance) -> tuple[Unit, ...]:
    # One pass, a list per group (no tuple keys): 1.2 s -> 0.4 s at 5 x 10^5 nodes.
    nodes = instance.nodes
    grouped: dict = {}
    slots: list[tuple[list[int], str | int | None]] = []
    for v, node in enumerate(nodes):
        group = node.group
        if group is None:
            slots.append(([v], None))
        elif (members := grouped.get(group)) is None:
            grouped[group] = members = [v]
            slots.append((members, group))
        else:
            members.append(v)
    if all(node.pin is None for node in nodes):
        return tuple(Unit(tuple(members), group, None) for members, group in slots)
    pins = (next((nodes[v].pin for v in members if nodes[v].pin is not None), None) for members, _ in slots)
    return tuple(Unit(tuple(members), group, pin) for (members, group), pin in zip(slots, pins, strict=True))


def unit_index(instance: Instance, unit_list: Sequence[Unit]) -> list[int]:
    """Node -> index of its unit."""
    owner = [0] * instance.n
    for u, unit in enumerate(unit_list):
        for v in unit.members:
            owner[v] = u
    return owner


def own_memory(instance: Instance, v: int) -> int:
    node = instance.nodes[v]
    return node.persistent + node.output


def ledger(instance: Instance, gpu_of: Sequence[int]) -> list[int]:
    """The ledger of every GPU for a node -> GPU assignment (module docstring)."""
    load = [0] * instance.gpus
    for v in range(instance.n):
        load[gpu_of[v]] += own_memory(instance, v)
    if instance.memory_model == "dynamic":
        for edge in instance.edges:
            if gpu_of[edge.u] != gpu_of[edge.v]:
                load[gpu_of[edge.v]] += instance.nodes[edge.u].output
    return load


def fits_memory(instance: Instance, gpu_of: Sequence[int]) -> bool:
    return all(level <= instance.memory for level in ledger(instance, gpu_of))


def ranks(instance: Instance) -> list[float]:
    """Upward rank: longest path to an exit, times and transfers included (HEFT's, with identical GPUs)."""
    return upward_ranks(instance.n, instance.edges, list(instance.times))


#: Placements a list schedule makes between two readings of its deadline (`checking`).
CHECK_EVERY = 128


def checking(
    deadline: Deadline | None, phase: str, on_place: Callable[[int, Placement], None] | None = None
) -> Callable[[int, Placement], None] | None:
    """An engine ``on_place`` hook: ``deadline`` read at the first placement and every `CHECK_EVERY`, then ``on_place``.

    One list schedule of 10^5 nodes takes seconds: without it, a deadline
    passing at its start would be noticed only at its end.
    """
    if deadline is None:
        return on_place
    placed = 0

    def hook(task: int, placement: Placement) -> None:
        nonlocal placed
        placed += 1
        if (placed - 1) % CHECK_EVERY == 0:  # read after the first placement: the engine's setup is O(n + e)
            deadline.check(phase)
        if on_place is not None:
            on_place(task, placement)

    return hook


def schedule_assignment(
    instance: Instance,
    gpu_of: Sequence[int],
    priority: Sequence[float] | None = None,
    deadline: Deadline | None = None,
) -> Solution:
    """List schedule of a fixed assignment (no insertion), by decreasing upward rank unless ``priority`` is given.

    ``deadline``, when given, is checked while scheduling (`checking`).
    """
    if priority is None:
        priority = [-r for r in ranks(instance)]
        if deadline is not None:
            deadline.check("ranking")
    times = instance.times
    placements = list_schedule(
        instance.n,
        instance.edges,
        instance.machines,
        lambda j, c: times[j],
        priority,
        rule="machine",
        fits=lambda j, machine, start: machine[1] == gpu_of[j],
        on_place=checking(deadline, "list scheduling the assignment"),
    )
    return Solution.from_placements(placements)


def retime(instance: Instance, gpu_of: Sequence[int], starts: Sequence[float]) -> Solution:
    """Earliest schedule with the same GPUs and the same order on each GPU as ``starts`` (no start moves later).

    Ties of starts are broken by topological position, so the order given
    to the engine is a topological order; the engine then follows it
    exactly (taskgraph docs) and starts every node at max(data ready,
    previous end on its GPU) <= its start in ``starts``.
    """
    from ..taskgraph import topological_order

    position = {v: i for i, v in enumerate(topological_order(instance.n, instance.edges))}
    order = sorted(range(instance.n), key=lambda v: (starts[v], position[v]))
    priority = [0] * instance.n
    for rank, v in enumerate(order):
        priority[v] = rank
    return schedule_assignment(instance, gpu_of, priority)


def communication_to(
    instance: Instance, members: Sequence[int], gpu_of: Sequence[int], incident: Sequence[Sequence[tuple[int, int]]]
) -> dict[int, int]:
    """Σ c over edges between ``members`` and nodes outside them, per GPU of the other end."""
    inside = set(members)
    total: dict[int, int] = defaultdict(int)
    for v in members:
        for other, cost in incident[v]:
            if other not in inside:
                total[gpu_of[other]] += cost
    return total


def incident_edges(instance: Instance) -> list[list[tuple[int, int]]]:
    """Per node, ``(neighbour, transfer)`` over its in- and out-edges."""
    incident: list[list[tuple[int, int]]] = [[] for _ in range(instance.n)]
    for edge in instance.edges:
        transfer = int(edge.delay)  # an integer (Instance.__post_init__); the shared Edge types it as float
        incident[edge.u].append((edge.v, transfer))
        incident[edge.v].append((edge.u, transfer))
    return incident


def move_delta(
    instance: Instance,
    members: Sequence[int],
    target: int,
    gpu_of: Sequence[int],
    out_edges: Sequence[Sequence[int]],
    in_edges: Sequence[Sequence[int]],
) -> dict[int, int]:
    """Change of every GPU's ledger if ``members`` (all on one GPU) move to ``target``."""
    source = gpu_of[members[0]]
    delta: dict[int, int] = defaultdict(int)
    own = sum(own_memory(instance, v) for v in members)
    delta[source] -= own
    delta[target] += own
    if instance.memory_model == "dynamic":
        inside = set(members)
        nodes = instance.nodes
        for v in members:
            for u in in_edges[v]:  # copies of outside outputs into the unit
                if u in inside:
                    continue
                size = nodes[u].output
                if gpu_of[u] != source:
                    delta[source] -= size
                if gpu_of[u] != target:
                    delta[target] += size
            for w in out_edges[v]:  # copies of the unit's outputs on the consumers' GPUs
                if w in inside:
                    continue
                size = nodes[v].output
                if gpu_of[w] != source:
                    delta[gpu_of[w]] -= size
                if gpu_of[w] != target:
                    delta[gpu_of[w]] += size
    return delta


def repair_memory(
    instance: Instance, gpu_of: list[int], unit_list: Sequence[Unit], deadline: Deadline | None = None
) -> tuple[list[int], int] | None:
    """Greedy overflow repair: move units off over-full GPUs, best memory freed per communication added first.

    ParDNN's repair step (a knapsack per overflow, solved greedily): for an
    over-full GPU g, every unpinned unit on g is scored by its best target
    h (one whose ledger stays <= M after the move): ``bytes freed on g / (1
    + communication added)``, the communication added being Σ c of the
    unit's edges that the move cuts minus those it joins. The best unit
    moves; the scores of its neighbours are refreshed (moving a unit makes
    its neighbours cheaper to follow, which keeps the moved part
    contiguous); a lazy heap re-checks every score when it is popped.
    Passes repeat until no GPU overflows or a pass moves nothing. Returns
    ``(assignment, moves)`` or None when it fails.
    """
    return _OverflowRepair(instance, gpu_of, unit_list, deadline).run()


class _OverflowRepair:
    """The state of one `repair_memory` run: the assignment, the ledgers, the adjacency, the moves made."""

    def __init__(
        self, instance: Instance, gpu_of: list[int], unit_list: Sequence[Unit], deadline: Deadline | None
    ) -> None:
        self.instance, self.unit_list, self.deadline = instance, unit_list, deadline
        self.gpu_of = list(gpu_of)
        self.incident = incident_edges(instance)
        self.out_edges: list[list[int]] = [[] for _ in range(instance.n)]
        self.in_edges: list[list[int]] = [[] for _ in range(instance.n)]
        for edge in instance.edges:
            self.out_edges[edge.u].append(edge.v)
            self.in_edges[edge.v].append(edge.u)
        self.owner = unit_index(instance, unit_list)
        self.load = ledger(instance, self.gpu_of)
        self.moves = 0

    def run(self) -> tuple[list[int], int] | None:
        """Passes over the over-full GPUs until none is left (the assignment and the moves) or one moves nothing."""
        memory = self.instance.memory
        for _ in range(4 * self.instance.gpus + 4):
            over = [g for g in range(self.instance.gpus) if self.load[g] > memory]
            if not over:
                return self.gpu_of, self.moves
            moved = False
            for g in over:
                self._check_deadline()
                moved = self._relieve(g) or moved
            if not moved:
                return None
        return (self.gpu_of, self.moves) if all(level <= memory for level in self.load) else None

    def _on(self, u: int, g: int) -> bool:
        """Unit u is movable (unpinned) and on GPU g."""
        unit = self.unit_list[u]
        return unit.pin is None and self.gpu_of[unit.members[0]] == g

    def _delta(self, u: int, target: int) -> dict[int, int]:
        return move_delta(self.instance, self.unit_list[u].members, target, self.gpu_of, self.out_edges, self.in_edges)

    def score(self, u: int, g: int) -> tuple[float, int] | None:
        """The best ``(bytes freed on g / (1 + communication added), target)`` of unit u on g, None without a target."""
        instance, load = self.instance, self.load
        comm = communication_to(instance, self.unit_list[u].members, self.gpu_of, self.incident)
        best = None
        for h in range(instance.gpus):
            if h == g:
                continue
            delta = self._delta(u, h)
            if delta[g] >= 0 or any(load[x] + d > instance.memory for x, d in delta.items() if x != g and d > 0):
                continue
            added = comm.get(g, 0) - comm.get(h, 0)
            value = -delta[g] / (1 + max(added, 0))
            if best is None or value > best[0]:
                best = (value, h)
        return best

    def _relieve(self, g: int) -> bool:
        """Move units off GPU g, best score first (lazy heap), until it fits or no unit can leave; True if any moved."""
        heap = []
        for u in range(len(self.unit_list)):
            self._check_deadline()
            if self._on(u, g):
                found = self.score(u, g)
                if found is not None:
                    heap.append((-found[0], u))
        heapq.heapify(heap)
        moved = False
        while heap and self.load[g] > self.instance.memory:
            self._check_deadline()
            negative, u = heapq.heappop(heap)
            if self.gpu_of[self.unit_list[u].members[0]] != g:
                continue
            found = self.score(u, g)
            if found is None:
                continue
            if found[0] < -negative - 1e-12 * max(1.0, abs(negative)):
                heapq.heappush(heap, (-found[0], u))  # stale: its score fell, try it again later
                continue
            self._move(u, found[1])
            moved = True
            self._refresh_neighbours(u, g, heap)
        return moved

    def _check_deadline(self) -> None:
        """Per unit scored or popped: a score costs O(degree x GPUs), a pass over dense graphs seconds."""
        if self.deadline is not None:
            self.deadline.check("repairing memory overflows")

    def _move(self, u: int, target: int) -> None:
        """Unit u to ``target``, ledgers updated."""
        for x, d in self._delta(u, target).items():
            self.load[x] += d
        for v in self.unit_list[u].members:
            self.gpu_of[v] = target
        self.moves += 1

    def _refresh_neighbours(self, u: int, g: int, heap: list[tuple[float, int]]) -> None:
        """Push the new scores of the units still on g that share an edge with unit u (they became cheaper to move)."""
        neighbours = {self.owner[other] for v in self.unit_list[u].members for other, _ in self.incident[v]} - {u}
        for w in neighbours:
            if self._on(w, g):
                refreshed = self.score(w, g)
                if refreshed is not None:
                    heapq.heappush(heap, (-refreshed[0], w))


def enforce_units(instance: Instance, gpu_of: Sequence[int], unit_list: Sequence[Unit]) -> list[int]:
    """Put every unit on one GPU: its pin, else the GPU holding most of its time (ties: smallest index)."""
    result = list(gpu_of)
    times = instance.times
    for unit in unit_list:
        if unit.pin is not None:
            target = unit.pin
        elif len(unit.members) == 1:
            continue
        else:
            weight: dict[int, int] = defaultdict(int)
            for v in unit.members:
                weight[gpu_of[v]] += times[v] + 1
            target = max(sorted(weight), key=lambda g: weight[g])
        for v in unit.members:
            result[v] = target
    return result


__all__ = [
    "MACHINE_CLASS",
    "Unit",
    "checking",
    "enforce_units",
    "fits_memory",
    "ledger",
    "move_delta",
    "ranks",
    "repair_memory",
    "retime",
    "schedule_assignment",
    "unit_index",
    "units",
]
