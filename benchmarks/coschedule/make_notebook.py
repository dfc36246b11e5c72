"""Build notebooks/coschedule.ipynb with nbformat (then execute it with pytest --nbmake)."""

from pathlib import Path

import nbformat as nbf

ROOT = Path(__file__).resolve().parents[2]

cells = [
    nbf.v4.new_markdown_cell(
        "# coschedule: co-scheduling GPU kernels, heuristics vs optimum\n\n"
        "Shipped instances mix kernels of two or three real applications (Orion per-kernel CSVs, V100; "
        "PyTorch profiler traces) with pair rates from the SM-share × memory-contention model, and Gavel "
        "job mixes with **measured** co-location rates. Everything runs through `run_method`, so every "
        "schedule below passed the independent validator.\n\n"
        "Numbers to stand beside (Eyraud-Dubois & Bentes, HiPC 2020): the optimal preemptive makespan is "
        "reached preempting **6–9%** of the tasks; their non-preemptive method is within **2.5%** of the "
        "preemptive optimum, previous approaches **5–12%**. Our instances are not theirs (their rates were "
        "measured per kernel pair; ours are modelled or job-level), so compare orders of magnitude, not digits."
    ),
    nbf.v4.new_code_cell(
        "import json, time\n"
        "from pathlib import Path\n"
        "import matplotlib\n"
        "matplotlib.use('Agg')\n"
        "import matplotlib.pyplot as plt\n"
        "from hpcsched.core.io import read_instance\n"
        "from hpcsched.core.registry import run_method\n"
        "import hpcsched.coschedule as cs\n"
        "folder = Path('..') / 'instances' / 'coschedule'\n"
        "if not folder.is_dir():\n"
        "    folder = Path('instances') / 'coschedule'\n"
        "names = ['orion-n6', 'gavel-v100-n6', 'orion-n10', 'gavel-v100-n10', 'orion-n20', 'gavel-v100-n20', 'kineto-n20', 'orion-n50', 'gavel-v100-n50']\n"
        "instances = {name: read_instance(folder / f'{name}.json') for name in names}\n"
        "{name: (inst.n, len(inst.pairs), inst.source.get('rate_model')) for name, inst in instances.items()}"
    ),
    nbf.v4.new_markdown_cell(
        "## Preemptive optimum and the preempted fraction\n\n"
        "`lp-preemptive` solves the LP (HiGHS) and orders the phases of its basic solution along "
        "caterpillar spines; `milp-min-preemptions` (n ≤ 6 here) finds the fewest preemptions among all "
        "schedules of optimal makespan."
    ),
    nbf.v4.new_code_cell(
        "rows = []\n"
        "lp = {}\n"
        "for name, inst in instances.items():\n"
        "    result = run_method(inst, 'lp-preemptive')\n"
        "    lp[name] = result\n"
        "    row = {'instance': name, 'n': inst.n, 'LP makespan': round(result.objective, 1), 'status': result.status.value,\n"
        "           'preemptions': int(result.kpis['preemptions']), 'preempted %': round(100 * result.kpis['preempted_fraction'], 1)}\n"
        "    if inst.n <= 6:\n"
        "        best = run_method(inst, 'milp-min-preemptions', time_limit=10)\n"
        "        row['min preemptions (MILP)'] = int(best.kpis['preemptions'])\n"
        "    rows.append(row)\n"
        "for row in rows:\n"
        "    print(row)\n"
        "mean_preempted = sum(r['preempted %'] for r in rows) / len(rows)\n"
        "print(f'mean preempted fraction: {mean_preempted:.1f}% (paper: 6-9%)')"
    ),
    nbf.v4.new_markdown_cell(
        "## Non-preemptive methods: ratio to the preemptive optimum\n\n"
        "Ratio = makespan / LP optimum (≥ 1; the LP bounds every non-preemptive schedule). `fifo` is the "
        "hardware queue with the leftover policy in submission order; `milp` is the exact non-preemptive "
        "MILP (run here for n = 6 only, where it proves the optimum in about a second; see the benchmark for larger n)."
    ),
    nbf.v4.new_code_cell(
        "methods = ['serial', 'fifo', 'spt', 'lpt', 'greedy-partner', 'matching-paired', 'matching-list', 'lp-merge', 'local-search']\n"
        "ratios = {m: {} for m in methods + ['milp']}\n"
        "for name, inst in instances.items():\n"
        "    for method in methods + (['milp'] if inst.n <= 6 else []):\n"
        "        result = run_method(inst, method, time_limit=2 if method == 'milp' else 0.2)\n"
        "        assert result.status.value in ('OPTIMAL', 'FEASIBLE'), (name, method, result.notes)\n"
        "        ratios[method][name] = result.objective / lp[name].objective\n"
        "header = f\"{'method':16s}\" + ''.join(f'{n[:13]:>14s}' for n in names) + f\"{'mean %':>9s}\"\n"
        "print(header)\n"
        "for method, values in ratios.items():\n"
        "    cells = ''.join(f'{values[n]:14.4f}' if n in values else f\"{'-':>14s}\" for n in names)\n"
        "    mean = 100 * (sum(values.values()) / len(values) - 1)\n"
        "    print(f'{method:16s}{cells}{mean:9.2f}')"
    ),
    nbf.v4.new_code_cell(
        "fig, ax = plt.subplots(figsize=(10, 3.5))\n"
        "width = 0.08\n"
        "for k, method in enumerate(methods):\n"
        "    values = [100 * (ratios[method][n] - 1) for n in names]\n"
        "    ax.bar([i + k * width for i in range(len(names))], values, width, label=method)\n"
        "ax.axhline(2.5, color='black', linestyle='--', linewidth=0.8, label='paper: 2.5%')\n"
        "ax.set_xticks([i + 4 * width for i in range(len(names))], names, rotation=20, fontsize=8)\n"
        "ax.set_ylabel('% above preemptive optimum')\n"
        "ax.set_yscale('symlog', linthresh=1)\n"
        "ax.legend(fontsize=7, ncol=3)\n"
        "fig.tight_layout()"
    ),
    nbf.v4.new_markdown_cell("## Gantt charts (two lanes; grey = co-run, hatched = preempted kernel)"),
    nbf.v4.new_code_cell(
        "from IPython.display import Image, display\n"
        "inst = instances['gavel-v100-n10']\n"
        "for method in ('lp-preemptive', 'lp-merge', 'fifo'):\n"
        "    result = run_method(inst, method)\n"
        "    cs.plot_solution(inst, result.solution, f'/tmp/coschedule-{method}.png', title=f'{method}: makespan {result.objective:.0f} s, {int(result.kpis[\"preemptions\"])} preemptions')\n"
        "    display(Image(f'/tmp/coschedule-{method}.png'))"
    ),
    nbf.v4.new_markdown_cell(
        "## Reading the numbers\n\n"
        "- On the Orion and Kineto mixes most kernels are short and the SM-share model makes many pairs "
        "co-run at full speed, so the best heuristics reach the preemptive optimum (ratio 1.0000): the LP "
        "optimum is often p_max or an easily packed bound.\n"
        "- The Gavel job mixes (measured rates, few jobs) are the hard ones: the hardware FIFO is 11–58% "
        "above the preemptive optimum, LP-guided merge about 0.6–2%, local search (seeded from it) under 1%.\n"
        "- The preempted fraction of our LP order (0–17%, mean printed above; one kernel of six is 16.7%) is of the same order as the "
        "paper's 6–9%; on small instances the exact MILP shows how many preemptions are really needed."
    ),
]

notebook = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbf.write(notebook, ROOT / "notebooks" / "coschedule.ipynb")
print("wrote", ROOT / "notebooks" / "coschedule.ipynb")
