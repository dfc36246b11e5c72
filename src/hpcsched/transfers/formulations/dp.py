"""`dp`: a dynamic program over the simulator's placement sequences, with dominance and bounding (exact).

Every optimal makespan is reached by the earliest-start schedule of some
order pair (docs/transfers.md, "Why brute force over order pairs is exact").
The simulator places one operation at a time; this method grows all those
placement sequences at once, layer by layer (one operation more per layer),
and keeps a sequence only while its completion bound is below the best known
makespan and no other sequence of its bucket dominates it (`labels`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution, require_fits
from .common import incumbent, proven_by_bound, warm_start_seconds
from .labels import Label, LabelKey, Placements, insert, schedule_of

DP_MAX_N = 25  # the label sets grow roughly like 2^n: n = 15 takes minutes

Layer = dict[LabelKey, list[Label]]


@dataclass(frozen=True)
class DpParams:
    """Options of `dp`.

    Attributes
    ----------
    warm_start
        Search below the warm-start incumbent (else below Σ (c + p) + 1).
    warm_start_seconds
        Iterated-greedy time of the warm start (None: 20 % of the time limit, at most 10 s).
    max_n
        Largest n searched (the label sets grow like 2^n); larger is NOT_APPLICABLE.
    max_labels
        Deterministic budget: stop (as on the time limit) once this many labels
        have been kept (None: no budget).
    log
        Print the size of every layer.
    """

    warm_start: bool = True
    warm_start_seconds: float | None = None
    max_n: int = DP_MAX_N
    max_labels: int | None = None
    log: bool = False

    def __post_init__(self) -> None:
        at_least("warm_start_seconds", self.warm_start_seconds, 0)
        at_least("max_n", self.max_n, 1)
        at_least("max_labels", self.max_labels, 0)


class _LabelSearch:
    """The layer loop of `dp` below ``upper``, stopped by ``deadline`` or the label budget."""

    def __init__(
        self,
        instance: Instance,
        params: DpParams,
        deadline: Deadline,
        upper: int,
        incumbent_solution: Solution | None,
        notes: list[str],
    ):
        self.instance, self.params, self.deadline = instance, params, deadline
        self.upper, self.incumbent, self.notes = upper, incumbent_solution, notes
        self.placements = Placements(instance)
        self.lower = bounds.best(instance)
        self.labels_seen = 0

    def run(self) -> Result:
        n = self.instance.n
        root = Label(0, 0, 0, 0, (-1,) * n, (), 0, self.lower, None, None)
        layer: Layer = {(0, 0, -1): [root]}
        for depth in range(1, 2 * n + 1):
            following: Layer = {}
            pending = [(key, label) for key, bucket in layer.items() for label in bucket]
            for position, (key, label) in enumerate(pending):
                if position % 256 == 0 and (reason := self._out_of_budget()):
                    return self._stopped(reason, depth, [lab for _, lab in pending[position:]], following)
                for new_key, child in self.placements.successors(key, label):
                    if child.bound < self.upper:
                        insert(following, new_key, child)
            layer = following
            kept = sum(len(bucket) for bucket in layer.values())
            self.labels_seen += kept
            if self.params.log:
                print(f"dp layer {depth}/{2 * n}: {len(layer)} buckets, {kept} labels", flush=True)
        return self._complete(layer)

    def _out_of_budget(self) -> str:
        """Why the search must stop now ("" while it may go on)."""
        if self.deadline.expired():
            return "time limit"
        budget = self.params.max_labels
        return "label budget" if budget is not None and self.labels_seen >= budget else ""

    def _stopped(self, reason: str, depth: int, open_labels: list[Label], following: Layer) -> Result:
        """The incumbent with the least bound of the open labels (every better schedule extends one)."""
        frontier = [label.bound for label in open_labels]
        frontier += [label.bound for bucket in following.values() for label in bucket]
        bound = max(self.lower, min([self.upper, *frontier]))
        where = f"{reason} in layer {depth} of {2 * self.instance.n}"
        if self.incumbent is None:
            return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, notes=(*self.notes, where))
        status = Status.OPTIMAL if self.upper <= bound else Status.FEASIBLE
        return Result(
            status=status,
            objective=self.upper,
            bound=bound,
            solution=self.incumbent,
            notes=(*self.notes, f"{where} ({self.labels_seen} labels kept); bound = least bound of the open labels"),
        )

    def _complete(self, layer: Layer) -> Result:
        notes = self.notes
        complete = [label for bucket in layer.values() for label in bucket]
        notes.append(f"search complete: {self.labels_seen} labels kept over {2 * self.instance.n} layers")
        if not complete:
            if self.incumbent is None:  # cannot happen: the one-after-the-other schedule is a simulator run below it
                return Result(status=Status.ERROR, notes=(*notes, "no schedule found below Σ (c + p) + 1"))
            notes.append(f"no schedule below {self.upper}: the incumbent is optimal")
            return Result(
                status=Status.OPTIMAL,
                objective=self.upper,
                bound=self.upper,
                solution=self.incumbent,
                notes=tuple(notes),
            )
        best = min(complete, key=lambda label: label.makespan)
        return Result(
            status=Status.OPTIMAL,
            objective=best.makespan,
            bound=best.makespan,
            solution=schedule_of(self.instance, best),
            notes=tuple(notes),
        )


def dp(instance: Instance, /, *, time_limit: float, seed: int, params: DpParams | None) -> Result:
    """Dynamic program over simulator runs with dominance and bounding (exact).

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds for the warm start and the search together.
    seed
        Seed of the warm-start search.
    params
        `DpParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when the search completes; on the time limit (or the label
        budget) the incumbent, FEASIBLE, with the least bound of the open
        partial schedules; NOT_APPLICABLE above ``max_n``.

    Notes
    -----
    It proves instances whose optimum lies above every lower bound, where
    CP-SAT's search stalls (uniform, memory 1.5x max m: n = 12 in seconds,
    n = 15 in minutes). The completion bound sees memory only through the
    overlap bound, and a breadth-first search meets its first complete
    schedule in the last layer, which is why it does not reach n = 20. The
    dominance argument is in docs/transfers.md.
    """
    require_fits(instance)
    params = params or DpParams()
    if instance.n > params.max_n:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"n = {instance.n} > max_n = {params.max_n}: the label sets grow like 2^n",),
        )
    deadline = Deadline.after(time_limit)
    if params.warm_start:
        warm = incumbent(instance, warm_start_seconds(params.warm_start_seconds, time_limit), seed, deadline)
        if proven := proven_by_bound(instance, warm):
            return proven
        search = _LabelSearch(
            instance, params, deadline, warm.makespan, warm.solution, [f"incumbent from {warm.name} ({warm.makespan})"]
        )
    else:
        # Running the tasks one after the other takes Σ (c + p), so the optimum is below this.
        upper = sum(instance.transfer) + sum(instance.compute) + 1
        search = _LabelSearch(instance, params, deadline, upper, None, [f"no warm start: searching below {upper}"])
    return search.run()
