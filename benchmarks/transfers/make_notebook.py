"""Build notebooks/transfers.ipynb (run from the repository root, then execute it with nbmake)."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[2]

cells = [
    new_markdown_cell("""# transfers: heuristics versus optimum and lower bound as memory grows

Tasks copy their data to the device over one link, then compute on one device, holding their
footprint from transfer start to compute end; device memory is M. This notebook (executed by the
test suite, < 30 s) shows

1. makespan / lower bound of every heuristic as a function of M / max m on the **HF-like** and
   **CCSD-like** families (synthetic stand-ins: the paper's traces are not public);
2. the heuristics' gap to the proven optimum on small instances;
3. agreement of Johnson's rule with an exact method when memory is not binding (must be 100 %);
4. a Gantt chart with the memory profile of a shipped instance.

Every method is called through `run_method`, which validates each schedule."""),
    new_code_cell("""import statistics
from pathlib import Path

import matplotlib.pyplot as plt

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.transfers import HEURISTIC_METHODS, bounds
from hpcsched.transfers.generate import GENERATORS

ROOT = Path.cwd()
while not (ROOT / "instances").exists() and ROOT != ROOT.parent:
    ROOT = ROOT.parent
FACTORS = [1, 1.5, 2, 3, 5, 10]
QUICK = list(HEURISTIC_METHODS)
# the two searches run on a small budget so that the notebook stays fast
OPTIONS = {"ils": dict(max_evaluations=200), "iterated-greedy": dict(max_iterations=5)}"""),
    new_markdown_cell("""## 1. Makespan / lower bound versus memory

n = 30 tasks, 3 seeds per point; the lower bound is `bounds.best` (max of Johnson's F2 bound,
the memory-area bound and the conflict-clique bound), so a ratio of 1 is a proven optimum."""),
    new_code_cell("""ratios = {}
for family in ("hf-like", "ccsd-like"):
    for factor in FACTORS:
        for seed in range(3):
            instance = GENERATORS[family](seed=seed, n=30, memory_factor=factor)
            lower = bounds.best(instance)
            for method in QUICK:
                result = run_method(instance, method, **OPTIONS.get(method, {}))
                assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
                ratios.setdefault((family, method, factor), []).append(result.objective / lower)

figure, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=False)
for axis, family in zip(axes, ("hf-like", "ccsd-like")):
    for method in QUICK:
        axis.plot(FACTORS, [statistics.mean(ratios[(family, method, f)]) for f in FACTORS], marker="o", label=method)
    axis.set_xscale("log")
    axis.set_xticks(FACTORS, [str(f) for f in FACTORS])
    axis.set_xlabel("M / max m")
    axis.set_ylabel("makespan / lower bound")
    axis.set_title(family)
axes[1].legend(fontsize=7, ncol=2)
figure.tight_layout()"""),
    new_markdown_cell("""## 2. Gap to the proven optimum on small instances

Uniform and correlated instances with n = 8 at M = 1.5 max m; CP-SAT (10 s) gives the optimum.
Instances it does not prove are left out (and counted)."""),
    new_code_cell("""gaps, unproven = {m: [] for m in QUICK}, 0
for family in ("uniform", "correlated"):
    for seed in range(3):
        instance = GENERATORS[family](seed=seed, n=8, memory_factor=1.5)
        exact = run_method(instance, "cpsat", time_limit=10)
        if exact.status is not Status.OPTIMAL:
            unproven += 1
            continue
        for method in QUICK:
            result = run_method(instance, method, **OPTIONS.get(method, {}))
            assert result.objective >= exact.objective  # never better than the optimum
            gaps[method].append((result.objective - exact.objective) / exact.objective)
print(f"unproven instances left out: {unproven}")
print(f"{'heuristic':28s} mean gap  worst gap")
for method, values in gaps.items():
    print(f"{method:28s} {100 * statistics.mean(values):7.2f}%  {100 * max(values):7.2f}%")"""),
    new_markdown_cell("""## 3. Johnson's rule when memory is not binding

With M = Σ m (memory never binds) Johnson's schedule is optimal (F2||Cmax). We check it against
brute force over all transfer × compute orders (n = 5, *without* stopping at the lower bound, so
the check does not lean on Johnson's bound) and against CP-SAT with its default options."""),
    new_code_cell("""agree = total = 0
for family in GENERATORS:
    for seed in range(3):
        instance = GENERATORS[family](seed=seed, n=5, memory_factor="unlimited")
        johnson = run_method(instance, "johnson")
        brute = run_method(instance, "brute-force", stop_at_bound=False)
        cpsat = run_method(instance, "cpsat", time_limit=10)
        assert johnson.status is brute.status is cpsat.status is Status.OPTIMAL
        total += 1
        agree += johnson.objective == brute.objective == cpsat.objective
print(f"Johnson = brute force = CP-SAT on {agree}/{total} instances ({100 * agree / total:.0f} %)")
assert agree == total"""),
    new_markdown_cell("## 4. A schedule: Gantt chart (link, device) and memory profile"),
    new_code_cell("""instance = read_instance(ROOT / "instances" / "transfers" / "uniform-n10-m1.5-s2.json")
result = run_method(instance, "cpsat", time_limit=10)
print(result.status, result.objective, result.bound)
from hpcsched.core.registry import get_problem
get_problem("transfers").plot(instance, result.solution, "/tmp/transfers-gantt.png")
from IPython.display import Image
Image("/tmp/transfers-gantt.png")"""),
]

notebook = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbformat.write(notebook, ROOT / "notebooks" / "transfers.ipynb")
print("written", ROOT / "notebooks" / "transfers.ipynb")
