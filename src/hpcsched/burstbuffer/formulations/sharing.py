"""Fair sharing: bisection on the max dilation over a multiple-choice knapsack (``sharing-dp``,
``sharing-milp``, ``sharing-brute-force``).

Under static allocation each application's dilation D_k(g, d) depends only
on its own (g, d) and is non-increasing in both. For a target D let
d_k(g, D) be the least drain with D_k(g, d) <= D. D is achievable iff the
multiple-choice knapsack min sum_k d_k(g_k, D) s.t. sum_k g_k <= N has
value <= B. Bisection on D: each step brackets d_k(g, D) for every (k, g)
(`simulate.drain_table_brackets`); the knapsack on upper brackets <= B
proves D feasible (and gives a solution); on lower brackets > B proves D
infeasible (a lower bound). The bisection stops when
upper - lower <= epsilon * upper, or when the midpoint equals an end;
OPTIMAL then means "optimal within a relative epsilon", below the
registry's 1e-6 tolerance, with the proven lower bound as ``bound``.

Notes
-----
Why each step's verdict is a proof, and how the MILP's dual bound is made
safe against HiGHS' absolute gap: ``docs/burstbuffer.md``, section
"Why the sharing bisection is exact".
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.params import at_least
from ...core.result import Result, Status
from ..bounds import single_application_bound
from ..heuristics import drain_rates, greedy_granules
from ..model import Instance, Solution
from ..simulate import drain_table_brackets
from .knapsack import KnapsackKind, KnapsackTooLarge, solve_knapsack

#: Least relative precision of the sharing bisection: the gap between neighbouring doubles
#: (2.2e-16 relative) is far below it, so the bisection always ends.
MIN_EPSILON = 1e-12
#: Largest drain table K x (N + 1) of the sharing bisection (about 80 MB per table of doubles).
MAX_TABLE_CELLS = 10**7


@dataclass(frozen=True)
class SharingParams:
    """Options of the sharing bisection.

    Attributes
    ----------
    epsilon
        Relative precision at which the bisection stops (at least `MIN_EPSILON`).
    """

    epsilon: float = 1e-7

    def __post_init__(self) -> None:
        at_least("epsilon", self.epsilon, MIN_EPSILON)


def drain_tables(
    instance: Instance,
    target: float,
    low: np.ndarray | None = None,
    high: np.ndarray | None = None,
    deadline: Deadline | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) brackets of d_k(g, target) for k in apps, g in 0..N (shape K x (N+1))."""
    granules = instance.platform.granules
    sizes = np.arange(granules + 1) * instance.platform.granule
    return drain_table_brackets(instance.applications, sizes, target, low=low, high=high, deadline=deadline)


def _share_spare_bandwidth(instance: Instance, drains: list[float]) -> list[float]:
    """Give B - sum d to the applications in proportion to I/O rates (a larger drain never hurts)."""
    spare = instance.platform.pfs_bandwidth - sum(drains)
    if spare <= 0:
        return drains
    weights = [app.io_rate for app in instance.applications]
    total = sum(weights)  # summed once: inside the comprehension it made this O(K^2) (80 s at 10^5)
    return [d + spare * w / total * (1 - 1e-12) for d, w in zip(drains, weights, strict=True)]


@dataclass(frozen=True)
class Step:
    """One bisection step: the verdict on the target (None: undecided) and the tables it computed."""

    verdict: bool | None
    low: np.ndarray
    high: np.ndarray
    granules: list[int] = field(default_factory=list)
    drains: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Incumbent:
    """An allocation known to achieve ``dilation``."""

    dilation: float
    granules: list[int]
    drains: list[float]


class SharingBisection:
    """One run of the bisection (see the module docstring); `run` returns the Result."""

    def __init__(
        self, instance: Instance, knapsack: KnapsackKind, *, deadline: Deadline, seed: int, epsilon: float
    ) -> None:
        self.instance, self.knapsack, self.deadline, self.seed, self.epsilon = (
            instance,
            knapsack,
            deadline,
            seed,
            epsilon,
        )
        self.capacity = instance.platform.granules
        self.bandwidth = instance.platform.pfs_bandwidth
        self.proven_lower = single_application_bound(instance)
        self.search_lower = self.proven_lower
        self.incumbent: Incumbent | None = None
        self.backend: str | None = None
        self.ambiguous = 0
        # low_at_upper misses the incumbent's dilation hence every smaller target; high_at_lower meets
        # `search_lower` hence every larger target: together they bracket d_k(g, D) for D in between.
        self.low_at_upper: np.ndarray | None = None
        self.high_at_lower: np.ndarray | None = None
        self.timed_out = self.floats_met = False
        self.too_large = ""  # why the knapsack MILP was not built (the bisection stops there)
        self.started = time.perf_counter()

    def _remaining(self) -> float | None:
        # a MILP knapsack gets what is left of the limit; an unproven one decides nothing
        return self.deadline.remaining(floor=0.01)

    def _step(self, target: float) -> Step:
        """Is ``target`` achievable? A proof either way, or undecided at float precision."""
        low, high = drain_tables(self.instance, target, self.low_at_upper, self.high_at_lower, self.deadline)
        found = solve_knapsack(self.knapsack, high, self.capacity, self._remaining(), self.seed, self.deadline)
        self.backend = found.backend
        if found.value <= self.bandwidth:
            return Step(True, low, high, found.granules, [float(high[k, g]) for k, g in enumerate(found.granules)])
        # infeasible only on a proof: the least cost (not the cost of a vector found) exceeds B
        proof = solve_knapsack(self.knapsack, low, self.capacity, self._remaining(), self.seed, self.deadline)
        self.backend = proof.backend
        if proof.lower > self.bandwidth * (1 + 1e-12):
            return Step(False, low, high)
        self.ambiguous += 1
        return Step(None, low, high)

    def _first_incumbent(self) -> None:
        """The bound itself if achievable, else the greedy heuristic, else doubling targets."""
        try:
            step = self._step(self.proven_lower)
            if step.verdict:
                self.incumbent = Incumbent(self.proven_lower, step.granules, step.drains)
            else:
                self.high_at_lower = step.high
        except TimeLimitReached:
            pass  # the greedy incumbent below still gives a FEASIBLE answer
        except KnapsackTooLarge as large:
            self.too_large = str(large)  # likewise; the bisection below does not start
        if self.incumbent is None:
            # Warm start: the greedy heuristic's allocation proves its max dilation achievable.
            drains = drain_rates(self.instance, "proportional")
            granules, worst = greedy_granules(self.instance, drains)
            if math.isfinite(worst):
                self.incumbent = Incumbent(worst * (1 + 1e-12), granules, drains)
        probe = self.proven_lower
        while self.incumbent is None:
            self.deadline.check("looking for a first achievable dilation")
            probe *= 2
            step = self._step(probe)
            self._record(probe, step)
            if probe > 1e12:
                raise InfeasibleError("no finite max dilation found (an application cannot finish)")

    def _record(self, target: float, step: Step) -> None:
        if step.verdict:
            self.incumbent = Incumbent(target, step.granules, step.drains)
            self.low_at_upper = step.low
        else:
            self.search_lower, self.high_at_lower = target, step.high
            if step.verdict is False:
                self.proven_lower = target

    def _bisect(self) -> None:
        assert self.incumbent is not None
        while self.incumbent.dilation - self.search_lower > self.epsilon * self.incumbent.dilation:
            if self.too_large:
                return
            if self.deadline.expired():
                self.timed_out = True
                return
            upper = self.incumbent.dilation
            middle = 0.5 * (self.search_lower + upper)
            if middle <= self.search_lower or middle >= upper:
                self.floats_met = True  # neighbouring doubles: no target left between the two ends
                return
            try:
                step = self._step(middle)
            except TimeLimitReached:
                self.timed_out = True
                return
            except KnapsackTooLarge as large:
                self.too_large = str(large)
                return
            self._record(middle, step)

    def run(self) -> Result:
        self._first_incumbent()
        self._bisect()
        assert self.incumbent is not None
        upper = self.incumbent.dilation
        solution = Solution.static(
            self.incumbent.granules, _share_spare_bandwidth(self.instance, self.incumbent.drains)
        )
        closed = upper - self.proven_lower <= self.epsilon * upper
        status = Status.OPTIMAL if closed and not (self.timed_out or self.too_large) else Status.FEASIBLE
        notes = [
            f"bisection on D to relative {self.epsilon:g}: D in [{self.proven_lower:.10g}, {upper:.10g}]",
            f"knapsack: {self.knapsack}",
        ]
        if self.ambiguous:
            notes.append(f"{self.ambiguous} bisection steps undecided at float precision (not counted as proofs)")
        if self.timed_out:
            notes.append("time limit reached during the bisection")
        if self.too_large:
            notes.append(f"bisection stopped: {self.too_large}")
        if self.floats_met:
            notes.append("bisection ends met at float precision")
        return Result(
            status=status,
            objective=upper,
            bound=self.proven_lower,
            solution=solution,
            notes=tuple(notes),
            solver=self.backend,
            runtime_s=time.perf_counter() - self.started,
        )


def _refusal(instance: Instance) -> Result | None:
    if instance.objective != "sharing":
        return Result(status=Status.NOT_APPLICABLE, notes=(f"objective is {instance.objective!r}, not 'sharing'",))
    cells = instance.num_applications * (instance.platform.granules + 1)
    if cells > MAX_TABLE_CELLS:
        # every bisection step tabulates d_k(g, D) for all k and g: K (N + 1) single-application bisections
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"K (N + 1) = {cells} drain-table cells > {MAX_TABLE_CELLS}: use a coarser granule",),
        )
    return None


def sharing_bisection(
    instance: Instance, knapsack: KnapsackKind, *, time_limit: float | None, seed: int, params: SharingParams | None
) -> Result:
    """Bisection on the max dilation over the multiple-choice knapsack (see the module docstring)."""
    epsilon = (params or SharingParams()).epsilon
    refused = _refusal(instance)
    if refused:
        return refused
    bisection = SharingBisection(instance, knapsack, deadline=Deadline.after(time_limit), seed=seed, epsilon=epsilon)
    try:
        return bisection.run()
    except KnapsackTooLarge as large:  # no incumbent at all (the greedy allocation starves an application)
        return Result(status=Status.NOT_APPLICABLE, notes=(str(large),))


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: SharingParams | None) -> Result:
    """Fair sharing: bisection on D over a multiple-choice knapsack MILP (PuLP, HiGHS); optimal within epsilon.

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit
        Seconds for the whole bisection (checked inside every drain table).
    seed
        Passed to the knapsack solver.
    params
        `SharingParams` (``epsilon``).

    Returns
    -------
    Result
        OPTIMAL within a relative epsilon with the proven lower bound, or
        FEASIBLE when the time limit stopped the bisection.
    """
    return sharing_bisection(instance, "milp", time_limit=time_limit, seed=seed, params=params)


def dp(instance: Instance, /, *, time_limit: float, seed: int, params: SharingParams | None) -> Result:
    """Fair sharing: bisection on D over a knapsack solved by dynamic programming over granules (O(K N^2)).

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit
        Seconds for the whole bisection (checked inside every drain table).
    seed
        Passed to the knapsack solver.
    params
        `SharingParams` (``epsilon``).

    Returns
    -------
    Result
        OPTIMAL within a relative epsilon with the proven lower bound, or
        FEASIBLE when the time limit stopped the bisection.
    """
    return sharing_bisection(instance, "dp", time_limit=time_limit, seed=seed, params=params)


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: SharingParams | None) -> Result:
    """Fair sharing: bisection on D, every granule vector enumerated (K <= 4, N <= 8).

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit
        Seconds for the whole bisection (checked inside every drain table).
    seed
        Passed to the knapsack solver.
    params
        `SharingParams` (``epsilon``).

    Returns
    -------
    Result
        OPTIMAL within a relative epsilon with the proven lower bound, or
        FEASIBLE when the time limit stopped the bisection.
    """
    if instance.num_applications > 4 or instance.platform.granules > 8:
        return Result(
            status=Status.NOT_APPLICABLE, notes=("brute force is for K <= 4 applications and N <= 8 granules",)
        )
    return sharing_bisection(instance, "enumerate", time_limit=time_limit, seed=seed, params=params)
