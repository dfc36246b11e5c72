"""Static sizing with no slowdown: the LP/MILP over elementary intervals (``sizing-static-lp``, Pyomo on HiGHS).

With no slowdown every application follows its nominal timeline, so its
inflow is known. Cut time at every nominal burst start and end: on each
elementary interval j (length l_j) the inflow i_kj of every application is
constant. Variables: x_kj >= 0 bytes drained from partition k during j,
c_kj >= 0 the content of k at the start of j, g_k granules of k.
Constraints: c_k,j+1 = c_kj + i_kj l_j - x_kj; sum_k x_kj <= B l_j;
c_kj <= G g_k. Minimize sum_k g_k. With integral g_k it is a small MILP
(K integers) whose optimum is the least number of granules; with real g_k
it is the LP of the spec, whose value S*_stat (bytes, `static_size_lp`) is
the price-of-static numerator. Volumes are scaled by the largest burst for
the solver (said in notes).

The granule never enters the LP: it is written with the partition size
s_k = G g_k (in solver units) as the variable, c_kj <= s_k, and the granule
comes in only when the sizes are rounded up to whole granules. In the MILP
the coefficient of g_k is min(G, V_k) (V_k = the total volume of k, which
bounds c_kj): the same integer solutions, and no coefficient beyond the
application's own volume (a granule 2^52 times the burst made a 4.5e15
coefficient that HiGHS answered with a solution breaking the balance rows).

Notes
-----
Why the LP is exact for any drain schedule: ``docs/burstbuffer.md``,
section "Why the sizing methods are exact".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached, now
from ...core.result import Result, Status
from ...solvers.outcome import Outcome
from ..bounds import check_load, dynamic_backlog_floor
from ..model import DrainSchedule, Instance, Solution
from ..special_cases import SizingParams
from .intervals import NominalIntervals, too_large

#: Rows, index pairs (~0.5 us each in Pyomo's Set) and variables (~3 us each) between two looks at the clock.
ROWS_PER_CHECK, PAIRS_PER_CHECK, VARIABLES_PER_CHECK = 256, 1 << 10, 1 << 10

#: Slack for the LP's rounding noise when sizes and the LP value are rounded up to whole
#: granules, as a fraction of the smaller of a granule and a largest burst: a fraction of a
#: granule alone rounds a 1-byte content to no granule when a granule is 2^52 bytes, a
#: fraction of the largest burst alone rounds 4.5e6 bytes away when a granule is 1 byte.
SOLVER_SLACK = 1e-9

#: Smallest burst volume, as a fraction of the largest, the LP is given: the rows are in
#: largest bursts and HiGHS holds them to 1e-7, so a burst below 1e-6 of the largest could
#: be lost in the tolerance (1 byte beside 2^52 bytes was: its application got no buffer
#: and no bandwidth, and was slowed down).
VOLUME_RANGE = 1e-6

#: Smallest coefficient of g_k (the granule, or V_k, in solver units) the MILP is given:
#: HiGHS drops matrix entries below 1e-9 and resolves integers to 1e-6, so a granule
#: below 1e-6 of the largest burst means granule counts beyond what it resolves exactly.
MILP_SMALLEST_GRANULE = 1e-6
#: Handing a built model to HiGHS (Pyomo's APPSI interface adds it column by column) takes about
#: five times its build (99,800 pairs: build 6.1 s, hand-over 29.5 s). A solve that could not even
#: start before the deadline is not begun: it would overrun the limit by that hand-over.
HANDOVER_PER_BUILD = 6.0


def _checked_pairs(pairs: Iterable[tuple[int, int]], deadline: Deadline, phase: str) -> Iterator[tuple[int, int]]:
    """``pairs``, looking at the deadline before each `PAIRS_PER_CHECK` of them (the first included)."""
    iterator = iter(pairs)
    deadline.check(phase)
    for batch in iter(lambda: list(islice(iterator, PAIRS_PER_CHECK)), []):
        yield from batch
        deadline.check(phase)


def _checked(
    rule: Callable[..., Any], deadline: Deadline, phase: str, period: int = ROWS_PER_CHECK
) -> Callable[..., Any]:
    """``rule`` that looks at the deadline every ``period`` calls (Pyomo builds rows by calling it)."""
    calls = 0

    def wrapped(*index: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls % period == 0:
            deadline.check(phase)
        return rule(*index)

    return wrapped


@dataclass(frozen=True)
class SizingModel:
    """The Pyomo model and what is needed to read a drain schedule back from it."""

    model: Any
    intervals: NominalIntervals
    drained_index: list[tuple[int, int]]


class SizingModelBuilder:
    """Builds the sizing LP (real g_k) or MILP (integer g_k), one method per row family."""

    def __init__(self, instance: Instance, deadline: Deadline) -> None:
        self.instance, self.deadline = instance, deadline
        self.intervals = NominalIntervals.of(instance)
        first, last = self.intervals.first_interval, len(self.intervals.lengths)
        # (k, j) from k's first interval to `end`; each list is made before `end` moves on.
        self.drained_index, self.content_index = (
            list(_checked_pairs(((k, j) for k, s in enumerate(first) for j in range(s, end)), deadline, "indexing"))
            for end in (last, last + 1)
        )
        unit = self.intervals.unit
        self.granule = instance.platform.granule / unit
        self.bandwidth = instance.platform.pfs_bandwidth / unit
        # c_kj <= V_k (drained >= 0, c starts at 0): capping g_k's coefficient at V_k keeps the
        # same integer solutions (g_k >= 1 holds anything) and the coefficients within the volumes.
        self.granule_room = [min(self.granule, app.iterations * app.volume / unit) for app in instance.applications]

    def build(self, granular: bool) -> SizingModel:
        import pyomo.environ as pyo

        count = self.instance.num_applications
        model = pyo.ConcreteModel()
        phase = "building the sizing model"
        nonnegative = _checked(lambda m, k, j: (0, None), self.deadline, phase, VARIABLES_PER_CHECK)  # x, c >= 0
        # Filled by update(), which inserts as it iterates: given to initialize=, a generator is listed whole first.
        model.drained_pairs, model.content_pairs = pyo.Set(dimen=2), pyo.Set(dimen=2)
        for pairs, index in ((model.drained_pairs, self.drained_index), (model.content_pairs, self.content_index)):
            pairs.update(_checked_pairs(index, self.deadline, phase))
        # dense=False: each variable is made (and its bound rule checks the deadline) when a row first uses it;
        # a dense family is made whole, unchecked, before its first rule call.
        model.drained = pyo.Var(model.drained_pairs, within=pyo.Reals, bounds=nonnegative, dense=False)
        model.content = pyo.Var(model.content_pairs, within=pyo.Reals, bounds=nonnegative, dense=False)
        if granular:  # g_k whole granules
            model.granules = pyo.Var(range(count), within=pyo.NonNegativeIntegers)
            model.size = pyo.Objective(expr=sum(model.granules[k] for k in range(count)), sense=pyo.minimize)
        else:  # s_k = G g_k in solver units: no granule in the LP (see the module docstring)
            model.partition_size = pyo.Var(range(count), within=pyo.NonNegativeReals)
            model.size = pyo.Objective(expr=sum(model.partition_size[k] for k in range(count)), sense=pyo.minimize)
        by_interval: dict[int, list[int]] = {}
        for k, j in self.drained_index:
            by_interval.setdefault(j, []).append(k)
        model.start_empty = pyo.Constraint(range(count), rule=_checked(self._start_empty, self.deadline, phase))
        # Indexed by the Sets above: a list here would become a new Set, filled whole and unchecked.
        model.balance = pyo.Constraint(model.drained_pairs, rule=_checked(self._balance, self.deadline, phase))
        partition = self._granular_partition if granular else self._partition
        model.partition = pyo.Constraint(model.content_pairs, rule=_checked(partition, self.deadline, phase))
        model.pfs = pyo.Constraint(
            sorted(by_interval), rule=_checked(lambda m, j: self._pfs(m, j, by_interval[j]), self.deadline, phase)
        )
        self.deadline.check(phase)
        return SizingModel(model, self.intervals, self.drained_index)

    def _start_empty(self, m: Any, k: int) -> Any:
        return m.content[k, self.intervals.first_interval[k]] == 0

    def _balance(self, m: Any, k: int, j: int) -> Any:
        intervals = self.intervals
        return (
            m.content[k, j + 1]
            == m.content[k, j] + intervals.inflow[k, j] * intervals.lengths[j] / intervals.unit - m.drained[k, j]
        )

    def _partition(self, m: Any, k: int, j: int) -> Any:
        return m.content[k, j] <= m.partition_size[k]

    def _granular_partition(self, m: Any, k: int, j: int) -> Any:
        return m.content[k, j] <= self.granule_room[k] * m.granules[k]

    def _pfs(self, m: Any, j: int, owners: list[int]) -> Any:
        return sum(m.drained[k, j] for k in owners) <= self.bandwidth * self.intervals.lengths[j]


def unresolved_volume_range(instance: Instance) -> str | None:
    """Why the LP cannot resolve the instance's burst volumes (`VOLUME_RANGE`), or None when it can."""
    apps = instance.applications
    smallest = min(range(len(apps)), key=lambda k: apps[k].volume)
    largest = max(range(len(apps)), key=lambda k: apps[k].volume)
    if apps[smallest].volume >= VOLUME_RANGE * apps[largest].volume:
        return None
    return (
        f"data.applications[{smallest}].volume: the smallest burst ({apps[smallest].volume:.6g} bytes) is below "
        f"{VOLUME_RANGE:g} of the largest ({apps[largest].volume:.6g} bytes, application {largest}): the LP, "
        "in largest bursts and held by HiGHS to 1e-7, cannot resolve it"
    )


def _value(outcome: Outcome, variable: Any) -> float:
    assert outcome.value is not None  # only called on outcomes with a solution
    return float(outcome.value(variable))


def static_size_lp(instance: Instance, *, time_limit: float | None = None) -> float:
    """S*_stat in bytes: the LP with real partition sizes (the spec's price-of-static numerator).

    Raises
    ------
    InfeasibleError
        When the long-run I/O load exceeds B.
    RuntimeError
        When the LP was not solved to optimality within ``time_limit``, or
        the burst volumes span more than the LP resolves (`VOLUME_RANGE`).
    """
    from ...solvers.pyomo import solve_pyomo

    check_load(instance)
    unresolved = unresolved_volume_range(instance)
    if unresolved is not None:
        raise RuntimeError(f"static sizing LP not solved: {unresolved}")
    deadline = Deadline.after(time_limit)
    built = SizingModelBuilder(instance, deadline).build(granular=False)
    outcome = solve_pyomo(built.model, time_limit=deadline.remaining())
    if outcome.status is not Status.OPTIMAL or outcome.objective is None:
        raise RuntimeError(f"static sizing LP not solved to optimality: {outcome.message}")
    return float(outcome.objective) * built.intervals.unit


def _schedule_solution(instance: Instance, built: SizingModel, outcome: Outcome, granules: list[int]) -> Solution:
    """The static allocation read from a solved sizing model, with the given granule counts."""
    count = instance.num_applications
    bandwidth = instance.platform.pfs_bandwidth
    intervals = built.intervals
    rates = np.zeros((count, len(intervals.lengths)))
    for k, j in built.drained_index:
        rates[k, j] = max(0.0, _value(outcome, built.model.drained[k, j])) * intervals.unit / intervals.lengths[j]
    totals = rates.sum(axis=0)
    over = totals > bandwidth
    rates[:, over] *= bandwidth / totals[over]  # solver tolerance must not over-reserve the PFS
    weight = sum(app.io_rate for app in instance.applications)  # once: K sums of K weights took seconds at 10^4
    after = [bandwidth * app.io_rate / weight for app in instance.applications]  # drains after the last burst
    schedule = DrainSchedule(
        tuple(float(t) for t in intervals.times), tuple(tuple(float(x) for x in row) for row in rates)
    )
    return Solution.static(granules, after, schedule)


class StaticSizing:
    """One run of ``sizing-static-lp``: the LP, then (when rounding does not prove it) the MILP."""

    def __init__(self, instance: Instance, deadline: Deadline, seed: int) -> None:
        self.instance, self.deadline, self.seed = instance, deadline, seed
        self.granule = instance.platform.granule
        self.started = time.perf_counter()
        self.notes: list[str] = []
        self.builder = SizingModelBuilder(instance, deadline)

    def _result(self, status: Status, granules: list[int], bound: float, solution: Solution, solver: str) -> Result:
        return Result(
            status=status,
            objective=sum(granules) * self.granule,
            bound=bound,
            solution=solution,
            notes=tuple(self.notes),
            solver=solver,
            runtime_s=time.perf_counter() - self.started,
        )

    def _build(self, granular: bool) -> tuple[SizingModel, str]:
        """The model, and why it is not handed to the solver ('' when it is: see `HANDOVER_PER_BUILD`)."""
        started = now()
        built = self.builder.build(granular=granular)
        handover = HANDOVER_PER_BUILD * (now() - started)
        left = self.deadline.remaining()
        if left is not None and left < handover:
            return built, f"handing the model to HiGHS takes ~{handover:.3g} s, more than the {left:.3g} s left"
        return built, ""

    def _whole_granules(self, size: float, unit: float) -> int:
        """Granules holding ``size`` solver units, less the LP's rounding slack (see `SOLVER_SLACK`)."""
        slack = SOLVER_SLACK * min(self.granule, unit)  # bytes
        return max(0, math.ceil((size * unit - slack) / self.granule))

    def run(self) -> Result:
        from ...solvers.pyomo import solve_pyomo

        lower_dynamic = dynamic_backlog_floor(self.instance)  # S*_dyn, less its float error
        self.deadline.check("sweeping the nominal backlog")
        built, late = self._build(granular=False)
        unit = built.intervals.unit
        self.notes = [
            f"volumes scaled by {unit:.6g} bytes for the solver",
            f"{len(built.intervals.lengths)} elementary intervals",
        ]
        if late:
            return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(*self.notes, f"LP not solved: {late}"))
        outcome = solve_pyomo(built.model, time_limit=self.deadline.remaining(), seed=self.seed)
        if outcome.status is not Status.OPTIMAL or outcome.objective is None:
            return Result(status=outcome.status, notes=(*self.notes, f"LP: {outcome.message}"), solver=outcome.backend)
        count = self.instance.num_applications
        continuous = float(outcome.objective)  # S*_stat in solver units
        self.notes.append(f"LP with real partitions: S*_stat = {continuous * unit:.6g} bytes")
        rounded = [self._whole_granules(_value(outcome, built.model.partition_size[k]), unit) for k in range(count)]
        lower_granules = self._whole_granules(continuous, unit)
        rounded_solution = _schedule_solution(self.instance, built, outcome, rounded)
        rounded_bound = max(lower_granules * self.granule, lower_dynamic)
        if sum(rounded) <= lower_granules:
            self.notes.append("rounded LP partitions meet ceil(LP / G): optimal without branching")
            return self._result(Status.OPTIMAL, rounded, rounded_bound, rounded_solution, outcome.backend)
        return self._milp(rounded, rounded_solution, rounded_bound, lower_granules, lower_dynamic, outcome.backend)

    def _milp(
        self,
        rounded: list[int],
        rounded_solution: Solution,
        rounded_bound: float,
        lower_granules: int,
        lower_dynamic: float,
        lp_backend: str,
    ) -> Result:
        """The same model with integer g_k; the rounded LP answer stands when it does not improve in time."""
        from ...solvers.pyomo import solve_pyomo

        smallest = min(self.builder.granule_room)
        if smallest < MILP_SMALLEST_GRANULE:
            self.notes.append(
                f"MILP not tried: a coefficient of g_k, min(granule, volume of k), is {smallest:.3g} of the largest "
                f"burst, below {MILP_SMALLEST_GRANULE:g}: beyond what HiGHS resolves exactly; "
                "answer: LP partitions rounded up"
            )
            return self._result(Status.FEASIBLE, rounded, rounded_bound, rounded_solution, lp_backend)
        try:
            built, late = (None, "") if self.deadline.expired() else self._build(granular=True)
        except TimeLimitReached:
            built, late = None, ""
        if built is None or self.deadline.expired() or late:
            self.notes.append(
                f"MILP with integer granules not solved: {late}"
                if late
                else "time limit reached before the MILP with integer granules"
            )
            return self._result(Status.FEASIBLE, rounded, rounded_bound, rounded_solution, lp_backend)
        milp = solve_pyomo(built.model, time_limit=self.deadline.remaining(), seed=self.seed)
        self.notes.append(f"MILP with integer granules: {milp.message}")
        count = self.instance.num_applications
        granules = [round(_value(milp, built.model.granules[k])) for k in range(count)] if milp.has_solution else []
        if not granules or sum(granules) > sum(rounded):
            # the rounded LP partitions are a valid answer; ceil(LP / G) is a proven bound
            self.notes.append("answer: LP partitions rounded up (MILP did not improve them in time)")
            return self._result(Status.FEASIBLE, rounded, rounded_bound, rounded_solution, milp.backend)
        solution = _schedule_solution(self.instance, built, milp, granules)
        bound = lower_granules * self.granule
        if milp.bound is not None:
            bound = max(bound, math.ceil(milp.bound - 1e-6) * self.granule)  # sum of integers: round the dual bound up
        return self._result(milp.status, granules, max(bound, lower_dynamic), solution, milp.backend)


def lp(instance: Instance, /, *, time_limit: float, seed: int, params: SizingParams | None) -> Result:
    """Least static buffer (whole granules) with no slowdown: LP/MILP over elementary intervals (Pyomo, HiGHS).

    The LP with real partition sizes is solved first: rounding each size up
    to whole granules keeps its drain schedule feasible, and ceil(LP / G) is a
    lower bound on the granule count; when both meet, that is the optimum.
    Otherwise the MILP with integer g_k settles it.

    Parameters
    ----------
    instance
        An instance with objective ``sizing-static`` (else NOT_APPLICABLE).
    time_limit
        Seconds for the whole method, both model builds included (checked
        every `ROWS_PER_CHECK` rows).
    seed
        Passed to HiGHS.
    params
        `SizingParams` (``allow_overload``).

    Returns
    -------
    Result
        OPTIMAL when proven, else FEASIBLE with the rounded LP partitions and
        the bound max(ceil(LP / G) G, S*_dyn); TIME_LIMIT_NO_SOLUTION when the
        LP did not finish; NOT_APPLICABLE, with a note naming the field, when
        the smallest burst is below `VOLUME_RANGE` of the largest, or with the
        model's size above `intervals.MAX_MODEL_PAIRS`.
    """
    params = params or SizingParams()
    if instance.objective != "sizing-static":
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(
                f"objective is {instance.objective!r}; set data.objective to 'sizing-static' (Instance.with_objective)",
            ),
        )
    if not params.allow_overload:
        check_load(instance)
    unresolved = unresolved_volume_range(instance) or too_large(instance)
    if unresolved is not None:
        return Result(status=Status.NOT_APPLICABLE, notes=(unresolved,))
    return StaticSizing(instance, Deadline.after(time_limit), seed).run()
