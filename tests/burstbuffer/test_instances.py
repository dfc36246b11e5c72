"""Shipped instances, solved.json regression, generators, plot, command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from reference import proven_optimum

from hpcsched import read_instance, solve
from hpcsched.burstbuffer import generate_mix, generate_periodic, plot_solution
from hpcsched.burstbuffer.generate import NODE_INJECTION, PROFILES, profile_application
from hpcsched.core.errors import InvalidInstanceError
from hpcsched.core.io import instance_sha256
from hpcsched.core.result import Status
from hpcsched.core.solved import read_solved

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "instances" / "burstbuffer"
SOLVED = read_solved(FOLDER / "solved.json")
# the regression replays the instances proven within a few seconds (see solved.json runtime_s)
FAST = sorted(name for name, entry in SOLVED.items() if entry.runtime_s < 2.0 and "trinity" not in name)


def test_every_shipped_instance_is_in_solved_json():
    shipped = {path.name for path in FOLDER.glob("*.json") if path.name != "solved.json"}
    assert shipped == set(SOLVED)


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_solved_entries_are_for_the_shipped_data(name):
    entry = SOLVED[name]
    assert entry.instance_sha256 == instance_sha256(read_instance(FOLDER / name))
    assert entry.status == "OPTIMAL" and entry.method == "exact" and entry.bound_method == "exact"


@pytest.mark.parametrize("name", FAST)
def test_exact_reproduces_solved_json(name):
    instance = read_instance(FOLDER / name)
    entry = SOLVED[name]
    # no effective wall-clock limit (issue 20): the bisection ends at its epsilon and the sizing solves
    # are small, so the proof is cheap and bounded; a loaded machine must not turn it into FEASIBLE
    result = solve(instance, entry.method, time_limit=3600, seed=entry.seed, **entry.options)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(entry.objective, rel=1e-6)
    assert result.bound <= entry.objective * (1 + 1e-6)


SHARING = sorted(name for name in SOLVED if read_instance(FOLDER / name).objective == "sharing")
#: Confirmed by the slow suite only: sharing-milp takes 3-5 s on these (a HiGHS run per bisection step, ~30
#: steps); the replay above still reproduces them by default, and the default confirmation covers the others.
SLOW_CONFIRMATIONS = {"intrepid-4profiles-sharing.json", "periodic-k6-load0.8-sharing.json"}


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_CONFIRMATIONS else []) for name in SHARING]
)
def test_a_second_exact_method_confirms_solved_json(name):
    # solved.json was written by sharing-dp, which the replay above re-runs: that only detects change.
    # sharing-milp solves the knapsacks of the bisection independently (HiGHS, not the DP), and brute
    # force enumerates every granule vector where K <= 4 and N <= 8; both must prove the same optimum.
    instance = read_instance(FOLDER / name)
    entry = SOLVED[name]
    methods = ["sharing-milp"]
    if instance.num_applications <= 4 and instance.platform.granules <= 8:
        methods.append("sharing-brute-force")
    for method in methods:
        result = solve(instance, method, time_limit=3600)
        assert result.status is Status.OPTIMAL, (method, result.notes)
        assert result.objective == pytest.approx(entry.objective, rel=1e-6), method
        # each proof brackets the other's answer
        assert result.bound <= entry.objective * (1 + 1e-9), method
        assert entry.bound <= result.objective * (1 + 1e-9), method


def test_brute_force_checks_a_shipped_instance():
    small = [
        instance
        for instance in map(read_instance, (FOLDER / name for name in SHARING))
        if instance.num_applications <= 4 and instance.platform.granules <= 8
    ]
    assert small  # the cross-check above does enumerate on at least one instance


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_every_shipped_instance_loads_with_known_keys_only(name):
    # the reader refuses unknown keys: the shipped files, and what generators write, must have none
    document = json.loads((FOLDER / name).read_text())
    instance = read_instance(FOLDER / name)
    assert instance.to_data() == document["data"]


def test_generators_write_known_keys_only(tmp_path):
    from hpcsched.core.io import write_instance

    for instance in [generate_mix(seed=3, n=4), generate_periodic(seed=3, n=4, objective="sizing-static")]:
        path = tmp_path / "generated.json"
        write_instance(instance, path)
        assert read_instance(path).to_data() == instance.to_data()


def test_profile_rates_follow_the_stated_assumption():
    app = profile_application("Turbulence1")
    assert app.nodes == 32768 // 4 and app.rate == pytest.approx(8192 * 1.25e9 / 64)
    assert pytest.approx(19.53125e6) == NODE_INJECTION
    assert set(PROFILES) == {"Turbulence1", "AstroPhysics", "Turbulence2", "PlasmaPhysics"}


def test_generators_are_seeded_and_hit_their_load():
    assert generate_mix(seed=4, n=5).to_data() == generate_mix(seed=4, n=5).to_data()
    assert generate_mix(seed=4, n=5).to_data() != generate_mix(seed=5, n=5).to_data()
    instance = generate_periodic(seed=1, n=7, load=0.65)
    assert instance.io_load == pytest.approx(0.65)
    assert instance.platform.granules == 16
    sized = proven_optimum(instance.with_objective("sizing-dynamic"), "sizing-dynamic-sweep")
    assert instance.platform.capacity == pytest.approx(0.5 * sized)


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: generate_mix(platform="summit"), "platform"),
        (lambda: generate_mix(n=0), "n"),
        (lambda: generate_mix(profiles=["Weather"]), "profiles[0]"),
        (lambda: generate_mix(horizon="long"), "horizon"),
        (lambda: generate_periodic(iterations=(3,)), "iterations"),
        (lambda: generate_periodic(capacity_fraction=None), "capacity_fraction"),
        (lambda: generate_periodic(load=-1), "load"),
        (lambda: generate_periodic(objective="fast"), "objective"),
        (lambda: generate_periodic(granules=0), "granules"),
    ],
)
def test_generators_reject_bad_parameters(call, field):
    with pytest.raises(InvalidInstanceError) as error:
        call()
    assert error.value.field == field


@pytest.mark.parametrize("method", ["sharing-dp", "dynamic-reference"])
def test_plot_draws_occupancy_and_timelines(tmp_path, method):
    from hpcsched.plotting import save_axes

    instance = read_instance(FOLDER / "periodic-k3-n8-sharing.json")
    result = solve(instance, method)
    ax = plot_solution(instance, result.solution)
    assert [label.get_text() for label in ax.get_yticklabels()] == [app.name for app in instance.applications]
    assert len(ax.figure.axes) == 2  # the occupancy panel above the timelines
    path = tmp_path / "plot.png"
    save_axes(ax, path)
    assert path.stat().st_size > 10_000


def test_plot_draws_on_the_axes_it_is_given():
    import matplotlib.pyplot as plt

    instance = read_instance(FOLDER / "periodic-k3-n8-sharing.json")
    figure, ax = plt.subplots()
    assert plot_solution(instance, solve(instance, "equal-split").solution, ax) is ax
    assert ax.figure is figure
    plt.close(figure)


def test_no_module_of_the_package_chooses_a_matplotlib_backend():
    sources = (ROOT / "src" / "hpcsched" / "burstbuffer").rglob("*.py")
    assert not [path for path in sources if "matplotlib.use(" in path.read_text()]


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "hpcsched.cli", *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def test_cli_solve_generate_and_bad_input(tmp_path):
    pytest.importorskip("hpcsched.cli", reason="the generic CLI is not merged into this branch yet")
    out = tmp_path / "gen.json"
    done = _cli(
        "generate",
        "burstbuffer",
        "--family",
        "periodic",
        "--n",
        "3",
        "--seed",
        "2",
        "--param",
        "granules=6",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    solved = _cli("solve", str(out), "--time-limit", "20", "--out", str(tmp_path / "sol.json"))
    assert solved.returncode == 0, solved.stderr
    assert json.loads((tmp_path / "sol.json").read_text())["status"] == "OPTIMAL"
    bad = tmp_path / "bad.json"
    document = json.loads(out.read_text())
    document["data"]["applications"][0]["volume"] = float("-1")
    bad.write_text(json.dumps(document))
    failed = _cli("solve", str(bad))
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert "applications[0].volume" in failed.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    failed = _cli("solve", str(broken))
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
