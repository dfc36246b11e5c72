"""Writes notebooks/study.ipynb (without outputs; execute it with nbclient or pytest --nbmake)."""
from pathlib import Path

import nbformat as nbf

cells = []
md = lambda s: cells.append(nbf.v4.new_markdown_cell(s))
code = lambda s: cells.append(nbf.v4.new_code_cell(s))

md("""# A small study, end to end

This notebook runs a small *study* with the experiments engine of hpcsched —
generated instances × methods × a time limit — and reports it: gap table,
Dolan–Moré performance profiles, gap versus size.

It uses the **transfers** problem (ordering data transfers under a memory limit)
when it is installed. When it is not (a checkout without the problem packages),
it falls back to the engine's toy problem (`hpcsched.experiments.toy`, loaded as
a plugin) and says so below, so that the notebook always runs.

Every run goes through `run_method` (solutions validated, objectives recomputed)
in a child process with a hard deadline; the results file is appended row by row
and a second `run_study` skips what is recorded.""")

code("""import tempfile
from pathlib import Path

from IPython.display import Image, Markdown, display

from hpcsched.core.registry import get_problem, methods, problem_names
from hpcsched.experiments import load_plugins, load_study, read_rows, run_study
from hpcsched.experiments.report import markdown_table, report

SIZES = [5, 7, 9]
SEEDS = [0, 1]
TIME_LIMIT = 10


def pick_problem():
    \"\"\"transfers when installed and its generator works at these sizes; else the toy plugin.\"\"\"
    if "transfers" in problem_names():
        problem = get_problem("transfers")
        family = "uniform" if "uniform" in problem.generators else sorted(problem.generators)[0]
        try:
            problem.generators[family](seed=0, n=SIZES[0])
            return problem, family, []
        except Exception as error:  # report it, then fall back
            print(f"transfers generator '{family}' failed ({error}); using the toy problem")
    load_plugins(["hpcsched.experiments.toy"])
    return get_problem("toy"), "uniform", ["hpcsched.experiments.toy"]


problem, family, plugins = pick_problem()
registered = methods(problem.name)
# The default exact method, every special case, three heuristics and the
# baselines -- leaving out the toy problem's methods that misbehave on purpose.
usable = [m for m in registered if m.name not in ("boom", "bad", "die", "hang", "sleep")]
chosen = (
    [problem.default_method]
    + [m.name for m in usable if m.kind == "special"]
    + [m.name for m in usable if m.kind == "heuristic"][:3]
    + [m.name for m in usable if m.kind == "baseline"]
)
print(f"problem: {problem.name}, family: {family}, methods: {', '.join(chosen)}")""")

md("""## The study file

A study is a TOML file (schema in `docs/study.md`). Here it is written from the
choices above into a scratch folder.""")

code("""folder = Path(tempfile.mkdtemp(prefix="hpcsched-study-"))
lines = [
    'name = "notebook"',
    'results = "results.csv"',
    f"time_limits = [{TIME_LIMIT}]",
    "seeds = [0]",
    "jobs = 1",
    f"plugins = {plugins!r}".replace("'", '"'),
    "",
    "[[instances]]",
    f'problem = "{problem.name}"',
    f'family = "{family}"',
    f"seeds = {SEEDS}",
    f"sweep = {{ n = {SIZES} }}",
]
for name in chosen:
    lines += ["", "[[methods]]", f'name = "{name}"']
study_file = folder / "study.toml"
study_file.write_text("\\n".join(lines) + "\\n")
print(study_file.read_text())""")

md("""## Run it, then run it again (everything is recorded: nothing reruns)

A special case asked on an instance outside its class answers NOT_APPLICABLE
(no solution); that is an outcome, not an error.""")

code("""study = load_study(study_file)
first = run_study(study, progress=False)
again = run_study(study, progress=False)
print(f"first pass: {first.ran} runs; second pass: {again.ran} runs, {again.skipped} skipped")
assert again.ran == 0 and again.skipped == first.ran
rows = read_rows(study.results)
assert len(rows) == first.ran
assert not [row for row in rows if row["status"] == "ERROR"], [row["error"] for row in rows if row["status"] == "ERROR"]""")

code("""# Gaps are only honest if no method beats a proven bound: check it on every row.
for row in rows:
    if row["bound"] is not None and row["objective"] is not None:
        assert row["bound"] <= row["objective"] + 1e-6 * max(1.0, abs(row["objective"])), row
display(Markdown("| instance | method | status | objective | bound | time (s) |\\n|---|---|---|---|---|---|\\n" + "\\n".join(
    f"| {r['instance']} | {r['method']} | {r['status']} | {'–' if r['objective'] is None else format(r['objective'], 'g')} | "
    f"{'–' if r['bound'] is None else format(r['bound'], 'g')} | {r['runtime_s']:.3f} |"
    for r in sorted(rows, key=lambda r: (r['size'], r['instance'], r['method']))[:30]
)))""")

md("## The report")

code("""written = report(study.results, folder / "report")
display(Markdown(markdown_table(written.table)))
for figure in written.figures:
    display(Image(filename=str(figure)))""")

md("""The gap of a run is measured against the best *proven* lower bound any method
found on that instance, so a heuristic without bounds of its own is charged
honestly; the ratio is to the best known objective. `hpcsched study report
results.csv` writes the same Markdown and figures from the command line.""")

code("""import shutil

shutil.rmtree(folder)  # the scratch folder of this notebook""")

nb = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbf.write(nb, Path(__file__).resolve().parents[2] / "notebooks" / "study.ipynb")
