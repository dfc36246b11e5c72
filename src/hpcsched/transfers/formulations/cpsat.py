"""CP-SAT: intervals, NoOverlap on link and device, Cumulative memory over variable-length holding intervals.

Intervals T_i = [s_i, s_i + c_i) and P_i = [t_i, t_i + p_i), a memory
interval R_i = [s_i, t_i + p_i) of variable length, NoOverlap(T),
NoOverlap(P), Cumulative(R, m, M), t_i ≥ s_i + c_i, minimize C ≥ t_i + p_i.
Zero-length operations are left out of the NoOverlap constraints (CP-SAT
forbids a zero-size interval strictly inside another one, while the
definition lets an empty operation overlap nothing). The options
(`CpsatParams`) and the argument for each are in docs/transfers.md.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import OptionError
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat
from ...solvers.outcome import Outcome
from .. import bounds
from ..model import Instance, Solution, makespan_of, require_fits
from .common import (
    Starts,
    WarmStart,
    conflict_cliques,
    finish,
    identical_groups,
    incumbent,
    out_of_time,
    proven_by_bound,
    warm_start_seconds,
)


@dataclass(frozen=True)
class CpsatParams:
    """Options of `cpsat` (see docs/transfers.md for what each buys).

    Attributes
    ----------
    lower_bound
        C ≥ `bounds.best`, and the reported bound is at least that; with
        ``warm_start``, a warm-start schedule meeting it is OPTIMAL without a solve.
    conflicts
        Redundant NoOverlap over cliques of tasks that never fit together (off: it slowed CP-SAT down).
    warm_start
        The best heuristic gives the horizon and a complete solution hint (else the horizon is Σ (c + p)).
    symmetry
        Identical tasks are ordered: s_i ≤ s_j and t_i ≤ t_j for i < j.
    warm_start_seconds
        Iterated-greedy time of the warm start (None: 20 % of the time limit, at most 10 s).
    probe_seconds
        Seconds of a feasibility solve at C ≤ `bounds.best` before the optimization (0: off;
        None: 25 % of the time limit).
    workers
        CP-SAT workers.
    log
        Print CP-SAT's search log.
    parameters
        Extra ``SatParameters`` fields (e.g. ``{"subsolvers": ["max_lp"]}``); each key is checked
        against ``SatParameters`` here, so a misspelled one is an `OptionError`.
    """

    lower_bound: bool = True
    conflicts: bool = False
    warm_start: bool = True
    symmetry: bool = True
    warm_start_seconds: float | None = None
    probe_seconds: float | None = 0.0
    workers: int = 2
    log: bool = False
    parameters: dict[str, Any] | None = field(default=None)

    def __post_init__(self) -> None:
        at_least("warm_start_seconds", self.warm_start_seconds, 0)
        at_least("probe_seconds", self.probe_seconds, 0)
        at_least("workers", self.workers, 1)
        check_sat_parameters(self.parameters)


def check_sat_parameters(parameters: dict[str, Any] | None) -> None:
    """Raise `OptionError` naming ``options.parameters.<key>`` for a key or value ``SatParameters`` refuses.

    The values are applied to a fresh ``SatParameters`` exactly as the
    solver adapter applies them, so what passes here cannot fail there.
    """
    if not parameters:
        return
    from ortools.sat import sat_parameters_pb2

    fields = sat_parameters_pb2.SatParameters.DESCRIPTOR.fields_by_name
    trial = sat_parameters_pb2.SatParameters()
    for key, value in parameters.items():
        where = f"options.parameters.{key}"
        if key not in fields:
            raise OptionError(where, "is not a field of CP-SAT's SatParameters")
        try:
            if isinstance(value, (list, tuple)):
                getattr(trial, key).extend(value)
            else:
                setattr(trial, key, value)
        except (TypeError, ValueError, AttributeError) as error:
            raise OptionError(where, f"CP-SAT refuses {value!r}: {error}") from None


#: Tasks the model builder adds between two readings of the deadline.
CHECK_EVERY = 256


@dataclass(frozen=True)
class CpsatModel:
    """A built CP-SAT model and the variables a schedule is read from."""

    model: Any
    transfer_start: list[Any]
    compute_start: list[Any]

    def starts(self, outcome: Outcome) -> Starts:
        assert outcome.value is not None
        return (
            [int(outcome.value(v)) for v in self.transfer_start],
            [int(outcome.value(v)) for v in self.compute_start],
        )


class _CpsatBuilder:
    """The model with every start in [0, horizon] and C in [lowest, horizon], one method per constraint family.

    Every loop over the tasks reads ``deadline`` every `CHECK_EVERY` tasks and raises
    `TimeLimitReached` once it has passed (n = 100,000 tasks take seconds to build).
    """

    def __init__(self, instance: Instance, horizon: int, lowest: int, params: CpsatParams, deadline: Deadline):
        self.instance, self.horizon, self.lowest, self.params = instance, horizon, lowest, params
        self.deadline = deadline
        self.model = new_model()
        self.transfer_start: list[Any] = []
        self.compute_start: list[Any] = []
        self.holding: list[Any] = []
        self.holding_time: list[Any] = []

    def build(self, hint: Solution | None) -> CpsatModel:
        link, device = self._operations()
        self.model.add_no_overlap(link)
        self.model.add_no_overlap(device)
        self._memory()
        makespan = self._makespan()
        if self.params.symmetry:
            self._symmetry()
        if hint is not None:
            self._hint(hint, makespan)
        self.model.minimize(makespan)
        return CpsatModel(self.model, self.transfer_start, self.compute_start)

    def _operations(self) -> tuple[list[Any], list[Any]]:
        """Start variables, the link and device intervals (non-empty only) and the holding intervals."""
        model, horizon = self.model, self.horizon
        link, device = [], []
        for i, task in enumerate(self.instance.tasks):
            self._check(i)
            s = model.new_int_var(0, horizon - task.transfer - task.compute, f"s{i}")
            t = model.new_int_var(task.transfer, horizon - task.compute, f"t{i}")
            model.add(t >= s + task.transfer)
            if task.transfer:
                link.append(model.new_fixed_size_interval_var(s, task.transfer, f"T{i}"))
            if task.compute:
                device.append(model.new_fixed_size_interval_var(t, task.compute, f"P{i}"))
            held = model.new_int_var(task.transfer + task.compute, horizon, f"r{i}")
            self.holding.append(model.new_interval_var(s, held, t + task.compute, f"R{i}"))
            self.holding_time.append(held)
            self.transfer_start.append(s)
            self.compute_start.append(t)
        return link, device

    def _check(self, index: int) -> None:
        if index % CHECK_EVERY == 0:
            self.deadline.check("building the CP-SAT model")

    def _memory(self) -> None:
        tasks, capacity = self.instance.tasks, self.instance.capacity
        if sum(task.memory for task in tasks) > capacity:  # else memory cannot bind
            self.model.add_cumulative(self.holding, [task.memory for task in tasks], capacity)
        if self.params.conflicts:
            for clique in conflict_cliques(self.instance):
                self.model.add_no_overlap([self.holding[i] for i in clique])

    def _makespan(self) -> Any:
        makespan = self.model.new_int_var(self.lowest, self.horizon, "C")
        for i, task in enumerate(self.instance.tasks):
            self._check(i)
            self.model.add(makespan >= self.compute_start[i] + task.compute)
        return makespan

    def _symmetry(self) -> None:
        for group in identical_groups(self.instance):
            for a, b in itertools.pairwise(group):
                self.model.add(self.transfer_start[a] <= self.transfer_start[b])
                self.model.add(self.compute_start[a] <= self.compute_start[b])

    def _hint(self, hint: Solution, makespan: Any) -> None:
        tasks = self.instance.tasks
        for i in range(self.instance.n):
            self._check(i)
            self.model.add_hint(self.transfer_start[i], hint.transfer_start[i])
            self.model.add_hint(self.compute_start[i], hint.compute_start[i])
            # a complete hint: CP-SAT repairs or ignores a partial one
            self.model.add_hint(self.holding_time[i], hint.compute_start[i] + tasks[i].compute - hint.transfer_start[i])
        self.model.add_hint(makespan, makespan_of(self.instance, hint))


def probe_seconds(option: float | None, time_limit: float) -> float:
    """Time of the probe at C <= bound: the option, else 25 % of the time limit."""
    if option is not None:
        return float(option)
    return 0.25 * float(time_limit)


@dataclass
class _Run:
    """The state one `cpsat` call carries from phase to phase."""

    instance: Instance
    params: CpsatParams
    seed: int
    deadline: Deadline
    notes: list[str]
    warm: WarmStart | None = None
    horizon: int = 0
    lowest: int = 0

    def solve(self, built: CpsatModel, seconds: float) -> Outcome:
        params = self.params
        return solve_cpsat(
            built.model,
            time_limit=seconds,
            workers=params.workers,
            seed=self.seed,
            log=params.log,
            parameters=params.parameters,
        )

    def finish(self, outcome: Outcome, built: CpsatModel) -> Result:
        starts = built.starts(outcome) if outcome.has_solution else None
        fallback = None if self.warm is None else self.warm.solution
        return finish(self.instance, outcome, starts, self.params.lower_bound, self.notes, fallback=fallback)

    def built_in_time(self, phase: str) -> Result | None:
        """None while time is left; else the warm start, or `TimeLimitReached` without one."""
        if not self.deadline.expired():
            return None
        if self.warm is None:
            self.deadline.check(phase)
        assert self.warm is not None
        return out_of_time(self.instance, self.warm, self.notes, phase)


def _warm_start(run: _Run, time_limit: float) -> Result | None:
    """Phase 1: the horizon (and hint) from the best heuristic; a Result when that already settles it."""
    instance, params = run.instance, run.params
    if not params.warm_start:
        run.horizon = sum(t.transfer + t.compute for t in instance.tasks)
        run.deadline.check("starting the CP-SAT model")
        return None
    search = min(warm_start_seconds(params.warm_start_seconds, time_limit), run.deadline.remaining() or 0.0)
    run.warm = incumbent(instance, search, run.seed, run.deadline)
    run.horizon = run.warm.makespan
    run.notes.append(f"hint and horizon from {run.warm.name} ({run.horizon})")
    if params.lower_bound and (proven := proven_by_bound(instance, run.warm)):
        return proven
    if run.deadline.expired():
        return out_of_time(instance, run.warm, run.notes, "warm-starting")
    return None


def _probe(run: _Run, seconds: float) -> Result | None:
    """Phase 2: is there a schedule with C <= the lower bound?

    With the horizon cut down to the bound every start window shrinks, so
    propagation is much stronger than in the full model. Feasible: optimal
    (the bound proves it). Infeasible: the bound rises by one.
    """
    try:
        built = _CpsatBuilder(run.instance, run.lowest, run.lowest, run.params, run.deadline).build(None)
    except TimeLimitReached:
        pass
    if (late := run.built_in_time("building the probe model")) is not None:
        return late
    seconds = min(seconds, run.deadline.remaining() or 0.0)
    outcome = run.solve(built, seconds)
    if outcome.has_solution:
        run.notes.append(f"probe at C <= {run.lowest}: a schedule meets the lower bound")
        return run.finish(outcome, built)
    if outcome.status is Status.INFEASIBLE:
        run.notes.append(f"probe at C <= {run.lowest}: infeasible, so C >= {run.lowest + 1}")
        run.lowest += 1
    else:
        run.notes.append(f"probe at C <= {run.lowest}: undecided in {seconds:g} s")
    return None


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpsatParams | None) -> Result:
    """CP-SAT: intervals, NoOverlap on link and device, Cumulative memory; minimize makespan.

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds for the warm start, the probe and the solve together.
    seed
        CP-SAT's ``random_seed`` and the warm-start search's seed.
    params
        `CpsatParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when CP-SAT proves it or the schedule meets the lower bound;
        otherwise FEASIBLE with the larger of CP-SAT's bound and `bounds.best`.
    """
    require_fits(instance)
    params = params or CpsatParams()
    notes = [
        f"options: lower_bound={params.lower_bound}, warm_start={params.warm_start}, "
        f"symmetry={params.symmetry}, conflicts={params.conflicts}, probe_seconds={params.probe_seconds}"
    ]
    run = _Run(instance, params, seed, Deadline.after(time_limit), notes)
    if (settled := _warm_start(run, time_limit)) is not None:
        return settled
    run.lowest = bounds.best(instance) if params.lower_bound else 0
    probe = probe_seconds(params.probe_seconds, time_limit) if params.lower_bound else 0.0
    if probe > 0 and run.lowest < run.horizon and (settled := _probe(run, probe)) is not None:
        return settled
    hint = None if run.warm is None else run.warm.solution
    try:
        built = _CpsatBuilder(instance, run.horizon, run.lowest, params, run.deadline).build(hint)
    except TimeLimitReached:
        pass
    if (late := run.built_in_time("building the CP-SAT model")) is not None:
        return late
    result = run.finish(run.solve(built, run.deadline.remaining() or 0.0), built)
    if result.bound is not None and result.bound < run.lowest:  # the probe's proof is not in CP-SAT's bound
        result = replace(result, bound=run.lowest)
        if result.objective is not None and result.objective <= run.lowest:
            result = replace(result, status=Status.OPTIMAL)
    return result
