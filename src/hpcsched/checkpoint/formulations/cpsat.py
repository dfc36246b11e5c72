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

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat, version
from .. import bounds
from ..model import Instance, Solution
from ..simulate import total_time
from .incumbent import Incumbent, baseline_incumbent, cut_short


@dataclass(frozen=True)
class CpsatParams:
    """Options of `cpsat`.

    Attributes
    ----------
    max_stages
        Largest L modelled (the slot count grows as L³/3); larger is NOT_APPLICABLE.
    max_variables
        Largest model built, in Boolean variables (`model_variables`, ~2L⁴/3: L = 34 has 1.8 M); building
        takes about 950 bytes each (measured), so the default is about 1.9 GB; larger is NOT_APPLICABLE
        before any work.
    workers
        CP-SAT workers.
    deterministic_time
        CP-SAT ``max_deterministic_time`` (None: only the wall-clock limit).
    """

    max_stages: int = 8
    max_variables: int = 2_000_000
    workers: int = 1
    deterministic_time: float | None = None

    def __post_init__(self) -> None:
        at_least("max_stages", self.max_stages, 1)
        at_least("max_variables", self.max_variables, 1)
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


def phase_slots(length: int) -> list[int]:
    """Forward slots before ``B k``, for k = L, L−1, .., 0 (the proven bound of the module docstring)."""
    return [length * (length + 1)] + [(k + 1) ** 2 for k in range(length - 1, -1, -1)]


def model_variables(length: int) -> int:
    """Boolean variables of the slot model: a held literal per value (2L) and slot, two per forward per slot."""
    slots = sum(phase_slots(length)) + length + 1
    forwards = sum(
        count * 2 * (min(k, length - 1) + 1)
        for k, count in zip(range(length, -1, -1), phase_slots(length), strict=False)
    )
    return slots * 2 * length + forwards


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
        Checked once per slot while building (each slot's held literals are made with its constraints).
    """

    def __init__(self, instance: Instance, deadline: Deadline) -> None:
        L, x, xb = instance.length, instance.x, instance.xbar
        self.instance, self.deadline, self.L = instance, deadline, L
        self.model = new_model()
        self.values = [("x", i) for i in range(1, L + 1)] + [("xbar", i) for i in range(1, L + 1)]
        self.size = {("x", i): x[i] for i in range(1, L + 1)} | {("xbar", i): xb[i] for i in range(1, L + 1)}
        self.slots = _slots(L)
        self.backward_slot = {k: t for t, (k, kind) in enumerate(self.slots) if kind == "B"}
        self.held: dict[tuple[Value, int], IntVar] = {}
        self.ops: dict[int, dict[Op, IntVar]] = {}
        self.objective: list = []

    def build(self) -> _SlotModel:
        """Every slot's constraints, the symmetry breaking and the objective, in the model's fixed order."""
        for t, (k, kind) in enumerate(self.slots):
            self.deadline.check(_BUILDING)
            self.held.update({(v, t): self.model.new_bool_var(f"h_{v[0]}{v[1]}_{t}") for v in self.values})
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
        """Held values were held before or produced now; one xbar copy; xbar kept until its ``B``.

        Slot t's literals only exist once slot t is built, so each rule links slot t to slot t − 1.
        """
        model, held = self.model, self.held
        for v in self.values:
            h = held[(v, t)]
            for literal in produced[v]:
                model.add_implication(literal, h)
                if v[0] == "xbar" and t > 0:
                    model.add_implication(literal, held[(v, t - 1)].Not())
            previous = [held[(v, t - 1)]] if t > 0 else []
            model.add_bool_or(previous + produced[v]).only_enforce_if(h)
            if v[0] == "xbar" and 0 < t <= self.backward_slot[v[1] - 1]:
                model.add_implication(held[(v, t - 1)], h)

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
        Seconds of wall time the method may use, the baselines and the model's building included.
    seed
        Random seed (CP-SAT's random seed).
    params : CpsatParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL or FEASIBLE with the faster of CP-SAT's sequence and the cheap
        baselines' (`incumbent.baselines`, run first); the bound is the larger
        of CP-SAT's proven bound and `bounds.best`. FEASIBLE with the baselines'
        sequence when the limit ends the building or the search without a
        solution of CP-SAT's (TIME_LIMIT_NO_SOLUTION when no baseline fits M);
        INFEASIBLE when no sequence fits M; NOT_APPLICABLE outside the model's
        size limits (checked before any work).
    """
    params = params or CpsatParams()
    L = instance.length
    if params.max_stages < L:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"L = {L} > max_stages = {params.max_stages}",))
    variables = model_variables(L)
    if variables > params.max_variables:
        note = (
            f"the model would have {variables:,} Boolean variables > max_variables = {params.max_variables:,} "
            f"(about {variables * _BYTES_PER_VARIABLE / 1e9:.1f} GB to build)"
        )
        return Result(status=Status.NOT_APPLICABLE, notes=(note,))
    deadline = Deadline.after(time_limit)
    # within the limit, before the model: its first call imports scipy (0.2 s), and it is the bound of every status
    cheap_bound = bounds.best(instance, deadline)
    incumbent = baseline_incumbent(instance, deadline, time_limit)
    try:
        built = _SlotModel(instance, deadline).build()
    except TimeLimitReached as stop:
        return cut_short(instance, incumbent, stop, "the CP-SAT model", deadline)
    outcome = solve_cpsat(
        built.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    if outcome.status is Status.INFEASIBLE:
        raise InfeasibleError("no sequence fits the budget (CP-SAT over all sequences within the proven length bound)")
    return _answer(instance, built, outcome, incumbent, cheap_bound)


#: Bytes one Boolean variable of the slot model costs once built (with its share of the constraints): peak RSS
#: growth / `model_variables`, measured with ortools 9.15 at L = 10, 20, 30 (942, 935, 925 bytes; 1.1 M
#: variables at L = 30 took 13 s to build).
_BYTES_PER_VARIABLE = 950


def _answer(instance: Instance, built: _SlotModel, outcome, incumbent: Incumbent | None, cheap_bound: int) -> Result:
    """The faster of CP-SAT's sequence and the incumbent; bound: the larger of CP-SAT's and ``cheap_bound``
    (`bounds.best`), both proven."""
    notes = [f"{len(built.slots)} slots (proven length bound)"]
    bound = float(cheap_bound)
    if outcome.bound is not None:
        bound = max(bound, float(int(outcome.bound + 1e-6)))  # integer objective
    solution = Solution(built.sequence(outcome)) if outcome.has_solution else None
    if incumbent is not None and (solution is None or incumbent.time < total_time(instance, solution.sequence)):
        solution = incumbent.solution
        notes.append(f"the {incumbent.method} baseline's sequence (faster than CP-SAT's, or CP-SAT found none)")
    if solution is None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, solver=outcome.backend, notes=tuple(notes))
    proven = outcome.status is Status.OPTIMAL or total_time(instance, solution.sequence) <= bound
    status = Status.OPTIMAL if proven else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=tuple(notes))


__all__ = ["CpsatParams", "cpsat", "model_variables", "phase_slots", "version"]
