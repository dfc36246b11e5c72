"""The chains profiled on an H100: rebuilt from the committed profiles, and what the profiles say."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from hpcsched.checkpoint import store_all_peak
from hpcsched.core.io import file_sha256, read_instance
from hpcsched.core.solved import SOLVED_FILE, read_solved

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "checkpoint"
MEASURED = FOLDER / "measured"
SHIPPED = sorted(FOLDER.glob("*-h100-*.json"))


def _make_gpu():
    spec = importlib.util.spec_from_file_location("make_gpu", FOLDER / "make_gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_profiles_are_gpu_measurements_with_their_provenance():
    networks = (
        ("resnet50", 18),
        ("vgg16", 21),
        ("transformer12", 12),
        ("resnet50-bf16", 18),
        ("transformer12-bf16", 12),
    )
    for network, stages in networks:
        profile = read_instance(MEASURED / f"{network}-h100.profile.json")
        assert profile.length == stages
        assert profile.source["importer"] == "torch-profile"
        assert profile.source["device"] == "NVIDIA H100 80GB HBM3"
        assert profile.source["cudnn_benchmark"] is False
        assert profile.memory == store_all_peak(profile)  # profiled at budget 1.0
        assert min(profile.fw) >= 1 and min(profile.bw[:-1]) >= 1  # µs, all measured
    link = json.loads((MEASURED / "link-h100.json").read_text())
    assert link["host_to_device_bytes_per_us"] > 10_000  # at least PCIe 3 speed: a pinned copy on an H100 host


def test_the_shipped_files_are_rebuilt_from_the_profiles(tmp_path, monkeypatch):
    """The builder's filter `has_schedule` is asked about every file it writes.

    Its answer is taken as yes here: it solves each two-level file with offload-greedy (or dp), 6 s in all, and
    test_regression.py makes the recorded one of those runs on each shipped file and checks its value.
    """
    module = _make_gpu()
    monkeypatch.setattr(module, "FOLDER", tmp_path)
    asked: list[str] = []
    monkeypatch.setattr(module, "has_schedule", lambda instance: asked.append(instance.name) or True)
    module.main()
    rebuilt = sorted(p.name for p in tmp_path.glob("*.json"))
    assert rebuilt == [p.name for p in SHIPPED]
    for file in SHIPPED:
        assert json.loads((tmp_path / file.name).read_text()) == json.loads(file.read_text())
    assert sorted(f"{name}.json" for name in asked) == rebuilt
    solved = read_solved(FOLDER / SOLVED_FILE)
    for name in rebuilt:
        assert solved[name].objective is not None, name  # the recorded method found a schedule


@pytest.mark.parametrize("file", SHIPPED, ids=lambda f: f.name)
def test_each_file_names_its_profile_and_leaves_a_decision(file):
    instance = read_instance(file)
    (named,) = instance.source["files"]
    assert named["sha256"] == file_sha256(FOLDER / named["file"])
    assert instance.memory < store_all_peak(instance)  # store-all does not fit: there is something to decide


def test_the_offload_files_are_the_two_level_chains_mapped(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("make_h100", FOLDER.parent / "offload" / "make_h100.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert written == ["transformer12-h100-50.json", "vgg16-h100-30.json"]
    for name in written:
        shipped = FOLDER.parent / "offload" / name
        assert json.loads((tmp_path / name).read_text()) == json.loads(shipped.read_text())
