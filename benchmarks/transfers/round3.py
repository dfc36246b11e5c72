"""Round 3 on the transfers target (memory 1.5x max m): ideas that were measured and not kept.

Run from the repository root, e.g.
    PYTHONPATH=src python benchmarks/transfers/round3.py relaxations --seed 0 --n 30
    PYTHONPATH=src python benchmarks/transfers/round3.py path-bounds
    PYTHONPATH=src python benchmarks/transfers/round3.py redundant --time-limit 30
    PYTHONPATH=src python benchmarks/transfers/round3.py probe --time-limit 30
    PYTHONPATH=src python benchmarks/transfers/round3.py time-indexed --seed 1 --n 10 --horizons 598 649

Every instance is `generate_uniform(seed, n, memory_factor=1.5)`. Each part prints one
line per run; the numbers are in benchmarks/transfers/README.md ("Round 3").

relaxations
    Three relaxations solved by CP-SAT, each with fixed-length memory intervals (a
    subset of the true holding interval [s_i, t_i + p_i), so every feasible schedule
    stays feasible and the optimum of the relaxation is a lower bound):
    ``link`` (device dropped, task i holds [s_i, s_i + c_i + p_i)), ``device`` (link
    dropped, i holds [t_i - c_i, t_i + p_i)) and ``both`` (both machines, holding
    [s_i, s_i + c_i + p_i)). Question: does any of them prove more than `bounds.best`?
path-bounds
    If transfer j follows transfer i on the link with m_i + m_j > M, j cannot start
    before i's computation ends, so the link idles at least p_i in between; likewise on
    the device (idle at least c_j). The cheapest Hamiltonian path with these costs
    (CP-SAT AddCircuit with a depot) plus Σ c (or Σ p) is a lower bound. Question: does
    it beat Johnson's bound?
redundant
    The default CP-SAT model (complete warm-start hint, C ≥ bounds.best) with and
    without two redundant Cumulative constraints on the fixed-length intervals
    [s_i, s_i + c_i + p_i) and [t_i - c_i, t_i + p_i) (both inside the holding
    interval, so both are implied; fixed lengths give energetic reasoning a grip).
probe
    Feasibility of C ≤ bounds.best (every start window cut to the bound), on instances
    where the bound is known to be reached (so the probe can only succeed).
time-indexed
    LP relaxation of a time-indexed model at a fixed horizon H (cumulative start
    variables X_iτ, Y_iτ; link, device and memory rows per unit of time; exact for 0/1
    values): if the LP is infeasible at H, the optimum exceeds H.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sparse

from hpcsched.solvers.cpsat import new_model, solve_cpsat
from hpcsched.transfers import bounds
from hpcsched.transfers.formulations import _build_cpsat, incumbent
from hpcsched.transfers.generate import generate_uniform
from hpcsched.transfers.model import Instance, Solution, makespan_of, validate

FACTOR = 1.5


def instance_of(seed: int, n: int) -> Instance:
    return generate_uniform(seed=seed, n=n, memory_factor=FACTOR)


def relaxation(instance: Instance, kind: str, time_limit: float):
    """CP-SAT on the ``link``, ``device`` or ``both`` relaxation: (status, value, proven bound)."""
    horizon = sum(t.transfer + t.compute for t in instance.tasks)
    model = new_model()
    makespan = model.new_int_var(0, horizon, "C")
    link, device, held = [], [], []
    for task in instance.tasks:
        length = task.transfer + task.compute
        if kind in ("link", "both"):
            s = model.new_int_var(0, horizon, "")
            link.append(model.new_fixed_size_interval_var(s, task.transfer, ""))
            held.append(model.new_fixed_size_interval_var(s, length, ""))
            model.add(makespan >= s + length)
        if kind == "device":
            u = model.new_int_var(0, horizon, "")  # u = t - c: the latest the transfer can start
            device.append(model.new_fixed_size_interval_var(u + task.transfer, task.compute, ""))
            held.append(model.new_fixed_size_interval_var(u, length, ""))
            model.add(makespan >= u + length)
        if kind == "both":
            t = model.new_int_var(task.transfer, horizon, "")
            device.append(model.new_fixed_size_interval_var(t, task.compute, ""))
            model.add(t >= s + task.transfer)
            model.add(makespan >= t + task.compute)
    for machine in (link, device):
        if machine:
            model.add_no_overlap(machine)
    model.add_cumulative(held, [task.memory for task in instance.tasks], instance.capacity)
    model.minimize(makespan)
    outcome = solve_cpsat(model, time_limit=time_limit)
    return outcome.status.value, outcome.objective, outcome.bound


def path_bound(instance: Instance, side: str) -> int:
    """Σ c (link) or Σ p (device) plus the cheapest Hamiltonian path of forced idle times."""
    tasks, n = instance.tasks, instance.n
    model = new_model()
    arcs, cost = [], []
    for i, a in enumerate(tasks):
        first, last = model.new_bool_var(""), model.new_bool_var("")
        arcs += [(n, i, first), (i, n, last)]
        # the device idles at least the first transfer; the link is followed by the last computation
        cost.append((a.transfer if side == "device" else 0) * first + (a.compute if side == "link" else 0) * last)
        for j, b in enumerate(tasks):
            if i != j:
                arc = model.new_bool_var("")
                arcs.append((i, j, arc))
                if a.memory + b.memory > instance.capacity:
                    cost.append((b.transfer if side == "device" else a.compute) * arc)
    model.add_circuit(arcs)
    model.minimize(sum(cost))
    outcome = solve_cpsat(model, time_limit=20, workers=1)
    base = sum(t.compute for t in tasks) if side == "device" else sum(t.transfer for t in tasks)
    return base + int(outcome.bound)


def default_model(instance: Instance, redundant: bool, ils_seconds: float):
    """The default CP-SAT model (optionally with the redundant cumulatives), its horizon and start variables."""
    name, hint, horizon = incumbent(instance, ils_seconds, 0)
    model, transfer_start, compute_start = _build_cpsat(instance, horizon, bounds.best(instance), False, True, hint)
    if redundant:
        memory = [task.memory for task in instance.tasks]
        length = [task.transfer + task.compute for task in instance.tasks]
        after_transfer = [model.new_fixed_size_interval_var(s, d, "") for s, d in zip(transfer_start, length)]
        before_compute = [model.new_fixed_size_interval_var(t - task.transfer, d, "")
                          for t, task, d in zip(compute_start, instance.tasks, length)]
        model.add_cumulative(after_transfer, memory, instance.capacity)
        model.add_cumulative(before_compute, memory, instance.capacity)
    return model, horizon, (transfer_start, compute_start)


def checked_makespan(instance: Instance, outcome, starts) -> int | None:
    """The makespan of the backend's schedule after the independent validator accepted it."""
    if not outcome.has_solution:
        return None
    transfer_start, compute_start = starts
    solution = Solution(tuple(int(outcome.value(v)) for v in transfer_start),
                        tuple(int(outcome.value(v)) for v in compute_start))
    violations = validate(instance, solution)
    if violations:
        raise AssertionError(f"invalid schedule from the model: {violations[:3]}")
    return makespan_of(instance, solution)


def time_indexed_lp_feasible(instance: Instance, horizon: int) -> bool | None:
    """LP relaxation of the time-indexed model at `horizon`: True feasible, False infeasible."""
    import highspy

    tasks, n, H = instance.tasks, instance.n, horizon
    if any(t.transfer + t.compute > H for t in tasks):
        return False
    x = lambda i, tau: i * H + tau  # noqa: E731  X_iτ = fraction of transfer i started by τ
    y = lambda i, tau: (n + i) * H + tau  # noqa: E731  Y_iτ = fraction of computation i started by τ
    lower, upper = np.zeros(2 * n * H), np.ones(2 * n * H)
    rows, cols, vals, row_lower, row_upper = [], [], [], [], []

    def add(entries, low, high):
        for col, val in entries:
            rows.append(len(row_lower))
            cols.append(col)
            vals.append(val)
        row_lower.append(low)
        row_upper.append(high)

    for i, task in enumerate(tasks):
        lower[x(i, H - task.transfer - task.compute):x(i, H)] = 1  # started in time to finish
        lower[y(i, H - task.compute):y(i, H)] = 1
        upper[y(i, 0):y(i, task.transfer)] = 0
        for tau in range(1, H):
            add([(x(i, tau), 1), (x(i, tau - 1), -1)], 0, np.inf)
            add([(y(i, tau), 1), (y(i, tau - 1), -1)], 0, np.inf)
        for tau in range(task.transfer, H):
            add([(y(i, tau), 1), (x(i, tau - task.transfer), -1)], -np.inf, 0)
    for tau in range(H):
        link, device, memory = [], [], []
        for i, task in enumerate(tasks):
            if task.transfer:
                link += [(x(i, tau), 1)] + ([(x(i, tau - task.transfer), -1)] if tau >= task.transfer else [])
            if task.compute:
                device += [(y(i, tau), 1)] + ([(y(i, tau - task.compute), -1)] if tau >= task.compute else [])
            # held on [τ, τ+1): transfer started by τ and computation not ended by τ + 1
            memory += [(x(i, tau), task.memory)] + ([(y(i, tau - task.compute), -task.memory)]
                                                     if tau >= task.compute else [])
        add(link, -np.inf, 1)
        add(device, -np.inf, 1)
        add(memory, -np.inf, instance.capacity)
    matrix = sparse.csc_matrix((vals, (rows, cols)), shape=(len(row_lower), 2 * n * H))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = 2 * n * H, len(row_lower)
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = np.zeros(2 * n * H), lower, upper
    lp.row_lower_, lp.row_upper_ = np.array(row_lower), np.array(row_upper)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 2)
    highs.passModel(lp)
    highs.run()
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        return True
    if status == highspy.HighsModelStatus.kInfeasible:
        return False
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("relaxations", "path-bounds", "redundant", "probe", "time-indexed"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--horizons", type=int, nargs="+", default=[598, 649])
    parser.add_argument("--ils-seconds", type=float, default=3.0)
    parser.add_argument("--only", action="store_true", help="redundant: only --seed/--n, one model")
    parser.add_argument("--with-redundant", action="store_true", help="with --only: the model with the redundant cumulatives")
    args = parser.parse_args()
    if args.part == "relaxations":
        instance = instance_of(args.seed, args.n)
        print(f"seed {args.seed} n {args.n}: bounds {bounds.all_bounds(instance)}")
        for kind in ("link", "device", "both"):
            print(kind, relaxation(instance, kind, args.time_limit), flush=True)
    elif args.part == "path-bounds":
        for n in (20, 30, 40, 50):
            for seed in range(5):
                instance = instance_of(seed, n)
                print(f"n {n} seed {seed}: johnson {bounds.johnson_bound(instance)} "
                      f"link path {path_bound(instance, 'link')} device path {path_bound(instance, 'device')}",
                      flush=True)
    elif args.part == "redundant":
        cases = [(args.seed, args.n)] if args.only else [(0, 30), (1, 30), (2, 30), (3, 30), (0, 40), (1, 40)]
        for seed, n in cases:
            instance = instance_of(seed, n)
            for redundant in (args.with_redundant,) if args.only else (False, True):
                model, horizon, starts = default_model(instance, redundant, args.ils_seconds)
                outcome = solve_cpsat(model, time_limit=args.time_limit)
                value = checked_makespan(instance, outcome, starts)
                print(f"n {n} seed {seed} redundant={redundant}: warm start {horizon}, bound {bounds.best(instance)} "
                      f"-> {outcome.status.value} {value} (validated; CP-SAT bound {outcome.bound}) "
                      f"{outcome.runtime_s:.1f} s", flush=True)
    elif args.part == "probe":
        for seed, n in ((2, 30), (3, 30), (0, 50)):  # bound reached by some schedule (ladder, round 3)
            instance = instance_of(seed, n)
            lowest = bounds.best(instance)
            model, transfer_start, compute_start = _build_cpsat(instance, lowest, lowest, False, True, None)
            model.clear_objective()
            outcome = solve_cpsat(model, time_limit=args.time_limit)
            value = checked_makespan(instance, outcome, (transfer_start, compute_start))
            print(f"n {n} seed {seed}: C <= {lowest}: {outcome.status.value} (validated makespan {value}) "
                  f"in {outcome.runtime_s:.1f} s", flush=True)
    else:
        instance = instance_of(args.seed, args.n)
        print(f"seed {args.seed} n {args.n}: bounds.best {bounds.best(instance)}")
        for horizon in args.horizons:
            started = time.perf_counter()
            feasible = time_indexed_lp_feasible(instance, horizon)
            print(f"H = {horizon}: LP {'feasible' if feasible else 'infeasible' if feasible is False else 'unknown'} "
                  f"({time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
