"""``cpsat``, the default exact method: heuristic start, offload-set search, coarse-to-fine CP-SAT, proven bounds.

Heuristics give an incumbent; on instances with few canonical offload sets
(`model.canonical_set_count`, the exchange lemma of `model.exchange_pairs`)
the offload-set search (`offload_set_search`) tries to prove it optimal; a
coarse CP-SAT improves it, the full-resolution CP-SAT is warm-started with a
complete hint, the exchange implications and a proven lower bound (max of
compute, transfer and LP bounds) as a constraint on the makespan.  OPTIMAL is
claimed only when the search ends, the full-resolution model proves it or
the incumbent meets a proven bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...core.deadline import Deadline, TimeLimitReached
from ...core.deadline import now as deadline_clock
from ...core.params import at_least, positive, within
from ...core.result import Result, Status
from ...solvers.cpsat import solve_cpsat, version
from .. import bounds
from ..heuristics import best_heuristic_solution, channel_orders, ordered_local_search
from ..model import Instance, Solution, canonical_set_count, check_feasible, validate
from ..simulate import simulate, simulation_deadline
from .cpsat_model import build_cpsat, extract, makespan
from .search import BRANCH_DETERMINISTIC_TIME, offload_set_search

# The offload-set search runs by default on instances with at most this many canonical offload sets
# (`model.canonical_set_count`): VGG16 has 512,000 (proven: benchmarks/offload/README.md, "What the proofs
# cost"), SqueezeNet about 2^29 (the search does not end in 120 s there).
SEARCH_BY_DEFAULT_SETS = 2**24


@dataclass(frozen=True)
class CpSatParams:
    """Options of ``cpsat`` (shares of the time are of the time left when the phase starts).

    Attributes
    ----------
    workers
        CP-SAT worker threads (the offload-set search solves ``workers`` branches at a time, one worker each).
    coarse_fraction
        Share of the coarse CP-SAT phase (resolution: ~2,000 steps over the horizon).
    heuristic_fraction
        Share of the time limit for the heuristic start (at most 1 s + 0.05 s per layer).
    use_lp
        Solve the LP relaxation first (bound and rounding starts; 35 % of the time). None: on unless
        the offload-set search runs.
    relaxation_fraction
        > 0: that share goes to the instant relaxation (`bounds.instant_relaxation_search`): its proven
        bound, and its relaxed solution repaired into a schedule. Off by default.
    relaxation_probe_fraction
        Share of the time left given to each destructive probe of the instant relaxation.
    branch_fraction
        Share of the offload-set search (`offload_set_search`); if the search ends, the incumbent is
        proven optimal. None: 0.85 when the instance has at most `SEARCH_BY_DEFAULT_SETS` canonical
        offload sets, else 0 (off).
    branch_node_limit
        CP-SAT deterministic time of each branch of the search (one worker: the verdict does not depend
        on the machine's load).
    branch_cuts
        The search adds the optional rows its relaxed solutions break (`bounds.missing_rows`).
    exchange
        Use the exchange lemma (`model.exchange_pairs`) in every model; false gives the models without it.
    deterministic_time
        CP-SAT ``max_deterministic_time`` of each of the coarse and full-resolution solves, on top of the
        wall-clock limit (None: only the wall clock). Tests that assert a proof set it, with a generous
        wall-clock safety stop, so that a loaded machine cannot turn OPTIMAL into FEASIBLE.
    log
        Print CP-SAT's search logs.
    """

    workers: int = 2
    coarse_fraction: float = 0.3
    heuristic_fraction: float = 0.15
    use_lp: bool | None = None
    relaxation_fraction: float = 0.0
    relaxation_probe_fraction: float = 0.75
    branch_fraction: float | None = None
    branch_node_limit: float = BRANCH_DETERMINISTIC_TIME
    branch_cuts: bool = True
    exchange: bool = True
    deterministic_time: float | None = None
    log: bool = False

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)
        for name in (
            "coarse_fraction",
            "heuristic_fraction",
            "relaxation_fraction",
            "relaxation_probe_fraction",
            "branch_fraction",
        ):
            within(name, getattr(self, name), 0.0, 1.0)
        positive("branch_node_limit", self.branch_node_limit)
        positive("deterministic_time", self.deterministic_time)


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """Heuristic start, offload-set search, coarse-to-fine CP-SAT, proven bounds (best exact method).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for every phase together (one `Deadline`): builders stop when it passes, each phase
        gets a share of what is left, and a phase that runs out leaves the incumbent.
    seed
        Seed of the heuristics and of CP-SAT.
    params
        `CpSatParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when the search ended, the full-resolution model proved it, or the incumbent meets a
        proven bound; else FEASIBLE with the best proven bound.

    Notes
    -----
    With the exchange lemma the search proves VGG16 / PCIe 3 optimal at every shipped budget; what the
    proofs cost, in deterministic units and CPU seconds: benchmarks/offload/README.md.
    """
    params = params or CpSatParams()
    check_feasible(instance)
    portfolio = _Portfolio(instance, time_limit, seed, params)
    # Every simulation of every phase stops at the method's deadline (a phase's own share is soft).
    with simulation_deadline(portfolio.deadline):
        return portfolio.run()


@dataclass
class _Portfolio:
    """The phases of `cpsat` around one incumbent and one proven bound."""

    instance: Instance
    limit: float
    seed: int
    params: CpSatParams
    notes: list[str] = field(default_factory=list)
    backend: str | None = None
    best: Solution = field(init=False)  # the incumbent, set by the heuristic phase (the first that times)

    def __post_init__(self) -> None:
        self.deadline = Deadline.after(self.limit)
        self.lower = bounds.best(self.instance)
        branch_fraction = self.params.branch_fraction
        if branch_fraction is None:
            branch_fraction = 0.85 if canonical_set_count(self.instance) <= SEARCH_BY_DEFAULT_SETS else 0.0
        self.branch_fraction = branch_fraction
        self.use_lp = branch_fraction == 0 if self.params.use_lp is None else self.params.use_lp
        self.best_value = 0

    def remaining(self) -> float:
        left = self.deadline.remaining()
        return math.inf if left is None else left

    def improve(self, candidate: Solution | None, *, ties: bool = False) -> None:
        """Keep ``candidate`` if it is shorter (or, with ``ties``, as short)."""
        if candidate is None:
            return
        value = makespan(self.instance, candidate)
        if value < self.best_value or (ties and value == self.best_value):
            self.best, self.best_value = candidate, value

    def run(self) -> Result:
        fractions = self.lp_phase() if self.use_lp and not self.deadline.expired() else None
        self.heuristic_phase(fractions)
        if self.params.relaxation_fraction > 0 and self.best_value > self.lower and self.remaining() > 1.0:
            self.relaxation_phase()
        if self.branch_fraction > 0 and self.best_value > self.lower and self.remaining() > 1.0:
            self.search_phase()
        if self.best_value > self.lower and self.remaining() > 1.0:
            self.coarse_phase()
        status = self.full_phase()
        if self.best_value <= self.lower:
            # Equal when the bounds are right; a bound above a validated makespan is a bug in a bound,
            # so it is returned as is and the registry turns the result into ERROR instead of hiding it.
            status = Status.OPTIMAL
        return Result(
            status=status,
            objective=self.best_value,
            bound=self.lower,
            solution=self.best,
            notes=tuple(self.notes),
            solver=self.backend,
        )

    def lp_phase(self) -> dict[int, float] | None:
        """The LP relaxation: a bound, and fractions whose roundings are starting sets."""
        skipped = bounds.build_cannot_fit(self.instance, 0.35 * self.limit)
        if skipped:  # a build stopped by its share gives nothing: the heuristics get the time
            self.notes.append(f"LP relaxation {skipped} (its share: {0.35 * self.limit:.3g} s)")
            return None
        try:
            value, fractions, lp_outcome = bounds.lp_relaxation(
                self.instance, time_limit=0.35 * self.limit, deadline=self.deadline
            )
        except TimeLimitReached as reached:
            self.notes.append(f"LP relaxation: {reached} (its share: {0.35 * self.limit:.3g} s)")
            return None
        if value is not None:
            self.lower = max(self.lower, math.ceil(value * (1 - 1e-9) - 1e-6))
            self.notes.append(f"LP relaxation bound {value:.1f}")
        else:
            self.notes.append(
                f"LP relaxation not solved to optimality in its share ({lp_outcome.message}): no LP bound"
            )
        return fractions

    def heuristic_phase(self, fractions: dict[int, float] | None) -> None:
        # Iterated local search is anytime; beyond ~1 s + 0.05 s per layer it rarely pays on these chains.
        # best_heuristic_solution spends about 1.5 times its time (the channel orders come on top).
        heuristic_time = min(
            self.params.heuristic_fraction * self.limit, 1.0 + 0.05 * self.instance.n_layers, self.remaining() / 1.5
        )
        self.best = best_heuristic_solution(
            self.instance, time_limit=max(0.0, heuristic_time), seed=self.seed, fractions=fractions
        )
        self.best_value = makespan(self.instance, self.best)

    def relaxation_phase(self) -> None:
        self.backend = version()
        try:
            relaxed_bound, relaxed = _relax_and_repair(
                self.instance,
                self.best,
                self.params.relaxation_fraction * self.remaining(),
                self.seed,
                self.params,
                self.deadline,
            )
        except TimeLimitReached as reached:
            self.notes.append(f"instant relaxation: {reached}")
            return
        self.lower = max(self.lower, relaxed_bound)
        self.improve(relaxed)
        repaired = None if relaxed is None else makespan(self.instance, relaxed)
        self.notes.append(f"instant relaxation: bound {relaxed_bound}, repaired schedule {repaired}")

    def search_phase(self) -> None:
        self.backend = version()
        params = self.params
        try:
            search = offload_set_search(
                self.instance,
                upper=self.best_value,
                time_limit=self.branch_fraction * self.remaining(),
                node_limit=params.branch_node_limit,
                seed=self.seed,
                workers=params.workers,
                lower=self.lower,
                cuts=params.branch_cuts,
                exchange=params.exchange,
            )
        except TimeLimitReached as reached:  # a simulation of the search, at the method's deadline
            self.notes.append(f"offload-set search: {reached}")
            return
        if search.schedule is not None:
            self.best, self.best_value = search.schedule, makespan(self.instance, search.schedule)
        self.lower = max(self.lower, search.bound)
        self.notes.append(
            f"offload-set search: {'ended' if search.proven else 'stopped by the time limit'} after "
            f"{search.nodes} branches ({search.pruned} ruled out, {100 * search.share_ruled_out:.3f} % of "
            f"the offload sets; {params.branch_node_limit:g} deterministic units per branch), bound {search.bound}; "
            f"{search.deterministic_time:.1f} deterministic units, {search.cpu_seconds:.1f} CPU s"
        )

    def coarse_phase(self) -> None:
        """CP-SAT at a resolution that gives the horizon ~2,000 steps, hinted with the incumbent."""
        instance = self.instance
        scale = max(1, self.best_value // 2000)
        try:
            coarse_hint = simulate(instance, self.best.offloaded, scale=scale) if scale > 1 else None
        except TimeLimitReached as reached:
            self.notes.append(f"coarse CP-SAT at resolution {scale}: {reached} (timing its hint)")
            return
        share = Deadline.after(self.params.coarse_fraction * self.remaining())
        if coarse_hint is None:
            return
        try:
            model, handles = build_cpsat(
                instance,
                horizon=makespan(instance, coarse_hint) + scale,
                scale=scale,
                hint=coarse_hint,
                exchange=self.params.exchange,
                deadline=share,
            )
        except TimeLimitReached as reached:
            self.notes.append(f"coarse CP-SAT at resolution {scale}: {reached} (its share of the time)")
            return
        outcome = solve_cpsat(
            model,
            time_limit=share.remaining(),
            deterministic_time=self.params.deterministic_time,
            workers=self.params.workers,
            seed=self.seed,
            log=self.params.log,
        )
        self.backend = outcome.backend
        if outcome.has_solution:
            candidate = extract(instance, handles, outcome.value)
            if not validate(instance, candidate):
                self.improve(candidate)
        self.notes.append(f"coarse CP-SAT at resolution {scale}: {outcome.message}")

    def full_phase(self) -> Status:
        """Full-resolution CP-SAT, hinted with the incumbent, with the proven bound as a row."""
        if not (self.best_value > self.lower and self.remaining() > 0.5):
            return Status.FEASIBLE
        try:
            model, handles = build_cpsat(
                self.instance,
                horizon=self.best_value,
                scale=1,
                hint=self.best,
                lower=self.lower,
                exchange=self.params.exchange,
                deadline=self.deadline,
            )
        except TimeLimitReached as reached:
            self.notes.append(f"full-resolution CP-SAT: {reached}; the incumbent is returned")
            return Status.FEASIBLE
        outcome = solve_cpsat(
            model,
            time_limit=self.remaining(),
            deterministic_time=self.params.deterministic_time,
            workers=self.params.workers,
            seed=self.seed,
            log=self.params.log,
        )
        self.backend = outcome.backend
        status = Status.FEASIBLE
        if outcome.has_solution:
            self.improve(extract(self.instance, handles, outcome.value), ties=True)
            if outcome.status is Status.OPTIMAL:
                status = Status.OPTIMAL
        if outcome.bound is not None and math.isfinite(outcome.bound):
            self.lower = max(self.lower, math.ceil(outcome.bound - 1e-6))
        used = getattr(outcome, "deterministic_time", 0.0)
        self.notes.append(f"full-resolution CP-SAT: {outcome.message} ({used:.3f} deterministic units)")
        return status


def _relax_and_repair(
    instance: Instance, incumbent: Solution, time_limit: float, seed: int, params: CpSatParams, deadline: Deadline
) -> tuple[float, Solution | None]:
    """(proven bound of the instant relaxation, its solution repaired into a valid schedule or None)."""
    upper = makespan(instance, incumbent)
    bound, outcome, handles = bounds.instant_relaxation_search(
        instance,
        lower=int(bounds.best(instance)),
        upper=upper,
        time_limit=max(0.5, time_limit),
        seed=seed,
        workers=params.workers,
        hint=incumbent,
        probe_fraction=params.relaxation_probe_fraction,
        exchange=params.exchange,
        deadline=deadline,
    )
    if not outcome.has_solution:
        return bound, None
    relaxed = bounds.relaxed_solution(instance, outcome, handles)
    # The relaxation checks memory at 2L instants only: keep its channel orders, re-time them.
    out_order, in_order = channel_orders(relaxed)
    repaired = simulate(instance, relaxed.offloaded, out_order=out_order, in_order=in_order)
    if repaired is None:
        return bound, None
    polish = 1.0 + 0.05 * instance.n_layers
    left = deadline.remaining()
    if left is not None:
        polish = min(polish, left)
    repaired = ordered_local_search(instance, repaired, deadline_clock() + polish, seed)
    return bound, (repaired if not validate(instance, repaired) else None)
