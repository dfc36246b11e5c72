"""Build notebooks/locality.ipynb (run from the repository root, then execute with pytest --nbmake)."""

import nbformat as nbf

cells = []
md = lambda text: cells.append(nbf.v4.new_markdown_cell(text))
code = lambda text: cells.append(nbf.v4.new_code_cell(text))

md("""# locality: tasks with replicated inputs — heuristics versus optimum versus theory

Three questions from the spec (Beaumont, Lambert, Marchal, Thomas, FGCS 2020):

1. For **unit tasks**, how far is the optimal local makespan from the perfect balance ⌈n/m⌉ when every
   task has r = 1, 2, 3 random replicas? Theory: with r = 1 it is a balls-into-bins maximum; with
   r ≥ 2 it is ⌈n/m⌉ or ⌈n/m⌉ + 1 with high probability. The greedy least-loaded replica
   (power of r choices) is compared with its own prediction n/m + ln ln m / ln r.
2. Under **objective 2** (no idle time), how many tasks does Hadoop's greedy run non-locally,
   against the optimum of the quota flow?
3. For **heterogeneous tasks** (NP-hard), the gap of each heuristic to the CP-SAT optimum.

Every method is called through `run_method`, so every solution shown passed the independent validator.""")

code("""import math
import warnings

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from hpcsched.core.registry import run_method
from hpcsched.locality import bounds, generate_uniform

warnings.filterwarnings("ignore")
%matplotlib inline""")

md("## 1. OPT − ⌈n/m⌉ over seeds, r = 1, 2, 3 (unit tasks, objective 1)")
code("""n, m, seeds = 5000, 500, range(20)
excess = {r: [] for r in (1, 2, 3)}
greedy_excess = {r: [] for r in (1, 2, 3)}
for r in (1, 2, 3):
    for seed in seeds:
        instance = generate_uniform(seed=seed, n=n, m=m, r=r)
        optimum = run_method(instance, "semi-matching")
        greedy = run_method(instance, "least-loaded")
        assert optimum.status.value == "OPTIMAL" and greedy.objective >= optimum.objective
        excess[r].append(optimum.objective - math.ceil(n / m))
        greedy_excess[r].append(greedy.objective - math.ceil(n / m))
for r in (1, 2, 3):
    print(f"r={r}: OPT - ceil(n/m) values {sorted(set(excess[r]))}, mean {np.mean(excess[r]):.2f}; "
          f"greedy mean {np.mean(greedy_excess[r]):.2f}")""")
code("""fig, axes = plt.subplots(1, 2, figsize=(11, 4))
positions = np.arange(3)
axes[0].boxplot([excess[r] for r in (1, 2, 3)], positions=positions, widths=0.4)
predicted = [bounds.optimal_excess_prediction(n, m, r) for r in (1, 2, 3)]
axes[0].plot(positions, predicted, "r^", label="prediction (balls-into-bins for r=1, 0 for r>=2)")
axes[0].set_xticks(positions, [f"r={r}" for r in (1, 2, 3)])
axes[0].set_ylabel("OPT - ceil(n/m)")
axes[0].set_title(f"optimal semi-matching, n={n}, m={m}, {len(seeds)} seeds")
axes[0].legend(fontsize=8)
axes[1].boxplot([greedy_excess[r] for r in (1, 2, 3)], positions=positions, widths=0.4)
greedy_prediction = [bounds.power_of_choices_max_load(n, m, r) - math.ceil(n / m) for r in (1, 2, 3)]
axes[1].plot(positions, greedy_prediction, "r^", label="n/m + ln ln m / ln r (r=1: balls-into-bins)")
axes[1].set_xticks(positions, [f"r={r}" for r in (1, 2, 3)])
axes[1].set_ylabel("greedy - ceil(n/m)")
axes[1].set_title("least-loaded replica (power of r choices)")
axes[1].legend(fontsize=8)
fig.tight_layout()""")
md("""With r ≥ 2 every optimum above is exactly ⌈n/m⌉ or one more, as the theory predicts; with r = 1 the
assignment is forced and the excess follows the balls-into-bins maximum. The greedy power-of-choices stays a
few units above the optimum, close to its ln ln m / ln r prediction (predictions are asymptotic
orders, not proofs; they are drawn for comparison only).""")

md("## 2. Greedy versus optimal non-local fraction (objective 2, unit tasks, no idle)")
code("""rows = []
for r in (1, 2, 3):
    for load in (2, 5, 10):
        m2 = 100
        values = {"hadoop-greedy": [], "delay-scheduling": [], "quota-flow": []}
        for seed in range(5):
            instance = generate_uniform(seed=seed, n=load * m2, m=m2, r=r, objective="communication")
            for method in values:
                options = {"delay": 3} if method == "delay-scheduling" else {}
                result = run_method(instance, method, **options)
                assert result.status.value in ("OPTIMAL", "FEASIBLE")
                values[method].append(result.kpis["nonlocal_fraction"])
        rows.append((r, load, *(np.mean(v) for v in values.values())))
print("r  n/m  greedy  delay(3)  optimal")
for row in rows:
    print(f"{row[0]}  {row[1]:3d}  {row[2]:.3f}   {row[3]:.3f}     {row[4]:.3f}")""")
code("""fig, axis = plt.subplots(figsize=(7, 4))
for index, (label, style) in enumerate([("Hadoop greedy", "o-"), ("delay scheduling (D=3, repaired)", "s--"), ("optimal (quota flow)", "^-")]):
    for r, color in zip((1, 2, 3), ("tab:red", "tab:blue", "tab:green")):
        xs = [row[1] for row in rows if row[0] == r]
        ys = [row[2 + index] for row in rows if row[0] == r]
        axis.plot(xs, ys, style, color=color, label=f"{label}, r={r}", alpha=0.8)
axis.set_xlabel("tasks per server n/m")
axis.set_ylabel("non-local fraction")
axis.legend(fontsize=7, ncol=2)
axis.set_title("objective 2: greedy vs optimal non-local fraction (m=100, 5 seeds)")
fig.tight_layout()""")
md("""The optimum (quota flow) is near zero as soon as r ≥ 2, while the greedy strategy still runs a few percent
of the tasks remotely: at the end of the schedule, idle servers steal remote work that a smarter plan would have
kept local. Delay scheduling waits for local work; its idle time is forbidden by the no-idle rule, so its queues
are repaired back to back (see the method's notes for the idle time it introduced).""")
code("""instance = generate_uniform(seed=0, n=1000, m=100, r=2, objective="communication")
for delay in (0, 1, 3, 10):
    result = run_method(instance, "delay-scheduling", delay=delay)
    print(f"D={delay:2d}: non-local {result.objective:4.0f}  |  " + " | ".join(result.notes))""")

md("## 3. Heuristic gaps on heterogeneous tasks (objective 1, lognormal durations)")
code("""heuristic_names = ["random-local", "least-loaded", "lpt", "fewest-choices", "plan-then-execute"]
gaps = {name: [] for name in heuristic_names}
for seed in range(8):
    instance = generate_uniform(seed=seed, n=40, m=8, r=2, durations="lognormal", sigma=1.0)
    optimum = run_method(instance, "cpsat", time_limit=10)
    assert optimum.status.value == "OPTIMAL"
    lower = bounds.best(instance)
    assert lower <= optimum.objective
    for name in heuristic_names:
        result = run_method(instance, name)
        assert result.objective >= optimum.objective
        gaps[name].append((result.objective - optimum.objective) / optimum.objective)
for name in heuristic_names:
    print(f"{name:18s} mean gap {100 * np.mean(gaps[name]):5.1f}%  max {100 * np.max(gaps[name]):5.1f}%")""")
code("""fig, axis = plt.subplots(figsize=(7, 3.5))
axis.boxplot([100 * np.asarray(gaps[name]) for name in heuristic_names], widths=0.5)
axis.set_xticks(range(1, len(heuristic_names) + 1), heuristic_names, rotation=15)
axis.set_ylabel("gap to CP-SAT optimum (%)")
axis.set_title("heterogeneous tasks, n=40, m=8, r=2, 8 seeds")
fig.tight_layout()""")
md("""Clairvoyant LPT restricted to replicas is the best of the cheap heuristics; the online least-loaded
replica and the random choice pay for ignoring durations. The unit-task plan (plan-then-execute) balances
task *counts*, not work, and relies on stealing to recover.""")

md("## Shipped instances: best heuristic versus proven optimum")
code("""import json
from pathlib import Path
from hpcsched.core.io import read_instance

folder = Path("../instances/locality") if Path("../instances/locality").exists() else Path("instances/locality")
solved = json.loads((folder / "solved.json").read_text())
for file_name, record in sorted(solved.items()):
    instance = read_instance(folder / file_name)
    names = (heuristic_names if instance.objective == "makespan" else ["hadoop-greedy", "delay-scheduling", "plan-then-execute"])
    best = min((run_method(instance, name) for name in names), key=lambda result: result.objective)
    print(f"{file_name:36s} optimum {record['objective']:7.0f}  best heuristic {best.method:18s} {best.objective:7.0f}")""")

notebook = nbf.v4.new_notebook()
notebook["cells"] = cells
notebook["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(notebook, "notebooks/locality.ipynb")
