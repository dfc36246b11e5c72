"""The offload-set search: depth-first over offload sets, each branch refuted by the instant relaxation.

Notes
-----
Why a refuted branch holds no schedule below the cap, why the exchange
lemma lets the search skip non-canonical sets, and why the batches keep the
search deterministic: docs/offload.md, "The offload-set search".
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

from ...core.deadline import now as deadline_clock
from ...core.errors import OptionError
from ...core.result import Status
from .. import bounds
from ..heuristics import channel_orders
from ..model import Instance, Solution, exchange_pairs, validate
from ..simulate import simulate
from .cpsat_model import Timing, exact_timing, makespan

# Deterministic time (CP-SAT work units) of one branch of the offload-set search, the default of
# ``cpsat``'s ``branch_node_limit``: chosen so that every VGG16 budget is proven
# (benchmarks/offload/README.md, "What the proofs cost").
BRANCH_DETERMINISTIC_TIME = 1.0

_LOGGER = logging.getLogger("hpcsched.offload")


@dataclass(frozen=True)
class OffloadSetSearch:
    """What `offload_set_search` established.

    Attributes
    ----------
    bound
        Proven lower bound on the makespan (``cap + 1`` when ``proven``).
    proven
        Every offload set was ruled out: no schedule has makespan <= ``cap``.
    cap
        Makespan tested last: ``upper`` (or the makespan of the best
        schedule found during the search) minus one.
    schedule
        The best schedule the search found below the incumbent, or None.
    nodes, pruned, open
        Branches solved, ruled out (INFEASIBLE relaxation) and left unsolved.
    share_ruled_out
        Share of the 2^|offloadable| offload sets ruled out (1.0 when proven).
    deterministic_time
        Deterministic time (CP-SAT's work units) of all the branch solves:
        what the search cost, whatever the machine's load.
    cpu_seconds
        CPU seconds of the process during the search (all threads).
    """

    bound: float
    proven: bool
    cap: int
    schedule: Solution | None
    nodes: int
    pruned: int
    open: int
    share_ruled_out: float
    deterministic_time: float = 0.0
    cpu_seconds: float = 0.0


class Branch(NamedTuple):
    """A branch: its fixed decisions, the bound its parent proved, its deterministic limit, and whether it
    is the exact timing of a fully fixed set."""

    decisions: dict[int, bool]
    parent_bound: float
    limit: float
    timing: bool


@dataclass(frozen=True)
class RelaxationRows:
    """The optional rows of the instant relaxation the search has added (`bounds.missing_rows`)."""

    start: bool = False
    prefetch: tuple[tuple[int, int], ...] = ()


def offload_set_search(
    instance: Instance,
    *,
    upper: int,
    time_limit: float,
    node_limit: float = BRANCH_DETERMINISTIC_TIME,
    seed: int = 0,
    workers: int = 2,
    lower: float = 0,
    cuts: bool = False,
    branch_workers: int = 1,
    exchange: bool = True,
) -> OffloadSetSearch:
    """Depth-first search over offload sets with the instant relaxation; proves ``upper`` optimal if it ends.

    Parameters
    ----------
    upper
        The makespan of a schedule (the incumbent).
    time_limit
        Wall-clock seconds: only the overall stop (a search it interrupts proves nothing about the open
        branches and returns the bound of their parents).
    node_limit
        CP-SAT deterministic time of each branch solve (the verdict does not depend on the machine's load).
    workers, branch_workers
        Branches are solved ``max(1, workers // branch_workers)`` at a time, each with ``branch_workers``
        CP-SAT workers (one by default: with more, a branch's verdict is no longer reproducible).
    lower
        A proven lower bound.
    cuts
        Add the optional rows that relaxed solutions break (`bounds.missing_rows`) to every later branch.
    exchange
        Search only the canonical offload sets of the exchange lemma (`model.exchange_pairs`).

    Returns
    -------
    OffloadSetSearch
        The proven bound, whether the search ended, and the best schedule it found.

    Notes
    -----
    The argument, branch by branch: docs/offload.md, "The offload-set search".
    """
    if branch_workers < 1:
        raise OptionError("branch_workers", f"must be >= 1, got {branch_workers!r}")
    search = _Search(instance, upper, node_limit, seed, lower, cuts, branch_workers, exchange)
    return search.run(time_limit, max(1, int(workers) // branch_workers))


class _Search:
    """The state of one `offload_set_search`: the stack of branches, the cap, and the counters."""

    def __init__(
        self,
        instance: Instance,
        upper: int,
        node_limit: float,
        seed: int,
        lower: float,
        cuts: bool,
        branch_workers: int,
        exchange: bool,
    ):
        self.instance, self.node_limit, self.seed = instance, node_limit, seed
        self.cuts, self.branch_workers, self.exchange = cuts, branch_workers, exchange
        pairs = exchange_pairs(instance) if exchange else []
        self.implied = {True: {j: i for i, j in pairs}, False: {i: j for i, j in pairs}}  # value -> a -> next
        self.order = sorted(instance.offloadable, key=lambda i: (-instance.activation[i], i))
        self.cap = int(upper) - 1
        self.floor = max(int(lower), int(bounds.best(instance)))
        self.best_found: Solution | None = None
        self.stack: list[Branch] = [Branch({}, self.floor, node_limit, False)]
        self.nodes = self.pruned = 0
        self.ruled_out = 0.0
        self.deterministic = 0.0
        self.rows = RelaxationRows()
        self.stopped = False

    def run(self, time_limit: float, at_once: int) -> OffloadSetSearch:
        started = reported = time.perf_counter()
        cpu_started = time.process_time()
        self.ends_at = deadline_clock() + time_limit
        with ThreadPoolExecutor(max_workers=at_once) as pool:
            while self.stack and not self.stopped and self.left() > 0:
                # One batch at a time, its results taken in submission order: the search does not depend on
                # which solve returns first (each ends by its deterministic limit or by the overall limit).
                batch = [self.stack.pop() for _ in range(min(at_once, len(self.stack)))]
                futures = [pool.submit(self.solve, branch, self.cap, self.rows) for branch in batch]
                solved_cap = self.cap
                for branch, future in zip(batch, futures, strict=True):
                    if self.stopped:
                        future.result()
                        self.stack.append(branch)
                        continue
                    self.nodes += 1
                    if branch.timing:
                        self.take_timing(branch, future.result())
                    else:
                        outcome, handles = future.result()
                        self.take_relaxation(branch, outcome, handles, solved_cap)
                if time.perf_counter() - reported >= 60:
                    reported = time.perf_counter()
                    _LOGGER.info(
                        "offload-set search at %.0f s: %d branches, %d ruled out (%.3f %% of the offload "
                        "sets), %d open, %.1f deterministic units",
                        reported - started,
                        self.nodes,
                        self.pruned,
                        100 * self.ruled_out,
                        len(self.stack),
                        self.deterministic,
                    )
        proven = not self.stack
        cap = self.cap
        bound = cap + 1 if proven else max(self.floor, min([cap + 1] + [b.parent_bound for b in self.stack]))
        return OffloadSetSearch(
            bound=bound,
            proven=proven,
            cap=cap,
            schedule=self.best_found,
            nodes=self.nodes,
            pruned=self.pruned,
            open=len(self.stack),
            share_ruled_out=1.0 if proven else self.ruled_out,
            deterministic_time=self.deterministic,
            cpu_seconds=time.process_time() - cpu_started,
        )

    def left(self) -> float:
        return self.ends_at - deadline_clock()

    def solve(self, branch: Branch, cap: int, rows: RelaxationRows) -> Any:
        """The branch's solve: the exact timing of a fixed set, or the relaxation with its decisions fixed."""
        seconds = max(0.0, self.left())  # a safety net only: the verdict comes from the deterministic limit
        if branch.timing:
            chosen = {i for i, offloaded in branch.decisions.items() if offloaded}
            return exact_timing(
                self.instance, chosen, time_limit=seconds, deterministic_time=branch.limit, seed=self.seed
            )
        return bounds.instant_relaxation(
            self.instance,
            upper=cap,
            time_limit=seconds,
            deterministic_time=branch.limit,
            seed=self.seed,
            workers=self.branch_workers,
            fixed_offload=branch.decisions,
            start_rows=rows.start,
            prefetch_rows=list(rows.prefetch),
            exchange=self.exchange,
        )

    def rule_out(self, decisions: dict[int, bool]) -> None:
        self.pruned += 1
        self.ruled_out += 2.0 ** -len(decisions)

    def adopt(self, candidate: Solution | None) -> None:
        """A valid schedule below the cap becomes the incumbent and lowers the cap."""
        instance = self.instance
        if candidate is not None and makespan(instance, candidate) <= self.cap and not validate(instance, candidate):
            self.best_found, self.cap = candidate, makespan(instance, candidate) - 1
            _LOGGER.info("offload-set search: schedule of makespan %d found", self.cap + 1)

    def take_timing(self, branch: Branch, timing: Timing) -> None:
        self.deterministic += timing.deterministic_time
        self.adopt(timing.schedule)
        if timing.proven:  # the set's optimum is known (or it has no schedule): nothing of it is below cap + 1
            self.rule_out(branch.decisions)
        else:
            self.stack.append(branch._replace(limit=2 * branch.limit))

    def take_relaxation(self, branch: Branch, outcome: Any, handles: Any, solved_cap: int) -> None:
        self.deterministic += getattr(outcome, "deterministic_time", 0.0)
        if outcome.status is Status.INFEASIBLE:
            self.rule_out(branch.decisions)
            return
        if outcome.status is Status.ERROR:
            # Not a refutation: keep the branch open, with the bound its parent proved, and stop.
            self.stack.append(branch)
            _LOGGER.warning("offload-set search stopped: %s", outcome.message)
            self.stopped = True
            return
        node_bound = max(branch.parent_bound, bounds.relaxation_outcome_bound(self.instance, outcome, solved_cap))
        if outcome.has_solution and self.solve_again(branch, outcome, handles):
            return
        free = [i for i in self.order if i not in branch.decisions]
        if not free:
            # The relaxation of a fixed offload set can stay below its optimum: time the set exactly.
            # exact_timing caps the makespan at h >= the offload-all schedule's: INFEASIBLE rules the
            # set out below h only.  That suffices: while cap >= h the offload-all branch cannot be
            # ruled out (its schedule solves the relaxation), and its leaf's timing lowers the cap.
            self.stack.append(Branch(branch.decisions, node_bound, branch.limit, True))
            return
        self.split(branch.decisions, free[0], node_bound)

    def solve_again(self, branch: Branch, outcome: Any, handles: Any) -> bool:
        """Adopt what the relaxed solution gives; True when the branch goes back on the stack."""
        relaxed = bounds.relaxed_solution(self.instance, outcome, handles)
        out_order, in_order = channel_orders(relaxed)
        self.adopt(relaxed)
        self.adopt(simulate(self.instance, relaxed.offloaded, out_order=out_order, in_order=in_order))
        if round(outcome.objective) > self.cap:
            # The cap dropped below this branch's relaxed optimum only because of a schedule found
            # since: solve it again under the new cap.
            self.stack.append(branch)
            return True
        if self.cuts:
            wants_start, broken = bounds.missing_rows(self.instance, relaxed)
            new_rows = [row for row in broken if row not in self.rows.prefetch]
            if (wants_start and not self.rows.start) or new_rows:
                self.rows = RelaxationRows(self.rows.start or wants_start, (*self.rows.prefetch, *new_rows))
                _LOGGER.info(
                    "offload-set search: rows added (start rows %s, prefetch rows %s)",
                    self.rows.start,
                    list(self.rows.prefetch),
                )
                self.stack.append(branch)
                return True
        return False

    def split(self, decisions: dict[int, bool], activation: int, node_bound: float) -> None:
        """The two children of a branch on ``activation`` ("offload" is popped first)."""
        for offloaded in (False, True):
            child = self.child(decisions, activation, offloaded)
            share = 2.0 ** -(len(decisions) + 1)
            if child is None:  # no canonical set in this child
                self.ruled_out += share
                continue
            self.ruled_out += share - 2.0 ** -len(child)  # its sets that break an implication
            self.stack.append(Branch(child, node_bound, self.node_limit, False))

    def child(self, fixed: dict[int, bool], activation: int, offloaded: bool) -> dict[int, bool] | None:
        """``fixed`` plus that decision, closed under the exchange implications; None if they contradict."""
        closed = dict(fixed)
        current: int | None = activation
        while current is not None:
            if current in closed:
                if closed[current] != offloaded:
                    return None
                break  # ``fixed`` is closed: the rest of the chain is already decided
            closed[current] = offloaded
            current = self.implied[offloaded].get(current)
        return closed
