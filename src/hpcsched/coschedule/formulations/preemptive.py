"""Preemptive co-scheduling: the LP, phase ordering, and preemption minimization.

LP (spec): x_i >= 0 time kernel i runs alone, y_ij >= 0 time i and j run
together; minimize Σ x + Σ y subject to x_i + Σ_j r_{i|j} y_ij = p_i. Every
preemptive schedule splits into such phases (so LP <= optimum) and any order
of the phases is a schedule (so the LP optimum is reached): the LP value is
the optimal preemptive makespan.

Modelling choices:

- Pairs with r_{i|j} + r_{j|i} <= 1 are dropped from the LP: a phase of
  such a pair is replaced by the two solo phases that do the same work in
  (r_{i|j} + r_{j|i}) y <= y time, so the optimum does not change.
- Rows are scaled by 1/p_i and HiGHS runs with 1e-10 feasibility
  tolerances; the solo times are then recomputed from the pair times
  (x_i = p_i - Σ r y) so the schedule does the exact work.
- Backends: ``scipy`` (``linprog`` with HiGHS, sparse matrices; the default
  because building a PuLP model of 2 million columns takes minutes) or
  ``pulp`` (PuLP + HiGHS through `hpcsched.solvers.milp`); any other name is
  refused as ``options.backend``.
- Only a solve the backend proves optimal gives the LP value as the optimum
  (and bound). A time-limited HiGHS run through PuLP still hands back its
  last simplex iterate, flagged "Optimal / Integer Feasible" by PuLP and
  FEASIBLE by the adapter: that point is neither optimal nor, in general,
  primal feasible (its pair times can do more than a kernel's work). Such a
  point is clipped to a feasible one (pair times taken in turn, each cut to
  the work both kernels still have) and returned as FEASIBLE without a
  bound. scipy's ``linprog`` returns no point at its time limit
  (TIME_LIMIT_NO_SOLUTION).

Phase order (minimizing preemptions for a given LP solution): the support
graph has kernels as nodes, one edge per pair phase, and each solo phase as
a pendant leaf of its kernel. A kernel whose phases are consecutive is not
preempted; all kernels are unpreempted exactly when each component is a
caterpillar (a tree whose non-leaf nodes lie on one path). We take in each
component the longest path of a spanning tree as the spine, emit the spine's
phases in path order with each spine node's other phases (its pendant
edges, and deeper branches recursively) between its two spine edges, and
insert the phases outside the spanning tree next to one of their kernels'
blocks. Up to six spanning trees (breadth-first roots) are tried per
component, and the best order is improved by moving single phases next to
another phase of one of their kernels while that removes preemptions (any
order has the same makespan). On caterpillars this gives zero preemptions;
elsewhere it is a heuristic, and ``milp-min-preemptions`` solves small
instances exactly.
"""

from __future__ import annotations

import math
from typing import Any

import networkx as nx
import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from ...core.deadline import Deadline
from ...core.errors import InvalidInstanceError
from ...core.fields import require_int
from ...core.result import Result, Status
from ...solvers.milp import solve_pulp
from ..model import Instance
from .slabs import LP_OPTIONS, solution_from_slabs, time_slab_sequence

PROBLEM = "coschedule"
# Phase lengths below this fraction of the makespan are solver noise.
NEGLIGIBLE = 1e-12
#: LP backends of `solve_preemptive_lp` (option ``backend`` of ``lp-preemptive``).
LP_BACKENDS = ("scipy", "pulp")


def check_backend(backend: object) -> str:
    """``backend`` if it names an LP backend, else an error naming ``options.backend``."""
    if backend not in LP_BACKENDS:
        raise InvalidInstanceError("options.backend", f"must be one of {', '.join(LP_BACKENDS)}, got {backend!r}")
    return backend  # type: ignore[return-value]


def useful_pairs(instance: Instance) -> list[tuple[int, int, float, float]]:
    """Compatible pairs whose co-run beats running both alone (r_ij + r_ji > 1)."""
    return [(p.a, p.b, p.rate_a, p.rate_b) for p in instance.pairs if p.rate_a + p.rate_b > 1 + 1e-12]


def solve_preemptive_lp(
    instance: Instance, *, backend: str = "scipy", time_limit: float | None = None, seed: int = 0
) -> tuple[Status, float | None, dict[int, float], dict[tuple[int, int], float], str]:
    """Solve the LP; returns status, value, solo times x, pair times y, backend name.

    The status is the backend's: OPTIMAL only when it proved the LP optimum
    (then ``value`` is the optimal preemptive makespan); FEASIBLE when it
    stopped early with a point, which is clipped to a feasible one (module
    doc) and whose ``value`` is that schedule's length, no bound;
    otherwise ``value`` is None.
    """
    check_backend(backend)
    pairs = useful_pairs(instance)
    durations = np.array(instance.durations, dtype=float)
    n = instance.n
    if backend == "scipy":
        import scipy

        rows = list(range(n))
        cols = list(range(n))
        values = list(1.0 / durations)
        for column, (a, b, rate_a, rate_b) in enumerate(pairs, start=n):
            rows += [a, b]
            cols += [column, column]
            values += [rate_a / durations[a], rate_b / durations[b]]
        matrix = coo_matrix((values, (rows, cols)), shape=(n, n + len(pairs))).tocsr()
        options = dict(LP_OPTIONS)
        if time_limit is not None:
            options["time_limit"] = float(time_limit)
        result = linprog(np.ones(n + len(pairs)), A_eq=matrix, b_eq=np.ones(n), bounds=(0, None), method="highs", options=options)
        name = f"scipy {scipy.__version__} linprog-highs"
        if result.status != 0:
            status = Status.TIME_LIMIT_NO_SOLUTION if result.status == 1 else Status.ERROR
            return status, None, {}, {}, name
        solution = result.x
        pair_times = {(a, b): float(solution[n + k]) for k, (a, b, _, _) in enumerate(pairs)}
        value = float(result.fun)
        status = Status.OPTIMAL
    elif backend == "pulp":
        import pulp

        model = pulp.LpProblem("coschedule_preemptive", pulp.LpMinimize)
        x = [pulp.LpVariable(f"x_{i}", lowBound=0) for i in range(n)]
        y = {(a, b): pulp.LpVariable(f"y_{a}_{b}", lowBound=0) for a, b, _, _ in pairs}
        model += pulp.lpSum(x) + pulp.lpSum(y.values())
        terms: list[list[Any]] = [[x[i] / durations[i]] for i in range(n)]
        for a, b, rate_a, rate_b in pairs:
            terms[a].append(rate_a / durations[a] * y[a, b])
            terms[b].append(rate_b / durations[b] * y[a, b])
        for i in range(n):
            model += pulp.lpSum(terms[i]) == 1, f"work_{i}"
        outcome = solve_pulp(model, time_limit=time_limit, seed=seed)
        name = outcome.backend
        if not outcome.has_solution:
            return outcome.status, None, {}, {}, name
        pair_times = {key: float(outcome.value(var) or 0.0) for key, var in y.items()}
        value = float(outcome.objective)
        # FEASIBLE here is PuLP's reading of a HiGHS time or iteration limit: not a proof.
        status = Status.OPTIMAL if outcome.status is Status.OPTIMAL else Status.FEASIBLE
    scale = NEGLIGIBLE * max(1.0, abs(value))
    pair_times = {key: t for key, t in pair_times.items() if t > scale}
    if status is not Status.OPTIMAL:
        pair_times = _clip_to_work(instance, pair_times)
    # Recompute the solo times from the pair times so the work is exact.
    solo = durations.copy()
    for (a, b), t in pair_times.items():
        solo[a] -= instance.rate(a, b) * t
        solo[b] -= instance.rate(b, a) * t
    solo_times = {i: float(v) for i, v in enumerate(solo) if v > NEGLIGIBLE * durations[i]}
    if status is not Status.OPTIMAL:
        value = sum(solo_times.values()) + sum(pair_times.values())
    return status, value, solo_times, pair_times, name


def _clip_to_work(instance: Instance, pair_times: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    """Pair times of an unproven LP point cut so no kernel gets more than its work (longest first)."""
    remaining = [float(p) for p in instance.durations]
    clipped = {}
    for (a, b), t in sorted(pair_times.items(), key=lambda item: (-item[1], item[0])):
        rate_a, rate_b = instance.rate(a, b), instance.rate(b, a)
        t = min(t, remaining[a] / rate_a, remaining[b] / rate_b)
        if t > NEGLIGIBLE * max(remaining[a], remaining[b], 1.0):
            remaining[a] = max(0.0, remaining[a] - rate_a * t)
            remaining[b] = max(0.0, remaining[b] - rate_b * t)
            clipped[a, b] = t
    return clipped


def preemptive_optimum(instance: Instance) -> float | None:
    """The optimal preemptive makespan when the LP is solved to proven optimality, else None."""
    status, value, _, _, _ = solve_preemptive_lp(instance)
    return value if status is Status.OPTIMAL else None


def order_phases(
    solo_times: dict[int, float],
    pair_times: dict[tuple[int, int], float],
    n: int,
    *,
    tries: int = 6,
    improve_limit: int = 300,
) -> list[tuple[tuple[int, ...], float]]:
    """Order LP phases so each kernel's phases are as consecutive as possible (see module doc).

    Each component is ordered from the spanning trees of up to ``tries``
    breadth-first roots; the order with the fewest preemptions is kept, then
    (components of at most ``improve_limit`` phases) improved by moving single
    phases next to another phase of one of their kernels.
    """
    graph = nx.Graph()
    for i in range(n):
        graph.add_node(("k", i))
    for (a, b), t in pair_times.items():
        graph.add_edge(("k", a), ("k", b), phase=((a, b), t))
    for i, t in solo_times.items():
        graph.add_edge(("k", i), ("s", i), phase=((i,), t))
    sequence: list[tuple[tuple[int, ...], float]] = []
    for component in sorted(nx.connected_components(graph), key=min):
        sub = graph.subgraph(component)
        if sub.number_of_edges() == 0:
            continue
        nodes = sorted(component)
        roots = nodes[:: max(1, len(nodes) // tries)][:tries]
        blocks = [_component_order(sub, root) for root in roots]
        best = min(blocks, key=_preemptions_of)
        if _preemptions_of(best) > 0 and len(best) <= improve_limit:
            best = _improve_order(best)
        sequence += best
    return sequence


def _improve_order(block: list[tuple[tuple[int, ...], float]], passes: int = 3) -> list[tuple[tuple[int, ...], float]]:
    """Move single phases next to another phase of one of their kernels while that removes preemptions.

    Any order of the phases is a schedule of the same makespan, so this local
    search only trades preemptions.
    """
    current = _preemptions_of(block)
    for _ in range(passes):
        improved = False
        for position in range(len(block)):
            phase = block[position]
            rest = block[:position] + block[position + 1 :]
            targets = {q + offset for q, (ks, _) in enumerate(rest) if set(ks) & set(phase[0]) for offset in (0, 1)}
            for target in sorted(targets):
                candidate = rest[:target] + [phase] + rest[target:]
                value = _preemptions_of(candidate)
                if value < current:
                    block, current, improved = candidate, value, True
                    break
            if current == 0:
                return block
        if not improved:
            break
    return block


def _preemptions_of(phases: list[tuple[tuple[int, ...], float]]) -> int:
    last_seen: dict[int, int] = {}
    preemptions = 0
    for position, (kernels, _) in enumerate(phases):
        for k in kernels:
            if k in last_seen and last_seen[k] != position - 1:
                preemptions += 1
            last_seen[k] = position
    return preemptions


def _component_order(sub: nx.Graph, root) -> list[tuple[tuple[int, ...], float]]:
    tree = nx.bfs_tree(sub, root).to_undirected()
    spine = _longest_path(tree)
    on_spine = set(spine)
    block: list[tuple[tuple[int, ...], float]] = []

    def branch(child, parent):
        # Phases of the subtree hanging from ``child`` (post-order, iteratively: trees can be deep),
        # each node's edge to its parent right after its own subtree.
        out, stack = [], [(child, parent, False)]
        while stack:
            node, up, expanded = stack.pop()
            if expanded:
                out.append(sub.edges[node, up]["phase"])
                continue
            stack.append((node, up, True))
            for below in sorted(tree.neighbors(node), reverse=True):
                if below != up:
                    stack.append((below, node, False))
        return out

    for position, node in enumerate(spine):
        if position > 0:
            block.append(sub.edges[spine[position - 1], node]["phase"])
        for other in sorted(tree.neighbors(node)):
            if other not in on_spine:
                block += branch(other, node)
    for u, v in sub.edges():
        if tree.has_edge(u, v):
            continue
        phase = sub.edges[u, v]["phase"]
        options = []
        for kernel in phase[0]:
            last = max((k for k, (ks, _) in enumerate(block) if kernel in ks), default=len(block) - 1)
            options.append(block[: last + 1] + [phase] + block[last + 1 :])
        block = min(options, key=_preemptions_of)
    return block


def _longest_path(tree: nx.Graph) -> list:
    """A longest path of a tree (two breadth-first sweeps)."""
    start = next(iter(sorted(tree.nodes)))
    far = max(nx.single_source_shortest_path_length(tree, start).items(), key=lambda kv: (kv[1], kv[0]))[0]
    paths = nx.single_source_shortest_path(tree, far)
    other = max(paths, key=lambda node: (len(paths[node]), node))
    return paths[other]


STREAMS_NOTE = (
    "the instance has streams (data.streams): the preemptive LP and its phase order ignore the stream order, "
    "so its schedule would break it; its value is only a lower bound (reported by the other methods). "
    "Use milp (exact) or cpsat for streams, fifo for the hardware replay"
)


def lp_preemptive(instance: Instance, *, time_limit: float | None = None, seed: int = 0, backend: str = "scipy", **_: Any) -> Result:
    """Preemptive optimum by the LP, phases ordered to avoid preemptions (caterpillar order).

    NOT_APPLICABLE on instances with streams (`STREAMS_NOTE`).
    """
    check_backend(backend)
    if instance.streams:
        return Result(PROBLEM, "lp-preemptive", Status.NOT_APPLICABLE, notes=(STREAMS_NOTE,))
    deadline = Deadline.after(time_limit)
    deadline.check("starting the preemptive LP")
    status, value, solo_times, pair_times, name = solve_preemptive_lp(
        instance, backend=backend, time_limit=deadline.remaining(floor=1e-3), seed=seed
    )
    if value is None:
        return Result(PROBLEM, "lp-preemptive", status, solver=name, notes=("LP not solved",))
    phases = order_phases(solo_times, pair_times, instance.n)
    solution = solution_from_slabs([kernels for kernels, _ in phases], [length for _, length in phases])
    notes = [f"{len(phases)} phases ({len(pair_times)} co-run); pairs with r_ij + r_ji <= 1 dropped (dominated)"]
    proven = status is Status.OPTIMAL
    if not proven:
        notes.append("LP stopped before a proof of optimality (time limit): its point, clipped to the work, is a schedule, not the optimum; no bound")
    return Result(
        PROBLEM,
        "lp-preemptive",
        Status.OPTIMAL if proven else Status.FEASIBLE,
        objective=value,
        bound=value if proven else None,
        solution=solution,
        solver=name,
        notes=tuple(notes),
    )


def milp_min_preemptions(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    slots: int | None = None,
    max_n: int = 12,
    **_: Any,
) -> Result:
    """Exact MILP (small n): fewest preemptions among schedules of optimal preemptive makespan.

    The schedule is a sequence of K slots, each running one kernel, one pair
    or nothing; binaries choose each slot's set, continuous variables its
    length; the total length is at most C* (1 + 1e-7) with C* the LP optimum.
    A run of kernel i starts in slot k when i is active in k but not in k-1;
    the objective counts run starts minus n. K = 2 (n + P) - 1 with P the
    preemptions of the LP-ordering schedule is enough: every slot boundary of
    a schedule is the start or end of some run, and a schedule with at most P
    preemptions has at most n + P runs. The slot sequence found is re-timed by
    the slab LP (exact work), so the makespan is optimal up to 1e-7.
    """
    import pulp

    if slots is not None:
        slots = require_int(slots, "options.slots", minimum=1)  # 0 used to fall back to the default silently
    if instance.streams:
        return Result(PROBLEM, "milp-min-preemptions", Status.NOT_APPLICABLE, notes=(STREAMS_NOTE,))
    deadline = Deadline.after(time_limit)
    base = lp_preemptive(instance, time_limit=deadline.remaining(), seed=seed)
    if base.solution is None or base.status is not Status.OPTIMAL:
        # Without the proven LP optimum there is no optimal makespan to minimize preemptions at.
        return base.replace(method="milp-min-preemptions")
    optimum = base.objective
    from ..model import evaluate

    heuristic_preemptions = int(evaluate(instance, base.solution)["preemptions"])
    if heuristic_preemptions == 0:
        return base.replace(
            method="milp-min-preemptions",
            notes=(*base.notes, "LP phase order already has 0 preemptions: optimal preemption count 0"),
        )
    n = instance.n
    if n > max_n:
        # K x (n + pairs) binaries: beyond a dozen kernels the model does not fit a short run.
        return base.replace(
            method="milp-min-preemptions",
            notes=(*base.notes, f"n = {n} > max_n = {max_n}: MILP not built; LP phase order returned (preemptions not proven minimal)"),
        )
    count = 2 * (n + heuristic_preemptions) - 1 if slots is None else slots
    pairs = [(p.a, p.b) for p in instance.pairs if p.rate_a + p.rate_b >= 1 - 1e-12]
    model = pulp.LpProblem("coschedule_min_preemptions", pulp.LpMinimize)
    K = range(count)
    solo = {(i, k): pulp.LpVariable(f"s_{i}_{k}", cat="Binary") for i in range(n) for k in K}
    duo = {(e, k): pulp.LpVariable(f"w_{e[0]}_{e[1]}_{k}", cat="Binary") for e in pairs for k in K}
    solo_len = {(i, k): pulp.LpVariable(f"d_{i}_{k}", lowBound=0) for i in range(n) for k in K}
    duo_len = {(e, k): pulp.LpVariable(f"l_{e[0]}_{e[1]}_{k}", lowBound=0) for e in pairs for k in K}
    run_start = {(i, k): pulp.LpVariable(f"b_{i}_{k}", lowBound=0) for i in range(n) for k in K}
    horizon = optimum * (1 + 1e-7)
    model += pulp.lpSum(run_start.values())  # run starts; preemptions = this - n
    incident = {i: [e for e in pairs if i in e] for i in range(n)}

    def active(i, k):
        return solo[i, k] + pulp.lpSum(duo[e, k] for e in incident[i])

    for k in K:
        if deadline.expired():  # the LP schedule is optimal in makespan: return it rather than nothing
            return base.replace(
                method="milp-min-preemptions",
                notes=(*base.notes, "time limit reached while building the MILP: LP phase order returned (preemptions not proven minimal)"),
            )
        model += pulp.lpSum(solo[i, k] for i in range(n)) + pulp.lpSum(duo[e, k] for e in pairs) <= 1
        for i in range(n):
            model += solo_len[i, k] <= horizon * solo[i, k]
            previous = active(i, k - 1) if k > 0 else 0
            model += run_start[i, k] >= active(i, k) - previous
        for e in pairs:
            model += duo_len[e, k] <= horizon * duo[e, k]
        if k > 0:  # symmetry: used slots first
            model += pulp.lpSum(solo[i, k] for i in range(n)) + pulp.lpSum(duo[e, k] for e in pairs) <= pulp.lpSum(
                solo[i, k - 1] for i in range(n)
            ) + pulp.lpSum(duo[e, k - 1] for e in pairs)
    for i in range(n):
        work = pulp.lpSum(solo_len[i, k] for k in K) + pulp.lpSum(
            instance.rate(i, e[1] if e[0] == i else e[0]) * duo_len[e, k] for e in incident[i] for k in K
        )
        model += work == instance.kernels[i].duration
    model += pulp.lpSum(solo_len.values()) + pulp.lpSum(duo_len.values()) <= horizon
    if deadline.expired():
        return base.replace(
            method="milp-min-preemptions",
            notes=(*base.notes, "time limit reached before the MILP solve: LP phase order returned (preemptions not proven minimal)"),
        )
    outcome = solve_pulp(model, time_limit=deadline.remaining(floor=1e-3), seed=seed)
    if not outcome.has_solution:
        return base.replace(
            method="milp-min-preemptions",
            notes=(*base.notes, f"MILP found no schedule ({outcome.message}); LP phase order returned"),
            solver=outcome.backend,
        )
    sets = []
    for k in K:
        for i in range(n):
            if outcome.value(solo[i, k]) > 0.5:
                sets.append((i,))
        for e in pairs:
            if outcome.value(duo[e, k]) > 0.5:
                sets.append(e)
    lengths = time_slab_sequence(instance, sets)
    if lengths is None:
        return base.replace(method="milp-min-preemptions", notes=(*base.notes, "MILP slot sequence could not be re-timed"))
    solution = solution_from_slabs(sets, lengths)
    found = int(evaluate(instance, solution)["preemptions"])
    if found > heuristic_preemptions:
        solution, found = base.solution, heuristic_preemptions
    proven = outcome.status is Status.OPTIMAL
    return Result(
        PROBLEM,
        "milp-min-preemptions",
        Status.OPTIMAL,
        objective=optimum,
        bound=optimum,
        solution=solution,
        solver=outcome.backend,
        notes=(
            f"makespan optimal (LP); preemptions {found} "
            + ("proven minimal" if proven else f"not proven minimal (MILP {outcome.status}, at least {None if outcome.bound is None else max(0, math.ceil(outcome.bound - 1e-6) - n)})"),
            f"{count} slots; makespan constraint C* (1 + 1e-7)",
        ),
    )
