"""ParInnerFirstMemLimit and ParDeepestFirstMemLimit (TOPC 2015 §5.3.1-5.3.2, Algorithm 4, Theorem 5).

Eyraud-Dubois, Marchal, Sinnen and Vivien, "Parallel scheduling of task trees
with limited memory", ACM TOPC 2(2), 2015. Written from a reading card of the
paper (the rules and Theorem 5 as the card states them); the paper's
pseudo-code (Algorithm 4) itself was not read, so the choices below are ours
where the card is silent, and each is named.

1. **Reduction tree** (§5.3.1). Each node i with n_i > 0 gets a new leaf child
   of zero time and output n_i; then every inner node with f_i > Σ_children f_j
   (the new leaf counted) gets a virtual leaf child of zero time and output
   f_i − Σ f_j. Every inner node then satisfies f_i ≤ Σ_children f_j (the
   reduction property) and no node has an execution file. A zero-time leaf
   starts only when a processor is free but occupies it for no time (it ends
   when it starts), so the makespan is the original schedule's. Mapping back (dropping the added leaves, same starts
   and processors) never raises memory: the original holds n_i on
   [s_i, e_i) and f_i on [s_i, L_i); the reduction tree holds f_i on the
   same interval, the n_i leaf from its start (≤ s_i) to e_i, and more.
2. **Pseudo-list schedule** on the reduction tree. At every event, ready
   inner nodes start at once while a processor is free (by priority); then
   leaves, in one fixed priority order: the next leaf starts only if the
   memory used + its output ≤ the limit and a processor is free (no ready
   inner node waits for one). *Our choice:* the first leaf that does not fit (or
   finds no processor) blocks all later ones, so leaves start exactly in the
   reference order; between two leaf starts, inner nodes that become ready go
   first. Priorities: ``inner-first`` uses the rank in the reduction post-order
   (the best post-order of the original tree, par-inner-first's, with each
   node preceded by its added leaves); ``deepest-first`` uses the largest
   bottom level (par-deepest-first's), ties by that rank; the added leaves of
   i take i's bottom level.
3. **Theorem 5.** The *reference order* is the run of the same rules on one
   processor without a memory limit (inner nodes as soon as ready, leaves in
   priority order); for ``inner-first`` it is the reduction post-order. If the
   limit is ≥ that order's sequential peak on the reduction tree, the run
   never deadlocks (when nothing runs, the done set is the reference order's
   just before the next leaf) and its peak is ≤ 2 × limit. Proof of the 2×:
   write used = A + B, B = Σ f_i of running inner nodes. A ≤ limit always
   (a leaf start is tested against used ≥ A; an inner start leaves A alone;
   an inner end moves f_i to A and frees Σ children ≥ f_i), and
   B ≤ Σ children of running inner nodes ≤ A.

The parallel question's M is a hard limit (the validator refuses any
schedule whose memory exceeds M), so a schedule with peak in (M, 2M] is
refused here (NOT_APPLICABLE, saying its peak), never returned. Option
``memory_fraction`` runs the rules with limit ⌊fraction × M⌋: at 0.5 every
schedule that completes is within M (Theorem 5), at the price of needing
M ≥ 2 × the reference peak to be sure it completes.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import within
from ...core.result import Result, Status
from ..bounds import parallel_lower_bound
from ..model import Instance, Solution, memory_levels, other_question
from ..simulate import Graph
from ..special_cases import best_postorder_order, forest_parent
from .parallel import bottom_levels, finish_schedule, require_memory, sequential_schedule


@dataclass(frozen=True)
class MemLimitParams:
    """Options of the MemLimit heuristics.

    Attributes
    ----------
    memory_fraction : float
        The rules run with limit ⌊memory_fraction × M⌋ (0 < fraction ≤ 1);
        0.5 makes every completed schedule fit M (peak ≤ 2 × limit).
    """

    memory_fraction: float = 1.0

    def __post_init__(self) -> None:
        within("memory_fraction", self.memory_fraction, 1e-9, 1.0)


@dataclass(frozen=True)
class ReductionTree:
    """The reduction tree of an in-forest: nodes 0..n-1 are the original ones, the added leaves follow.

    Attributes
    ----------
    time, output, parent
        Per node (parent -1 for a root); added leaves have time 0.
    children
        Child lists.
    rank
        Position in the reduction post-order (each original node preceded by its added leaves).
    level
        Bottom level (longest path in time to the root, the node included).
    """

    time: tuple[int, ...]
    output: tuple[int, ...]
    parent: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    rank: tuple[int, ...]
    level: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.time)


#: What a deadline reached while the reduction tree is built says.
_BUILDING = "building the reduction tree"


def reduction_tree(
    instance: Instance, graph: Graph, parent: Sequence[int], deadline: Deadline | None = None
) -> ReductionTree:
    """§5.3.1: execution files become zero-time leaves, virtual leaves restore f_i ≤ Σ children f_j."""
    nodes = instance.nodes
    time, output, par = [v.time for v in nodes], [v.output for v in nodes], list(parent)
    level = list(bottom_levels(instance, graph))
    if deadline is not None:
        deadline.check(_BUILDING)
    added: list[list[int]] = [[] for _ in nodes]

    def add_leaf(i: int, size: int) -> None:
        added[i].append(len(time))
        time.append(0)
        output.append(size)
        par.append(i)
        level.append(level[i])

    for i, node in enumerate(nodes):
        if node.exec > 0:
            add_leaf(i, node.exec)
        below = sum(output[j] for j in graph.predecessors[i]) + node.exec
        if (graph.predecessors[i] or node.exec > 0) and node.output > below:
            add_leaf(i, node.output - below)
    children: list[list[int]] = [[] for _ in time]
    for j, p in enumerate(par):
        if p >= 0:
            children[p].append(j)
    if deadline is not None:
        deadline.check(_BUILDING)
    rank = [0] * len(time)
    position = 0
    for i in best_postorder_order(graph, parent)[0]:
        for j in (*added[i], i):
            rank[j], position = position, position + 1
    return ReductionTree(
        tuple(time), tuple(output), tuple(par), tuple(tuple(c) for c in children), tuple(rank), tuple(level)
    )


class MemLimitRun:
    """One run of Algorithm 4's rules on a reduction tree; ``start`` per node, ``order`` of starts, ``peak``."""

    def __init__(self, tree: ReductionTree, priority: Sequence[tuple[int, int]], processors: int, limit: float) -> None:
        self.tree, self.priority, self.processors, self.limit = tree, priority, processors, limit
        self.leaves = sorted((j for j in range(tree.size) if not tree.children[j]), key=lambda j: self.priority[j])
        self.missing = [len(c) for c in tree.children]
        self.ready: list[tuple[tuple[int, int], int]] = []  # heap of ready inner nodes
        self.free = list(range(self.processors))
        self.running: list[tuple[int, int, int]] = []  # (end, node, processor)
        self.start, self.processor = [-1] * tree.size, [-1] * tree.size
        self.order: list[int] = []
        self.now = self.held = self.peak = self.done = self.next_leaf = 0

    def _begin(self, j: int) -> None:
        tree = self.tree
        self.start[j] = self.now
        self.order.append(j)
        self.held += tree.output[j]
        self.peak = max(self.peak, self.held)
        if tree.time[j] == 0:  # an added leaf: it ends when it starts, without a processor
            self._end(j)
        else:
            proc = heapq.heappop(self.free)
            self.processor[j] = proc
            heapq.heappush(self.running, (self.now + tree.time[j], j, proc))

    def _end(self, j: int) -> None:
        """Node j ends now: its children's outputs are freed (a root's own too); its parent may become ready."""
        tree = self.tree
        self.done += 1
        self.held -= sum(tree.output[c] for c in tree.children[j])
        if tree.parent[j] < 0:
            self.held -= tree.output[j]
        p = tree.parent[j]
        if p >= 0:
            self.missing[p] -= 1
            if self.missing[p] == 0:
                heapq.heappush(self.ready, (self.priority[p], p))

    def _start_next_leaf(self) -> bool:
        """Start the next leaf in priority order if it fits and a processor is free; False when it is blocked.

        Called when no ready inner node waits for a processor; a zero-time leaf
        needs a free processor too (for no time): otherwise leaves would run
        ahead of the inner nodes, and the one-processor run would not be the
        post-order.
        """
        if self.next_leaf == len(self.leaves):
            return False
        leaf = self.leaves[self.next_leaf]
        if not self.free or self.held + self.tree.output[leaf] > self.limit:
            return False
        self.next_leaf += 1
        self._begin(leaf)
        return True

    def start_all(self) -> None:
        """Ready inner nodes while processors are free, then one leaf, again until the next leaf is blocked."""
        while True:
            while self.free and self.ready:
                self._begin(heapq.heappop(self.ready)[1])
            if not self._start_next_leaf():
                return

    def finish_instant(self) -> None:
        """Advance to the next end: every node ending now frees its children's outputs (a root its own)."""
        self.now = self.running[0][0]
        while self.running and self.running[0][0] == self.now:
            _, j, proc = heapq.heappop(self.running)
            heapq.heappush(self.free, proc)
            self._end(j)

    def run(self, deadline: Deadline | None = None) -> bool:
        """Play the rules to the end; False on a deadlock (nothing runs, the next leaf does not fit).

        Raises `TimeLimitReached` at ``deadline``, checked at every event.
        """
        while self.done < self.tree.size:
            if deadline is not None:
                deadline.check("the MemLimit list schedule")
            self.start_all()
            if not self.running:
                return self.done == self.tree.size
            self.finish_instant()
        return True


def priorities(tree: ReductionTree, rule: str) -> list[tuple[int, int]]:
    """Priority keys (smaller first): the reduction post-order rank, or (−bottom level, rank)."""
    if rule == "inner-first":
        return [(0, r) for r in tree.rank]
    return [(-lv, r) for lv, r in zip(tree.level, tree.rank, strict=True)]


def reference_peak(tree: ReductionTree, rule: str, deadline: Deadline | None = None) -> int:
    """Sequential peak on the reduction tree of the reference order (the rules on one processor, no limit)."""
    run = MemLimitRun(tree, priorities(tree, rule), 1, float("inf"))
    run.run(deadline)
    return run.peak


def memlimit_schedule(
    instance: Instance, rule: str, limit: float, deadline: Deadline | None = None
) -> tuple[MemLimitRun, bool, int]:
    """Run the rules on an in-forest instance's reduction tree: (the run, completed?, reference peak)."""
    graph = Graph.of(instance)
    parent = forest_parent(graph)
    if parent is None:
        raise ValueError("the MemLimit heuristics need an in-forest")
    tree = reduction_tree(instance, graph, parent, deadline)
    if deadline is not None:
        deadline.check(_BUILDING)
    run = MemLimitRun(tree, priorities(tree, rule), instance.processors or 1, limit)
    return run, run.run(deadline), reference_peak(tree, rule, deadline)


def _memlimit_method(instance: Instance, rule: str, params: MemLimitParams | None, time_limit: float) -> Result:
    name = f"par-{rule}-memlimit"
    refused = other_question(instance, "parallel")
    if refused is not None:
        return refused
    if not instance.is_in_forest:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{name} needs an in-tree/forest (TOPC 2015 §5.3)",))
    deadline = Deadline.after(time_limit)  # Liu's order and the reduction tree count in the limit too
    liu = require_memory(instance, Graph.of(instance), deadline)  # INFEASIBLE when no schedule fits M
    memory = instance.memory or 0
    limit = int((params or MemLimitParams()).memory_fraction * memory)
    try:
        deadline.check("checking that M fits Liu's order")
        run, completed, reference = memlimit_schedule(instance, rule, limit, deadline)
    except TimeLimitReached as stopped:  # Liu's order fits M (require_memory): an answer, not nothing
        assert liu is not None  # an in-forest
        note = f"{stopped} ({name}): Liu's sequential order on one processor instead"
        return finish_schedule(instance, *sequential_schedule(instance, liu), note)
    if not completed:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(
                f"{name} deadlocked with limit {limit}: the next leaf never fits (Theorem 5 guarantees "
                f"completion from the reference order's peak {reference} on the reduction tree up)",
            ),
        )
    start, processor = run.start[: instance.n], run.processor[: instance.n]
    peak = max((held for _, held in memory_levels(instance, start)), default=0)
    facts = (
        f"limit {limit}; reference order's peak {reference} and this run's peak {run.peak} on the reduction "
        f"tree; peak {peak} on the instance"
    )
    if peak > memory:
        return Result(status=Status.NOT_APPLICABLE, notes=(_over_m_note(name, peak, memory, limit, reference, facts),))
    bound = parallel_lower_bound(instance)
    makespan = max(s + node.time for s, node in zip(start, instance.nodes, strict=True))
    return Result(
        status=Status.OPTIMAL if makespan <= bound else Status.FEASIBLE,
        solution=Solution.schedule(instance, start, processor),
        bound=float(bound),
        notes=(name, f"{facts} of M = {memory}"),
    )


def par_inner_first_memlimit(
    instance: Instance, /, *, time_limit: float, seed: int, params: MemLimitParams | None
) -> Result:
    """ParInnerFirstMemLimit (TOPC 2015 Algorithm 4 as stated in a reading card, see the module).

    On the reduction tree, ready inner nodes start at once, leaves in the best
    post-order's rank, each only if memory used + its output ≤ the limit (the
    first that does not fit blocks the rest). The paper's pseudo-code was not
    read.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question on an in-tree/forest
        (another question or a DAG: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every event of both list schedules;
        when reached, Liu's order (made first, within M) on one processor, with a
        note (TIME_LIMIT_NO_SOLUTION only when the limit cuts Liu's order itself).
    seed : int
        Unused: the method is deterministic.
    params : MemLimitParams or None
        ``memory_fraction`` (default 1): the rules' limit is ⌊fraction × M⌋.

    Returns
    -------
    Result
        The schedule on the original tree and its makespan; the status, set
        in this method or its helpers, is one of FEASIBLE, OPTIMAL (the
        makespan meets the bound), NOT_APPLICABLE (deadlock under the limit,
        or a schedule above M, the note says which), INFEASIBLE (M below the
        sequential optimum).
    """
    return _memlimit_method(instance, "inner-first", params, time_limit)


def par_deepest_first_memlimit(
    instance: Instance, /, *, time_limit: float, seed: int, params: MemLimitParams | None
) -> Result:
    """ParDeepestFirstMemLimit (TOPC 2015 Algorithm 4 as stated in a reading card, see the module).

    The same rules as `par_inner_first_memlimit` with priority the largest
    bottom level (ties by post-order rank). The paper's pseudo-code was not
    read.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question on an in-tree/forest
        (another question or a DAG: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every event of both list schedules;
        when reached, Liu's order (made first, within M) on one processor, with a
        note (TIME_LIMIT_NO_SOLUTION only when the limit cuts Liu's order itself).
    seed : int
        Unused: the method is deterministic.
    params : MemLimitParams or None
        ``memory_fraction`` (default 1): the rules' limit is ⌊fraction × M⌋.

    Returns
    -------
    Result
        The schedule on the original tree and its makespan; the status, set
        in this method or its helpers, is one of FEASIBLE, OPTIMAL,
        NOT_APPLICABLE, INFEASIBLE (as `par_inner_first_memlimit`).
    """
    return _memlimit_method(instance, "deepest-first", params, time_limit)


def _over_m_note(name: str, peak: int, memory: int, limit: int, reference: int, facts: str) -> str:
    """Why a completed run is refused, and what would help only where Theorem 5 says it does."""
    why = "Theorem 5 allows up to 2 x limit" if limit >= reference else "the limit is below the reference peak"
    if memory // 2 >= reference:  # then limit ⌊M/2⌋ completes (Theorem 5) with a peak ≤ M
        hint = "--opt memory_fraction=0.5 completes within M"
    else:
        hint = f"M < 2 x the reference peak {reference}: no memory_fraction is sure to complete within M"
    return (
        f"{name}: the schedule needs memory {peak} > M = {memory} "
        f"({why}; the parallel question's M is hard; {hint}); {facts}"
    )
