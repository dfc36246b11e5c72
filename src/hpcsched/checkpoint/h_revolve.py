"""H-Revolve on homogeneous two-level chains (kind ``chain-offload``): GPU slots plus the host, synchronous transfers.

Source and what was read
------------------------
Herrmann & Pallez, "H-Revolve: a framework for adjoint computation on
synchronous hierarchical platforms", ACM TOMS 46(2), 2020. The paper's text
was not found (the stored pages give Inria's activity-report abstract:
"H-Revolve, an optimal algorithm" for storage levels with write and read
costs, available in a public Python library). The recurrence below is read
from that library as ported to firedrakeproject/checkpoint_schedules
(``checkpoint_schedules/hrevolve_sequences/hrevolve.py``: ``get_hopt_table``,
``hrevolve_aux``, ``hrevolve_recurse``), restated here for two levels and
written anew, not copied.

H-Revolve's model (two levels)
------------------------------
A chain of n stages (H-Revolve's l = n - 1 forward steps). Advancing one
stage costs u_f; reversing stage i (its recording forward, then its
backward) costs u_b. Level 0 holds m checkpoints and costs nothing to write
or read; level 1 costs w to write and r to read. Everything is synchronous:
one operation at a time. With w_0 = r_0 = 0:

* G(n, m): x_s is checkpointed at level 0 (m level-0 slots, its own counted).
  G(1, m) = u_b; G(2, m) = u_f + 2 u_b; G(n, 1) = n u_b + n(n-1)/2 u_f
  (advance from x_s to each stage in turn); otherwise
  G(n, m) = min(G(n, 1), min_{1<=j<=n-2} j u_f + G(n-j, m-1) + G(j, m)):
  advance j stages, checkpoint x_{s+j}, reverse the last n - j stages with one
  slot less, then the first j from x_s.
* H(n, h): x_s is on level 1 and in the working buffer, every level-0 slot is
  free (c_0 of them), h level-1 slots are left. H(1, h) = u_b;
  H(2, h) = u_f + 2 u_b (x_s is also kept at level 0, free); otherwise
  H(n, h) = min(G(n, c_0), min_j j u_f + W(n-j, h-1) + r + H(j, h)).
* W(n, h): x_s only in the working buffer: W(n, h) = min(G(n, c_0), w + H(n, h))
  for n >= 3 and h >= 1, else G(n, c_0).

The answer is W(L, L) (the host is unbounded, so it has L slots, more than
any schedule uses).

Mapping to this package's model
-------------------------------
Homogeneous chains only: every fw equal, every x and xbar equal, no
transients (bw may differ: every stage is reversed exactly once, so Σbw is a
constant added to every plan; u_b = fw and Σbw is added at the end).
Advancing is ``F``; reversing stage i is ``Fall i`` then ``B i`` (``B L``, the
loss, right after ``Fall L-1``); writing x_s to level 1 is ``Off s`` and
reading it back ``Pre s``, so w and r are the link's transfer times of one
activation; a level-0 checkpoint is an x_s the sequence reads again (the
definition keeps it held). Every operation starts when the previous one ends
(H-Revolve's synchronous model), so the makespan is the recurrence's value
plus Σbw: the tests check this against the definition's evaluation. c_0 is
tried from L down; the first schedule the definition accepts at M is kept
(the recurrence is nonincreasing in c_0, so it is the fastest that fits).

What it proves: nothing here. In this package's model transfers overlap the
compute and a ``Fall`` may be kept across backwards, so the two-level optimum
can be lower (the tests compare with `brute-force-offload`); the result is
FEASIBLE unless it meets Σfw + Σbw.
"""

from __future__ import annotations

from ..core.deadline import Deadline
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, too_long_to_check
from .model.two_levels import evaluate_two_levels, validate_two_levels

Op = tuple[str, int]


class HRevolvePlan:
    """The recurrence of the module docstring, as tables, for one chain and one number of level-0 slots.

    Parameters
    ----------
    forward, reverse
        u_f and u_b (one stage advanced; one stage's recording forward).
    write, read
        Transfer times of one activation to and from the host.
    gpu_slots
        c_0, the level-0 checkpoints (x_s's own counted).
    length
        The longest chain asked (n <= length); the host has ``length`` slots.
    deadline
        Checked every 64 entries while the tables fill (None: no limit).

    The level-0 table G costs O(c_0 · length²); the host tables H and W,
    filled on first use, O(length³).
    """

    def __init__(
        self,
        forward: int,
        reverse: int,
        write: int,
        read: int,
        gpu_slots: int,
        length: int,
        deadline: Deadline | None = None,
    ) -> None:
        self.uf, self.ub, self.w, self.r, self.c0, self.n_max = forward, reverse, write, read, gpu_slots, length
        self.deadline = deadline
        # g[m][n], g_split[m][n]: G(n, m) and its split j (0: advance from x_s to each stage in turn)
        self.g = [[0] * (length + 1) for _ in range(gpu_slots + 1)]
        self.g_split = [[0] * (length + 1) for _ in range(gpu_slots + 1)]
        for m in range(1, gpu_slots + 1):
            for n in range(1, length + 1):
                if deadline is not None and n % 64 == 0:  # O(n) each: every 64 keeps the check cheap
                    deadline.check("filling H-Revolve's level-0 table")
                self.g[m][n], self.g_split[m][n] = self._gpu_choice(n, m)
        self.h: list[list[int]] = []
        self.h_split: list[list[int]] = []
        self.w_table: list[list[int]] = []

    def _gpu_choice(self, n: int, m: int) -> tuple[int, int]:
        if n <= 2:
            return (self.ub if n == 1 else self.uf + 2 * self.ub), 0
        best, best_j = n * self.ub + n * (n - 1) // 2 * self.uf, 0
        if m >= 2:
            for j in range(1, n - 1):
                cost = j * self.uf + self.g[m - 1][n - j] + self.g[m][j]
                if cost < best:
                    best, best_j = cost, j
        return best, best_j

    def gpu(self, n: int, m: int) -> int:
        """G(n, m)."""
        return self.g[m][n]

    def _fill_host(self) -> None:
        """H[h][n] (h >= 1) and W[h][n], by increasing n (each entry reads shorter chains only)."""
        size, c0 = self.n_max + 1, self.c0
        self.h = [[0] * size for _ in range(size)]
        self.h_split = [[0] * size for _ in range(size)]
        self.w_table = [[self.g[c0][n] for n in range(size)] for _ in range(size)]
        for n in range(1, size):
            if self.deadline is not None:
                self.deadline.check("filling H-Revolve's host tables")
            for h in range(1, size):
                if self.deadline is not None and h % 64 == 0:  # O(n) each
                    self.deadline.check("filling H-Revolve's host tables")
                best, best_j = self.g[c0][n], 0
                for j in range(1, n - 1):
                    cost = j * self.uf + self.w_table[h - 1][n - j] + self.r + self.h[h][j]
                    if cost < best:
                        best, best_j = cost, j
                self.h[h][n], self.h_split[h][n] = best, best_j
                if n > 2:
                    self.w_table[h][n] = min(self.g[c0][n], self.w + best)

    def working(self, n: int, h: int) -> int:
        """W(n, h): x_s only in the working buffer, h host slots."""
        if not self.w_table:
            self._fill_host()
        return self.w_table[h][n]

    # -- sequences ---------------------------------------------------------------------------
    def working_sequence(self, length: int) -> list[Op]:
        """The operations of W(length, length) from stage 0 (an explicit stack: no recursion limit)."""
        self.working(length, length)
        ops: list[Op] = []
        stack: list[tuple] = [("W", 0, length, length)]
        while stack:
            if self.deadline is not None:
                self.deadline.check("building H-Revolve's sequence")
            task = stack.pop()
            if task[0] == "op":
                ops.append(task[1])
            else:
                stack.extend(reversed(self._expand(task, length)))
        return ops

    def _expand(self, task: tuple, length: int) -> list[tuple]:
        """One step of the reconstruction: the operations and sub-plans that make up ``task``, in order."""
        kind, start, n, slots = task
        c0 = self.c0
        if kind == "W":
            if n <= 2 or slots == 0 or self.g[c0][n] <= self.w + self.h[slots][n]:
                return [("G", start, n, c0)]
            return [("op", ("Off", start)), ("H", start, n, slots)]
        if kind == "H":
            j = self.h_split[slots][n] if n > 2 else 0
            if j == 0:
                return [("G", start, n, c0)]
            advance = [("op", ("F", i)) for i in range(start, start + j)]
            return [*advance, ("W", start + j, n - j, slots - 1), ("op", ("Pre", start)), ("H", start, j, slots)]
        j = self.g_split[slots][n]
        if j == 0:
            ops = []
            for last in range(start + n - 1, start - 1, -1):
                ops += [("op", ("F", i)) for i in range(start, last)]
                ops += [("op", op) for op in _reverse(last, length)]
            return ops
        advance = [("op", ("F", i)) for i in range(start, start + j)]
        return [*advance, ("G", start + j, n - j, slots - 1), ("G", start, j, slots)]


def _reverse(stage: int, length: int) -> list[Op]:
    """Reverse one stage: its recording forward, the loss if it is the last one, its backward."""
    ops: list[Op] = [("Fall", stage)]
    if stage == length - 1:
        ops.append(("B", length))
    ops.append(("B", stage))
    return ops


def is_homogeneous_two_level(instance: Instance) -> str | None:
    """None when the chain is H-Revolve's class (kind chain-offload), else why not."""
    if instance.kind != "chain-offload":
        return "kind 'chain-offload' only (H-Revolve needs a second storage level)"
    if len(set(instance.fw)) != 1:
        return "forward times differ"
    if len(set(instance.x) | set(instance.xbar[1:])) != 1:
        return "sizes differ (H-Revolve needs x = xbar, all equal)"
    if any(instance.ftmp) or any(instance.btmp):
        return "transients are not 0"
    return None


def synchronous_schedule(instance: Instance, sequence: list[Op]) -> Solution:
    """Every operation starts when the previous one ends (H-Revolve's synchronous model)."""
    from .model.two_levels import duration

    starts, now = [], 0
    for name, stage in sequence:
        starts.append(now)
        now += duration(instance, name, stage)
    return Solution(tuple(sequence), tuple(starts))


def h_revolve_plan(instance: Instance, gpu_slots: int, deadline: Deadline | None = None) -> tuple[int, Solution]:
    """(predicted makespan, schedule) of H-Revolve with ``gpu_slots`` level-0 slots on a homogeneous chain."""
    fw, L = instance.fw[0], instance.length
    size = instance.x[0]
    write, read = instance.transfer_time(size, "out"), instance.transfer_time(size, "in")
    plan = HRevolvePlan(fw, fw, write, read, gpu_slots, L, deadline)
    predicted = plan.working(L, L) + sum(instance.bw)
    return predicted, synchronous_schedule(instance, plan.working_sequence(L))


def h_revolve(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """H-Revolve (two storage levels, synchronous transfers) on a homogeneous ``chain-offload`` chain.

    Parameters
    ----------
    instance
        A ``chain-offload`` instance with equal fw, equal sizes and no transients.
    time_limit
        Seconds of wall time the method may use (checked between slot counts).
    seed
        Random seed (unused: the method is deterministic).
    params : None
        This method has no options.

    Returns
    -------
    Result
        FEASIBLE with the fastest H-Revolve schedule over level-0 slot counts
        1..L that fits M (OPTIMAL only when it meets Σfw + Σbw);
        NOT_APPLICABLE outside the class or when none fits.
    """
    why = is_homogeneous_two_level(instance)
    if why is not None:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"not a homogeneous two-level chain: {why}",))
    deadline = Deadline.after(time_limit)
    best: tuple[int, int, Solution] | None = None
    # The recurrence never gets slower with more level-0 slots (each minimum ranges over more splits), so
    # the largest slot count whose schedule fits M is the fastest that fits: scan down, stop at the first.
    for slots in range(instance.length, 0, -1):
        deadline.check("trying level-0 slot counts")
        _, solution = h_revolve_plan(instance, slots, deadline)
        too_long = too_long_to_check(instance.kind, len(solution.sequence), deadline)
        if too_long is not None:  # fewer slots, longer sequences: none of the next ones fits in time either
            return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(f"{slots} level-0 slots: {too_long}",))
        if not validate_two_levels(instance, solution):
            best = (int(evaluate_two_levels(instance, solution)["makespan"]), slots, solution)
            break
    if best is None:
        return Result(status=Status.NOT_APPLICABLE, notes=("no level-0 slot count gives a schedule that fits M",))
    makespan, slots, solution = best
    bound = bounds.best(instance, deadline)
    status = Status.OPTIMAL if makespan <= bound else Status.FEASIBLE
    transfers = sum(1 for name, _ in solution.sequence if name in ("Off", "Pre"))
    return Result(
        status=status,
        solution=solution,
        bound=float(bound),
        notes=(
            f"c_0 = {slots} level-0 slots, {transfers} synchronous transfers; optimal in H-Revolve's model "
            "(as published), not in this one (overlap, kept Fall)",
        ),
    )


__all__ = ["HRevolvePlan", "h_revolve", "h_revolve_plan", "is_homogeneous_two_level", "synchronous_schedule"]
