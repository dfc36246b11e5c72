"""Create notebooks/offload.ipynb (run from the repository root, then execute with nbmake)."""

from pathlib import Path

import nbformat as nbf

cells = [
    nbf.v4.new_markdown_cell(
        "# offload: heuristics versus optimum and lower bound on real networks\n\n"
        "Activation offloading during DNN training (see `docs/offload.md`). The instances are the shipped "
        "PipeDream profiles (`instances/offload/`, no access to `../shared/data` needed): VGG16 and "
        "SqueezeNet on a PCIe 3.0 link at three memory budgets (fractions of the no-offload peak). "
        "Every method is called through `run_method`, so every schedule is checked by the independent "
        "validator. The best known value and proven bound come from `instances/offload/solved.json` "
        "(method `cpsat`, 20-60 s per instance; the `options` of an entry, if any, say how it was run)."),
    nbf.v4.new_code_cell(
        "import json\nfrom pathlib import Path\n\nimport matplotlib\nmatplotlib.use('Agg')\n"
        "import matplotlib.pyplot as plt\n\nfrom hpcsched.core.io import read_instance\n"
        "from hpcsched.core.registry import run_method\n\n"
        "root = Path.cwd()\nwhile not (root / 'instances' / 'offload').exists():\n    root = root.parent\n"
        "folder = root / 'instances' / 'offload'\nsolved = json.loads((folder / 'solved.json').read_text())\n"
        "METHODS = ['offload-all', 'vdnn-conv', 'greedy-size', 'greedy-hideability', 'dp', 'lp-rounding', 'local-search']"),
    nbf.v4.new_code_cell(
        "rows = []\nfor network, budgets in [('vgg16', (90, 60, 40)), ('squeezenet1_0', (90, 60, 40))]:\n"
        "    for budget in budgets:\n        name = f'{network}-pcie3-{budget}.json'\n"
        "        instance = read_instance(folder / name)\n        best = solved[name]\n"
        "        for method in METHODS:\n"
        "            result = run_method(instance, method, time_limit=1.0, seed=0)\n"
        "            assert result.status.value in ('FEASIBLE', 'OPTIMAL'), (name, method, result.notes)\n"
        "            rows.append((network, budget, method, result.objective, best['objective'], best['bound'],\n"
        "                         instance.compute_time))\n"
        "print(f\"{'instance':22s} {'method':19s} {'overhead %':>10s} {'vs best %':>9s} {'gap to bound %':>14s}\")\n"
        "for network, budget, method, value, best_value, bound, compute in rows:\n"
        "    print(f'{network + \"-\" + str(budget):22s} {method:19s} {100 * (value - compute) / compute:10.1f} '\n"
        "          f'{100 * (value - best_value) / best_value:9.1f} {100 * (value - bound) / value:14.1f}')"),
    nbf.v4.new_markdown_cell(
        "Overhead (makespan / compute time - 1) versus budget per method, with the best known schedule "
        "(`cpsat`) and the proven lower bound (max of compute, transfer and LP bounds, and CP-SAT's bound)."),
    nbf.v4.new_code_cell(
        "fig, axes = plt.subplots(1, 2, figsize=(12, 4))\n"
        "for ax, network in zip(axes, ['vgg16', 'squeezenet1_0']):\n"
        "    mine = [r for r in rows if r[0] == network]\n    budgets = sorted({r[1] for r in mine})\n"
        "    for method in METHODS:\n"
        "        ax.plot(budgets, [100 * (r[3] - r[6]) / r[6] for b in budgets for r in mine if r[1] == b and r[2] == method],\n"
        "                marker='o', label=method)\n"
        "    first = {b: next(r for r in mine if r[1] == b) for b in budgets}\n"
        "    ax.plot(budgets, [100 * (first[b][4] - first[b][6]) / first[b][6] for b in budgets], 'k-', lw=2, label='best known (cpsat)')\n"
        "    ax.plot(budgets, [100 * (first[b][5] - first[b][6]) / first[b][6] for b in budgets], 'k--', label='proven lower bound')\n"
        "    ax.set_title(f'{network}, PCIe 3.0'); ax.set_xlabel('budget (% of no-offload peak)'); ax.set_ylabel('overhead %')\n"
        "    ax.set_yscale('symlog')\naxes[0].legend(fontsize=7)\nfig.tight_layout()\nplt.show()"),
    nbf.v4.new_markdown_cell("The best local-search schedule of VGG16 at 60 %: compute stream, both channels, memory against the budget."),
    nbf.v4.new_code_cell(
        "from hpcsched.offload import plot_solution\ninstance = read_instance(folder / 'vgg16-pcie3-60.json')\n"
        "result = run_method(instance, 'local-search', time_limit=1.0)\n"
        "import tempfile, os\npicture = os.path.join(tempfile.mkdtemp(), 'offload_vgg16.png')\nplot_solution(instance, result.solution, picture)\n"
        "from IPython.display import Image\nImage(picture)"),
]
notebook = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
Path("notebooks").mkdir(exist_ok=True)
nbf.write(notebook, "notebooks/offload.ipynb")
