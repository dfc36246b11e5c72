"""Exact CP-SAT model over operation slots, for small chains (all sequences, not only persistent ones).

Length bound (proof)
--------------------
Normalize a valid sequence by deleting waste operations (outputs never
read; see `brute_force`): time does not grow. Call *phase k* the forward
operations between ``B k+1`` and ``B k`` (phase L: before ``B L``). In a
waste-free sequence, phase k forwards only stages j <= min(k, L−1) (the
output of stage j > k could only serve ``B j`` or stage j+1, both done).
Within a phase, link each forward to the production it reads: a forest
whose roots were produced before the phase (or are x_0). A leaf is read
only after the phase, by ``B k`` or later; reads go to the most recent
production, so leaves are distinct values among x_1..x_k and
xbar_1..xbar_{k+1} (phase L: x_1..x_L, xbar_1..xbar_L). A leaf of index j
is at depth <= j (each forward raises the index by one). Every node lies on
a root-to-leaf path, so phase k has at most Σ_leaves index <= (k+1)²
forwards for k < L and L(L+1) for phase L. The model has exactly these
forward slots (each one operation or idle) before each ``B k`` slot: at most
Σ_{k<L}(k+1)² + L(L+1) + L + 1 positions (55 for L = 4).

Model
-----
One-hot operation per forward slot; held literals h[v][t] for v in
x_1..x_L, xbar_1..xbar_L (x_0 is held throughout: ``B 0`` is last). A held
value was held at t−1 or is produced at t; a produced value is held; a read
needs its value (x_j's read: h[xbar_j] or h[x_j]); xbar_j, once held, stays
held until ``B j−1`` (which reads it) and is never produced while held.
The validator's liveness releases values at their last read, so its memory
is at most the model's; conversely a waste-free sequence with its own
liveness is a solution of the model. Memory per slot: held + x_0 + awaited
delta(s) + transient <= M. Objective: Σ fw of the forward slots + Σbw.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python.cp_model import IntVar

from ...core.deadline import Deadline
from ...core.errors import InfeasibleError
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat, version
from ..model import Instance, Solution


@dataclass(frozen=True)
class CpsatParams:
    """Options of `cpsat`.

    Attributes
    ----------
    max_stages
        Largest L modelled (the slot count grows as L³/3); larger is NOT_APPLICABLE.
    workers
        CP-SAT workers.
    deterministic_time
        CP-SAT ``max_deterministic_time`` (None: only the wall-clock limit).
    """

    max_stages: int = 8
    workers: int = 1
    deterministic_time: float | None = None

    def __post_init__(self) -> None:
        at_least("max_stages", self.max_stages, 1)
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


def phase_slots(length: int) -> list[int]:
    """Forward slots before ``B k``, for k = L, L−1, .., 0 (the proven bound of the module docstring)."""
    return [length * (length + 1)] + [(k + 1) ** 2 for k in range(length - 1, -1, -1)]


Value = tuple[str, int]
Op = tuple[str, int]
_BUILDING = "building the CP-SAT model"


@dataclass(frozen=True)
class _SlotUse:
    """What one slot does: values it may produce, its reads, its transient and fixed memory.

    Attributes
    ----------
    produced
        Per value, the literals of the forwards of this slot that produce it.
    transient
        Transient-memory terms of the slot's forwards.
    reads
        (literal, stage whose x is read); literal None: the read always happens (a ``B``).
    memory
        Memory the slot always uses besides held values and transients.
    """

    produced: dict[Value, list]
    transient: list
    reads: list[tuple[object, int]]
    memory: int


def _slots(length: int) -> list[tuple[int, str]]:
    """(phase k, "F" for a forward slot or "B"), in order."""
    slots: list[tuple[int, str]] = []
    for k, count in zip(range(length, -1, -1), phase_slots(length), strict=False):
        slots.extend((k, "F") for _ in range(count))
        slots.append((k, "B"))
    return slots


class _SlotModel:
    """The slot model of the module docstring, one method per constraint family.

    Parameters
    ----------
    instance
        A ``chain`` instance.
    deadline
        Checked once per slot while building.
    """

    def __init__(self, instance: Instance, deadline: Deadline) -> None:
        L, x, xb = instance.length, instance.x, instance.xbar
        self.instance, self.deadline, self.L = instance, deadline, L
        self.model = new_model()
        self.values = [("x", i) for i in range(1, L + 1)] + [("xbar", i) for i in range(1, L + 1)]
        self.size = {("x", i): x[i] for i in range(1, L + 1)} | {("xbar", i): xb[i] for i in range(1, L + 1)}
        self.slots = _slots(L)
        self.backward_slot = {k: t for t, (k, kind) in enumerate(self.slots) if kind == "B"}
        self.held = {
            (v, t): self.model.new_bool_var(f"h_{v[0]}{v[1]}_{t}") for v in self.values for t in range(len(self.slots))
        }
        self.ops: dict[int, dict[Op, IntVar]] = {}
        self.objective: list = []

    def build(self) -> _SlotModel:
        """Every slot's constraints, the symmetry breaking and the objective, in the model's fixed order."""
        for t, (k, kind) in enumerate(self.slots):
            self.deadline.check(_BUILDING)
            use = self._forward_slot(t, k) if kind == "F" else self._backward_slot(t, k)
            self._add_reads(t, use.reads)
            self._add_value_rules(t, use.produced)
            held = sum(self.size[v] * self.held[(v, t)] for v in self.values)
            self.model.add(held + sum(use.transient) + use.memory <= self.instance.memory)
        self._add_idle_slots_last()
        self.model.minimize(sum(self.objective) + sum(self.instance.bw))
        self.deadline.check(_BUILDING)
        return self

    def _forward_slot(self, t: int, k: int) -> _SlotUse:
        """At most one forward (``F j`` or ``Fall j``, j <= k) in forward slot t of phase k."""
        instance, model, L = self.instance, self.model, self.L
        produced: dict[Value, list] = {v: [] for v in self.values}
        transient, reads, choices = [], [], {}
        for j in range(min(k, L - 1) + 1):
            for name in ("F", "Fall"):
                literal = model.new_bool_var(f"{name}{j}_{t}")
                choices[(name, j)] = literal
                produced[("x" if name == "F" else "xbar", j + 1)].append(literal)
                transient.append(instance.ftmp[j] * literal)
                self.objective.append(instance.fw[j] * literal)
                reads.append((literal, j))
        self.ops[t] = choices
        model.add(sum(choices.values()) <= 1)
        x = instance.x
        return _SlotUse(produced, transient, reads, x[0] + (x[k + 1] if k < L else 0))

    def _backward_slot(self, t: int, k: int) -> _SlotUse:
        """``B k`` in slot t: it reads x_k and needs xbar_{k+1} held."""
        x, L = self.instance.x, self.L
        if k < L:
            self.model.add(self.held[(("xbar", k + 1), t)] == 1)
        memory = x[0] + (x[k + 1] if k < L else 0) + x[k] + self.instance.btmp[k]
        return _SlotUse({v: [] for v in self.values}, [], [(None, k)], memory)

    def _add_reads(self, t: int, reads: list[tuple[object, int]]) -> None:
        """A read of x_j (j >= 1) needs x_j or xbar_j held."""
        for literal, j in reads:
            if j >= 1:
                either = self.model.add_bool_or([self.held[(("xbar", j), t)], self.held[(("x", j), t)]])
                if literal is not None:
                    either.only_enforce_if(literal)

    def _add_value_rules(self, t: int, produced: dict[Value, list]) -> None:
        """Held values were held before or produced now; one xbar copy; xbar kept until its ``B``."""
        model, held = self.model, self.held
        for v in self.values:
            h = held[(v, t)]
            for literal in produced[v]:
                model.add_implication(literal, h)
                if v[0] == "xbar" and t > 0:
                    model.add_implication(literal, held[(v, t - 1)].Not())
            previous = [held[(v, t - 1)]] if t > 0 else []
            model.add_bool_or(previous + produced[v]).only_enforce_if(h)
            if v[0] == "xbar" and t + 1 < len(self.slots) and t + 1 <= self.backward_slot[v[1] - 1]:
                model.add_implication(h, held[(v, t + 1)])

    def _add_idle_slots_last(self) -> None:
        """Symmetry: idle forward slots come last in their phase."""
        slots = self.slots
        for t in range(len(slots) - 1):
            if slots[t][1] == "F" and slots[t + 1][1] == "F":
                self.model.add(sum(self.ops[t + 1].values()) <= sum(self.ops[t].values()))

    def sequence(self, outcome) -> tuple:
        """The operation sequence of a solved model."""
        sequence = []
        for t, (k, kind) in enumerate(self.slots):
            if kind == "B":
                sequence.append(("B", k))
                continue
            sequence.extend(op for op, literal in self.ops[t].items() if outcome.value(literal) > 0.5)
        return tuple(sequence)


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpsatParams | None) -> Result:
    """Exact CP-SAT model over operation slots (all sequences; length bound proven in the docstring).

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (CP-SAT's random seed).
    params : CpsatParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL or FEASIBLE with CP-SAT's sequence and its proven bound;
        INFEASIBLE when no sequence fits M; TIME_LIMIT_NO_SOLUTION when the
        limit ends the search first; NOT_APPLICABLE outside the model's size limits.
    """
    params = params or CpsatParams()
    L = instance.length
    if params.max_stages < L:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"L = {L} > max_stages = {params.max_stages}",))
    deadline = Deadline.after(time_limit)
    built = _SlotModel(instance, deadline).build()
    outcome = solve_cpsat(
        built.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    notes = (f"{len(built.slots)} slots (proven length bound)",)
    if outcome.status is Status.INFEASIBLE:
        raise InfeasibleError("no sequence fits the budget (CP-SAT over all sequences within the proven length bound)")
    bound = float(int(outcome.bound + 1e-6)) if outcome.bound is not None else None  # integer objective
    if not outcome.has_solution:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, solver=outcome.backend, notes=notes)
    status = Status.OPTIMAL if outcome.status is Status.OPTIMAL else Status.FEASIBLE
    solution = Solution(built.sequence(outcome))
    return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=notes)


__all__ = ["CpsatParams", "cpsat", "phase_slots", "version"]
