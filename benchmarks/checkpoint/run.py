"""Checkpoint benchmarks: DP time vs L and S, overhead vs budget per method on PipeDream chains,
persistent vs unrestricted optimum on small random chains, remat vs offload vs both (PCIe 3), the two-level
exact methods against each other and the heuristics on small chains. Prints Markdown tables.

    .venv/bin/python benchmarks/checkpoint/run.py [--part dp|overhead|persistent|twolevels|twoexact|all] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import hpcsched
from hpcsched.checkpoint import Instance, bounds, import_kineto, import_pipedream, memory_lower_bound, store_all_peak
from hpcsched.checkpoint.formulations import persistent_dp, shortest_sequence

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
NETWORKS = ("alexnet", "vgg16", "resnet18", "gnmt", "squeezenet1_0", "resnet50")
METHODS = ("dp", "dp-coarse", "greedy", "checkpoint-sequential", "chen", "revolve-repaired", "recompute-all")


def random_chain(length: int, rng: np.random.Generator) -> Instance:
    fw = rng.integers(1, 100, length).tolist()
    x = rng.integers(1, 1000, length + 1).tolist()
    xbar = [None] + [int(v * rng.uniform(1, 2)) for v in x[1:]]
    probe = Instance.create(fw, [2 * f for f in fw] + [1], x, xbar, 2**50)
    return probe.with_memory(max(memory_lower_bound(probe), store_all_peak(probe) // 3))


def dp_time(quick: bool) -> None:
    lengths = (10, 25, 50, 100) if quick else (10, 25, 50, 100, 200)
    slot_counts = (50, 100, 250) if quick else (50, 100, 250, 500, 1000)
    rng = np.random.default_rng(0)
    print("\n### DP time (s) vs L (rows) and S slots (columns), one run each\n")
    print("| L | " + " | ".join(f"S={s}" for s in slot_counts) + " |")
    print("|---|" + "---|" * len(slot_counts))
    for length in lengths:
        instance = random_chain(length, rng)
        cells = []
        for slots in slot_counts:
            if length * length * length * slots > 2.1e9:
                cells.append("-")
                continue
            started = time.perf_counter()
            persistent_dp(instance, slots)
            cells.append(f"{time.perf_counter() - started:.2f}")
        print(f"| {length} | " + " | ".join(cells) + " |", flush=True)


def overhead(quick: bool, only: str | None = None) -> None:
    budgets = (0.5, 0.9) if quick else (0.3, 0.5, 0.7, 0.9)
    networks = NETWORKS[:3] if quick else NETWORKS
    print("\n### Overhead (% of Σfw+Σbw) per method and budget; last columns: best bound, gap of the best method\n")
    print("| chain | budget | M/peak | " + " | ".join(METHODS) + " | bound | best gap |")
    print("|---|---|---|" + "---|" * (len(METHODS) + 2))
    chains = [(network, budget) for network in (*networks, "kineto-resnet50") for budget in budgets]
    for network, budget in chains:
        if only is not None and only not in network:
            continue
        if network == "kineto-resnet50":
            instance = import_kineto(SHARED / "kineto" / "resnet50_v100_workers0.pt.trace.json.gz", budget=budget)
        else:
            instance = import_pipedream(SHARED / "pipedream" / f"{network}.graph.txt", budget=budget)
        base = instance.compute_time
        cells, best = [], None
        for method in METHODS:
            result = hpcsched.solve(instance, method, time_limit=120)
            if result.status.has_solution:
                cells.append(f"{100 * (result.objective - base) / base:.1f}")
                best = result.objective if best is None else min(best, result.objective)
            else:
                cells.append("—")
        bound = bounds.best(instance)
        ratio = instance.memory / instance.source["store_all_peak"]
        gap = f"{100 * (best - bound) / best:.1f}%" if best else "—"
        print(
            f"| {network} L={instance.length} | {budget} | {ratio:.2f} | "
            + " | ".join(cells)
            + f" | {100 * (bound - base) / base:.1f} | {gap} |",
            flush=True,
        )


def persistent(quick: bool) -> None:
    rng = np.random.default_rng(1)
    trials = 100 if quick else 400
    worse, ratios, by_length = 0, [], {}
    for _ in range(trials):
        length = int(rng.integers(1, 6))
        fw = rng.integers(0, 7, length).tolist()
        x = rng.integers(0, 5, length + 1).tolist()
        xbar = [None] + [x[i] + int(rng.integers(0, 3)) for i in range(1, length + 1)]
        probe = Instance.create(fw, rng.integers(0, 7, length + 1).tolist(), x, xbar, 10**6)
        memory = int(rng.integers(memory_lower_bound(probe), store_all_peak(probe) + 1))
        instance = probe.with_memory(memory)
        optimum = shortest_sequence(instance)[0]
        plan = persistent_dp(instance)
        count = by_length.setdefault(length, [0, 0])
        count[0] += 1
        if plan.time is not None and plan.time > optimum:
            worse += 1
            count[1] += 1
            ratios.append(plan.time / optimum - 1)
    print(f"\n### Persistent (dp) vs all sequences (brute force), {trials} random chains L = 1..5\n")
    print(f"- persistent optimum strictly worse on {worse}/{trials} ({100 * worse / trials:.0f} %)")
    if ratios:
        print(f"- excess when worse: mean {100 * statistics.mean(ratios):.1f} %, max {100 * max(ratios):.1f} %")
    print("- by L: " + ", ".join(f"L={k}: {v[1]}/{v[0]}" for k, v in sorted(by_length.items())))
    unit = Instance.create([1] * 5, [1] * 6, [1] * 6, [None] + [1] * 5, 5)
    print(
        f"- unit chain L=5, rotor M=4: persistent {persistent_dp(unit).time}, all sequences "
        f"{shortest_sequence(unit)[0]}"
    )


PCIE3 = 12_000.0  # bytes per µs, as the offload package's pcie3 instances
TWO_LEVEL_NETWORKS = ("alexnet", "vgg16", "resnet18", "gnmt", "squeezenet1_0")
TWO_LEVEL_BUDGETS = (0.9, 0.7, 0.5, 0.4, 0.3, 0.2)


def two_levels(quick: bool, only: str | None = None) -> None:
    """Remat only (dp) vs offload only (offload-greedy without recomputation, and the offload package's cpsat
    on `to_offload_instance`) vs both (offload-greedy), overheads over Σfw + Σbw, PCIe 3 link."""
    from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason
    from hpcsched.checkpoint.offload_mapping import to_offload_instance

    def pct(result) -> str:
        if not result.status.has_solution:
            return "—"
        return f"{100 * (result.objective - compute) / compute:.1f}"

    print(
        "\n| chain | M / store-all peak | remat only (dp) | offload only (greedy) | offload pkg cpsat 10 s "
        "(mapping) | both (offload-greedy) | remat overhead removed | both: time (s) | both (offload-dp) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for network in TWO_LEVEL_NETWORKS:
        if only and only not in network:
            continue
        chain = import_pipedream(SHARED / "pipedream" / f"{network}.graph.txt", budget=0.9)
        timed = Instance.create(
            [max(1, t) for t in chain.fw],
            [max(1, t) for t in chain.bw],
            list(chain.x),
            [None, *chain.xbar[1:]],
            chain.memory,
            ftmp=list(chain.ftmp),
            btmp=list(chain.btmp),
            name=network,
        )
        two = timed.with_link(bandwidth_out=PCIE3, bandwidth_in=PCIE3)
        compute = two.compute_time
        peak, floor = store_all_peak(two), offload_memory_lower_bound_with_reason(two)[0]
        seen = set()
        for budget in TWO_LEVEL_BUDGETS[:3] if quick else TWO_LEVEL_BUDGETS:
            memory = max(floor, int(budget * peak))
            if memory in seen:
                continue
            seen.add(memory)
            instance = two.with_memory(memory)
            remat = hpcsched.solve(instance, "dp", time_limit=120)
            offload = hpcsched.solve(instance, "offload-greedy", time_limit=120, recompute=False)
            package = hpcsched.solve(to_offload_instance(instance), "cpsat", time_limit=10)
            started = time.perf_counter()
            both = hpcsched.solve(instance, "offload-greedy", time_limit=120)
            elapsed = time.perf_counter() - started
            ours = hpcsched.solve(instance, "offload-dp", time_limit=120)
            removed = "—"
            if remat.status.has_solution and both.status.has_solution and remat.objective > compute:
                removed = f"{100 * (remat.objective - both.objective) / (remat.objective - compute):.0f} %"
            package_text = (
                pct(package) if not package.status.has_solution else f"{pct(package)} ({package.status.value.lower()})"
            )
            print(
                f"| {network} | {memory / peak:.2f}{' (floor)' if memory == floor else ''} | {pct(remat)} | "
                f"{pct(offload)} | {package_text} | {pct(both)} | {removed} | {elapsed:.1f} | {pct(ours)} |",
                flush=True,
            )


def small_two_level(rng: np.random.Generator, homogeneous: bool) -> Instance:
    """A chain of 1..3 stages with a host link in a random mode, at a budget from the two-level floor to the peak."""
    from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason

    length = int(rng.integers(1, 4))
    if homogeneous:
        size, forward = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        fw, x, xbar = [forward] * length, [size] * (length + 1), [None] + [size] * length
        ftmp, btmp = [0] * length, [0] * (length + 1)
    else:
        fw, x = rng.integers(1, 5, length).tolist(), rng.integers(1, 5, length + 1).tolist()
        xbar = [None] + [x[i] + int(rng.integers(0, 2)) for i in range(1, length + 1)]
        ftmp, btmp = rng.integers(0, 2, length).tolist(), rng.integers(0, 2, length + 1).tolist()
    probe = Instance.create(fw, rng.integers(1, 5, length + 1).tolist(), x, xbar, 10**6, ftmp=ftmp, btmp=btmp)
    modes = [None, 1, 2, 4]
    probe = probe.with_link(
        bandwidth_out=modes[int(rng.integers(0, 4))],
        bandwidth_in=modes[int(rng.integers(0, 4))],
        latency=int(rng.integers(0, 3)),
        duplex=("full", "half")[int(rng.integers(0, 2))],
    )
    low, high = offload_memory_lower_bound_with_reason(probe)[0], store_all_peak(probe)
    return probe.with_memory(int(rng.integers(low, max(low, high) + 1)))


def two_level_exact(quick: bool) -> None:
    """brute-force-offload vs cpsat-offload (agreement, time), and the gaps of offload-greedy, remat only
    (the chain's exhaustive optimum) and, on homogeneous chains, h-revolve, to the two-level optimum."""
    rng = np.random.default_rng(23)
    trials = 20 if quick else 100
    agree = disagree = unproven = 0
    seconds: list[float] = []
    gaps: dict[str, list[float]] = {"offload-greedy": [], "remat only": [], "h-revolve": []}
    for trial in range(2 * trials):
        homogeneous = trial % 2 == 1
        instance = small_two_level(rng, homogeneous)
        started = time.perf_counter()
        exact = hpcsched.solve(instance, "brute-force-offload", time_limit=600, max_states=500_000)
        seconds.append(time.perf_counter() - started)
        if exact.status is not hpcsched.Status.OPTIMAL:
            unproven += 1
            continue
        other = hpcsched.solve(instance, "cpsat-offload", time_limit=600, deterministic_time=60.0, workers=1)
        if other.status is hpcsched.Status.OPTIMAL:
            agree, disagree = (
                agree + (other.objective == exact.objective),
                disagree + (other.objective != exact.objective),
            )
        optimum = exact.objective
        greedy = hpcsched.solve(instance, "offload-greedy", time_limit=60)
        if greedy.objective is not None:
            gaps["offload-greedy"].append(greedy.objective / optimum - 1)
        try:
            remat = shortest_sequence(instance.as_chain())
        except Exception:
            remat = None  # below the remat-only floor
        if remat is not None:
            gaps["remat only"].append(remat[0] / optimum - 1)
        if homogeneous:
            revolve = hpcsched.solve(instance, "h-revolve", time_limit=60)
            if revolve.objective is not None:
                gaps["h-revolve"].append(revolve.objective / optimum - 1)
    print(f"\n### Two-level exact methods, {2 * trials} random chains L = 1..3 (half homogeneous), every link mode\n")
    print(
        f"- brute-force-offload proved {2 * trials - unproven}; cpsat-offload proved and agreed on {agree}, "
        f"disagreed on {disagree}"
    )
    print(f"- brute-force-offload time: median {statistics.median(seconds):.2f} s, max {max(seconds):.1f} s")
    print("\n| method | chains answered | at the optimum | mean gap | max gap |\n|---|---|---|---|---|")
    for name, values in gaps.items():
        if values:
            at = sum(1 for v in values if v == 0)
            print(
                f"| {name} | {len(values)} | {at} | {100 * statistics.mean(values):.1f} % | {100 * max(values):.1f} % |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--part", default="all", choices=("dp", "overhead", "persistent", "twolevels", "twoexact", "all")
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=None, help="overhead part: only chains whose name contains this")
    args = parser.parse_args()
    if args.part in ("persistent", "all"):
        persistent(args.quick)
    if args.part in ("dp", "all"):
        dp_time(args.quick)
    if args.part in ("overhead", "all") and SHARED.is_dir():
        overhead(args.quick, args.only)
    if args.part in ("twolevels", "all") and SHARED.is_dir():
        two_levels(args.quick, args.only)
    if args.part in ("twoexact", "all"):
        two_level_exact(args.quick)


if __name__ == "__main__":
    main()
