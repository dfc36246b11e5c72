"""Bad options, generator and importer parameters, and unknown keys: one error naming the culprit."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hpcsched import solve
from hpcsched.core.errors import InvalidInstanceError, OptionError
from hpcsched.core.io import read_instance
from hpcsched.coschedule import Instance
from hpcsched.coschedule.generate import (
    generate_all_ones,
    generate_sm_model,
    generate_uniform,
    import_gavel,
    import_kineto,
    import_orion,
)
from hpcsched.coschedule.model import DATA_KEYS, GPU_KEYS, KERNEL_KEYS, PAIR_KEYS

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "coschedule"


def small():
    return Instance.create([4, 6, 5], [(0, 1, 0.5, 0.75), (1, 2, 0.8, 0.9)], name="small")


# -- method options ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, options, field",
    [
        ("cpsat", {"grid": 0}, "options.grid"),
        ("lp-preemptive", {"backend": "xyz"}, "options.backend"),
        ("milp-min-preemptions", {"slots": 0}, "options.slots"),
        ("local-search", {"max_moves": 5}, "options.max_moves"),  # renamed max_iterations (issue 21)
        ("auto", {"grid": 5}, "options.grid"),  # the dispatcher checks the chosen method's options
    ],
)
def test_bad_method_option_names_it(method, options, field):
    with pytest.raises(OptionError) as error:
        solve(small(), method, time_limit=5, **options)
    assert error.value.field == field
    if field == "options.backend":
        assert "scipy" in error.value.reason and "pulp" in error.value.reason


# -- generator and importer parameters ---------------------------------------------------------


@pytest.mark.parametrize(
    "generator, params, field",
    [
        (generate_sm_model, {"sms": 0}, "sms"),
        (generate_sm_model, {"alpha": -5}, "alpha"),
        (generate_sm_model, {"memory_share": 1.5}, "memory_share"),
        (generate_sm_model, {"p_min": 0}, "p_min"),
        (generate_uniform, {"n": 0}, "n"),
        (generate_uniform, {"r_max": 0.2}, "r_max"),
        (generate_uniform, {"r_min": 0}, "r_min"),
        (generate_uniform, {"p_min": 5, "p_max": 3}, "p_max"),
        (generate_uniform, {"density": "all"}, "density"),
        (generate_uniform, {"seed": -1}, "seed"),
        (generate_all_ones, {"p_min": 0}, "p_min"),
        (generate_all_ones, {"p_max": 2.5}, "p_max"),
    ],
)
def test_bad_generator_parameter_names_it(generator, params, field):
    with pytest.raises(InvalidInstanceError) as error:
        generator(**params)
    assert error.value.field == field


@pytest.fixture
def orion_csv(tmp_path):
    path = tmp_path / "app.csv"
    rows = "".join(f"k{i},{i % 2},100,{10 * (i + 1)},{1000 + i}\n" for i in range(6))
    path.write_text("Name,Profile,Memory_footprint,SM_usage,Duration\n" + rows)
    return path


@pytest.fixture
def gavel_json(tmp_path):
    path = tmp_path / "g.json"
    a, b = "('A', 1)", "('B', 1)"
    path.write_text(json.dumps({"v100": {a: {"null": 2.0, b: [1.5, 1.0]}, b: {"null": 4.0, a: [1.0, 1.5]}}}))
    return path


@pytest.mark.parametrize(
    "options, field",
    [
        ({"n": -2}, "n"),
        ({"n": 0}, "n"),
        ({"alpha": -5}, "alpha"),
        ({"sms": 0}, "sms"),
        ({"seed": -1}, "seed"),
        ({"files": 3}, "files"),
    ],
)
def test_bad_orion_option_names_it_and_the_file(orion_csv, options, field):
    with pytest.raises(InvalidInstanceError) as error:
        import_orion(orion_csv, **options)
    assert error.value.field == field and error.value.file == str(orion_csv)


@pytest.mark.parametrize(
    "options, field",
    [
        ({"min_seconds": 0}, "min_seconds"),
        ({"max_seconds": 100}, "max_seconds"),
        ({"n": 0}, "n"),
        ({"gpu": ["v100"]}, "gpu"),
        ({"seed": -3}, "seed"),
    ],
)
def test_bad_gavel_option_names_it_and_the_file(gavel_json, options, field):
    with pytest.raises(InvalidInstanceError) as error:
        import_gavel(gavel_json, **options)
    assert error.value.field == field and error.value.file == str(gavel_json)


def test_bad_kineto_option_names_it(tmp_path):
    with pytest.raises(InvalidInstanceError) as error:
        import_kineto(tmp_path / "t.json.gz", n=0)
    assert error.value.field == "n"


def test_good_parameters_still_import(orion_csv, gavel_json):
    assert import_orion(orion_csv, n=4, seed=1, alpha=0).n == 4
    assert import_gavel(gavel_json, n=3, min_seconds=1, max_seconds=1).durations == (1, 1, 1)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "hpcsched.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    "args, field",
    [
        (["generate", "coschedule", "--family", "sm-model", "--param", "sms=0"], "sms"),
        (["import", "orion", "{csv}", "--problem", "coschedule", "--option", "n=-2"], "n"),
        (["import", "gavel", "{gavel}", "--problem", "coschedule", "--option", "min_seconds=0"], "min_seconds"),
        (["solve", str(FOLDER / "orion-n6.json"), "--method", "cpsat", "--opt", "grid=0"], "options.grid"),
        (
            ["solve", str(FOLDER / "orion-n6.json"), "--method", "lp-preemptive", "--opt", "backend=xyz"],
            "options.backend",
        ),
        # Issue 21: options are Params dataclasses, checked once by the registry (OptionError).
        (
            ["solve", str(FOLDER / "gavel-v100-n6.json"), "--method", "local-search", "--opt", "max_moves=5"],
            "options.max_moves",
        ),
        (
            ["solve", str(FOLDER / "gavel-v100-n6.json"), "--method", "local-search", "--opt", "max_iterations=-1"],
            "options.max_iterations",
        ),
        (
            ["solve", str(FOLDER / "gavel-v100-n6.json"), "--method", "milp-min-preemptions", "--opt", "slots=0"],
            "options.slots",
        ),
        (["solve", str(FOLDER / "gavel-v100-n6.json"), "--method", "serial", "--opt", "grid=5"], "options.grid"),
        (["solve", str(FOLDER / "orion-n6.json"), "--opt", "grid=0"], "options.grid"),  # auto chose milp: no options
    ],
)
def test_cli_one_line_naming_the_parameter(tmp_path, orion_csv, gavel_json, args, field):
    args = [a.format(csv=orion_csv, gavel=gavel_json) for a in args]
    if args[0] in ("generate", "import"):
        args += ["-o", str(tmp_path / "out.json")]
    run = _cli(*args)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 1, run.stderr
    assert len(lines) == 1 and f"{field}: " in lines[0], run.stderr
    assert "internal error" not in run.stderr and "data." not in run.stderr


# -- unknown keys ---------------------------------------------------------------------


def data(**changes):
    base = {
        "kernels": [{"name": "a", "duration": 4}, {"name": "b", "duration": 6}],
        "pairs": [{"a": 0, "b": 1, "rate_a": 0.5, "rate_b": 0.75}],
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    "d, field",
    [
        (data(kernals=[]), "data.kernals"),
        (data(pairs=[{"a": 0, "b": 1, "rate_a": 0.5, "rate_b": 0.75, "rate_ab": 1}]), "data.pairs[0].rate_ab"),
        (data(kernels=[{"duration": 4, "app": "bert"}]), "data.kernels[0].app"),
        (data(gpu={"name": "V100", "sm": 80}), "data.gpu.sm"),
    ],
)
def test_unknown_key_is_refused(d, field):
    with pytest.raises(InvalidInstanceError) as error:
        Instance.from_data(d, name="t", time_unit="us", source={})
    assert error.value.field == field


def test_profile_keeps_extra_descriptive_fields():
    d = data(kernels=[{"duration": 4, "profile": {"app": "bert", "stream": 7, "anything": [1, "x"]}}, {"duration": 6}])
    instance = Instance.from_data(d, name="t", time_unit="us", source={})
    assert instance.kernels[0].profile["anything"] == [1, "x"]


def test_shipped_instances_load():
    files = [f for f in sorted(FOLDER.glob("*.json")) if not f.name.startswith("solved")]
    assert len(files) == 19  # 12 from ../shared/data, 7 measured on an H100 (make_measured.py)
    for file in files:
        assert read_instance(file).n >= 1


def _assert_known_keys(instance):
    document = instance.to_data()
    assert set(document) <= set(DATA_KEYS)
    assert all(set(k) <= set(KERNEL_KEYS) for k in document["kernels"])
    assert all(set(p) <= set(PAIR_KEYS) for p in document["pairs"])
    assert set(document.get("gpu", {})) <= set(GPU_KEYS)


def test_generators_and_importers_write_known_keys_only(orion_csv, gavel_json):
    for instance in (
        generate_uniform(n=4),
        generate_all_ones(n=3),
        generate_sm_model(n=4),
        import_orion(orion_csv),
        import_gavel(gavel_json, n=3),
    ):
        _assert_known_keys(instance)


@pytest.mark.data
def test_real_importers_write_known_keys_only(data_dir):
    _assert_known_keys(import_orion(data_dir / "orion", files="bert_2_fwd.csv", n=5))
    _assert_known_keys(import_gavel(data_dir / "gavel" / "simulation_throughputs.json", n=5))
    _assert_known_keys(import_kineto(data_dir / "hta" / "mi250_minitoy_train.json.gz", n=4))


def test_direct_call_refuses_a_misspelt_option():
    # Issue 21: no **options swallowing typos; methods take their Params.
    from hpcsched.coschedule import generate_uniform, heuristics

    with pytest.raises(TypeError):
        heuristics.local_search(generate_uniform(seed=1, n=4), time_limit=1, seed=0, params=None, max_moves=5)


def test_params_check_their_ranges():
    from hpcsched.core.errors import OptionError
    from hpcsched.coschedule import CpsatParams, LocalSearchParams, MinPreemptionsParams

    for build, field in (
        (lambda: CpsatParams(grid=0), "grid"),
        (lambda: LocalSearchParams(max_iterations=-1), "max_iterations"),
        (lambda: MinPreemptionsParams(slots=0), "slots"),
    ):
        with pytest.raises(OptionError) as error:
            build()
        assert error.value.field == f"options.{field}"
