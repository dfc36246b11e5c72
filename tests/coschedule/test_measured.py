"""The H100-measured instances: rebuilt from the committed measurement file, and the model checked against replays."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from hpcsched.core.io import read_instance

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "coschedule"
MEASURED = FOLDER / "measured"
SHIPPED = sorted(FOLDER.glob("h100-corun-*.json"))


def _make_measured():
    spec = importlib.util.spec_from_file_location("make_measured", FOLDER / "make_measured.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seven_measured_instances_ship():
    assert [f.name for f in SHIPPED] == [
        "h100-corun-min-n10.json",
        "h100-corun-min-n20.json",
        "h100-corun-mix-n12.json",
        "h100-corun-mix-n30.json",
        "h100-corun-n10.json",
        "h100-corun-n20.json",
        "h100-corun-n40.json",
    ]


@pytest.mark.parametrize("file", SHIPPED, ids=lambda f: f.name)
def test_each_instance_is_rebuilt_from_the_measurement_it_names(file, tmp_path, monkeypatch):
    raw = (MEASURED / "corun-h100.json").read_bytes()
    instance = read_instance(file)
    assert instance.source["files"] == [{"file": "measured/corun-h100.json", "sha256": hashlib.sha256(raw).hexdigest()}]
    module = _make_measured()
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    assert json.loads((tmp_path / file.name).read_text()) == json.loads(file.read_text())


def test_rates_are_the_measured_pair_rates():
    record = json.loads((MEASURED / "corun-h100.json").read_text())
    by_kinds = {(p["a"], p["b"]): (p["rate_a"], p["rate_b"]) for p in record["pairs"]}
    instance = read_instance(FOLDER / "h100-corun-n20.json")
    for pair in instance.pairs:
        a, b = (instance.kernels[k].profile["kind"] for k in (pair.a, pair.b))
        expected = by_kinds.get((a, b)) or by_kinds[b, a][::-1]
        rates = tuple(min(1.0, max(1e-4, round(r, 4))) for r in expected)
        got = (pair.rate_a, pair.rate_b)
        if a == b:  # two kernels of one kind: which of them gets which of the two measured rates is arbitrary
            got, rates = tuple(sorted(got)), tuple(sorted(rates))
        assert got == pytest.approx(rates, abs=1e-12)
    for kernel in instance.kernels:
        solo = record["kinds"][kernel.profile["kind"]]["solo_ns_per_launch"]
        assert kernel.duration == max(1, round(solo))


def test_the_replays_recorded_agree_with_the_stream_sums_of_the_model():
    # the replay measured each stream alone on the GPU: the model's stream sums must be within 2 %
    replays = json.loads((MEASURED / "replay-h100.json").read_text())["results"]
    for name, result in replays.items():
        instance = read_instance(FOLDER / name)
        sums = [sum(instance.kernels[k].duration for k in stream) for stream in instance.streams]
        for modelled, measured in zip(sums, result["alone"], strict=True):
            assert abs(modelled - measured) / measured < 0.02
