"""Trace readers and importers: real data (skipped when absent) and bad input."""

import gzip
import json
import math

import pytest

from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.coschedule.generate import (
    generate_all_ones,
    generate_sm_model,
    generate_uniform,
    import_gavel,
    import_kineto,
    import_orion,
    occupancy_sm_demand,
    sm_model_rate,
)
from hpcsched.traces.chrome_trace import KernelRecord, read_chrome_trace
from hpcsched.traces.orion import read_orion_csv


def test_sm_model_by_hand():
    assert sm_model_rate(30, 40, "compute", "memory", 80, 1.0) == 1.0  # both fit
    assert math.isclose(sm_model_rate(80, 80, "compute", "compute", 80, 1.0), 0.5)
    assert math.isclose(
        sm_model_rate(200, 40, "compute", "compute", 80, 1.0), 80 / 120, rel_tol=1e-5
    )  # demand capped at Q
    assert math.isclose(sm_model_rate(60, 60, "memory", "memory", 80, 1.0), 80 / 120 / 2, rel_tol=1e-5)


def test_occupancy_by_hand():
    props = {
        "numSms": 80,
        "maxThreadsPerMultiprocessor": 2048,
        "regsPerMultiprocessor": 65536,
        "sharedMemPerMultiprocessor": 98304,
        "warpSize": 32,
    }
    record = KernelRecord("k", 0, 1, 0, 7, (800, 1, 1), (256, 1, 1), 64, 0)
    # 256 threads x 64 regs = 16384 regs/block -> 4 blocks/SM (threads allow 8): 800 / 4 = 200 SMs -> capped at 80.
    assert occupancy_sm_demand(record, props, 80) == 80
    small = KernelRecord("k", 0, 1, 0, 7, (20, 1, 1), (128, 1, 1), 32, 49152)
    # shared memory allows 2 blocks/SM: 20 blocks -> 10 SMs.
    assert occupancy_sm_demand(small, props, 80) == 10
    assert occupancy_sm_demand(KernelRecord("k", 0, 1, 0, 7, None, None, None, None), props, 80) is None


def test_generators_are_seeded_and_checked():
    assert generate_uniform(seed=4, n=6).to_data() == generate_uniform(seed=4, n=6).to_data()
    assert generate_uniform(seed=4, n=6).to_data() != generate_uniform(seed=5, n=6).to_data()
    assert all(p.rate_a == 1 for p in generate_all_ones(n=4).pairs)
    assert generate_sm_model(n=5, seed=1).source["alpha"] == 1.0
    with pytest.raises(InvalidInstanceError):
        generate_uniform(n=0)
    with pytest.raises(InvalidInstanceError):
        generate_uniform(n=3, r_min=0)


def test_bad_orion_csv(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("Name,Profile,Duration\nk,1,10\n")
    with pytest.raises(FormatError, match="missing column"):
        read_orion_csv(bad)
    bad.write_text("Name,Profile,Memory_footprint,SM_usage,Duration\nk,1,0,3,abc\n")
    with pytest.raises(FormatError, match="row 2"):
        read_orion_csv(bad)
    with pytest.raises(FormatError, match="no such file"):
        import_orion(tmp_path / "missing.csv")


def test_bad_chrome_trace(tmp_path):
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(b"{not json"))
    with pytest.raises(FormatError, match="malformed JSON"):
        read_chrome_trace(path)
    path.write_bytes(
        gzip.compress(json.dumps({"traceEvents": [{"cat": "kernel", "ph": "X", "ts": 0, "dur": -4}]}).encode())
    )
    with pytest.raises(FormatError, match=r"traceEvents\[0\].dur"):
        read_chrome_trace(path)
    path.write_bytes(
        gzip.compress(json.dumps({"traceEvents": [{"cat": "kernel", "ph": "X", "ts": 0, "dur": 4}]}).encode())
    )
    with pytest.raises(FormatError, match="deviceProperties"):
        import_kineto(path)


def test_bad_gavel(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"v100": {"('A', 1)": {"null": 2.0, "('B', 1)": [1.0]}}}))
    with pytest.raises(FormatError, match="own, partner"):
        import_gavel(path)
    with pytest.raises(FormatError, match="no GPU type"):
        import_gavel(path, gpu="k80")


@pytest.mark.data
def test_real_orion_mix(data_dir):
    instance = import_orion(data_dir / "orion", files="resnet50_4_fwd.csv,bert_2_fwd.csv", n=12, seed=3)
    assert instance.n == 12 and instance.time_unit == "ns"
    assert {k.profile["app"] for k in instance.kernels} == {"resnet50_4_fwd", "bert_2_fwd"}
    assert all(k.profile["sm_demand"] <= 80 for k in instance.kernels)
    assert len(instance.source["files"][0]["sha256"]) == 64
    # One stream per file, in file order (issue 20, item 2); pairs only across the two streams.
    assert [len(stream) for stream in instance.streams] == [6, 6]
    assert len(instance.pairs) == 6 * 6
    assert all(not instance.same_stream(p.a, p.b) for p in instance.pairs)


@pytest.mark.data
def test_orion_streams_keep_file_order(data_dir):
    from hpcsched.traces.orion import read_orion_csv

    instance = import_orion(data_dir / "orion", files="resnet50_4_fwd.csv,bert_2_fwd.csv", n=20, seed=5)
    rows = [f"resnet50_4_fwd:{k.name}" for k in read_orion_csv(data_dir / "orion" / "resnet50_4_fwd.csv")]
    names = [instance.kernels[k].name for k in instance.streams[0]]
    # Consecutive kernels, in file order (names repeat, so look for the window).
    assert any(rows[offset : offset + len(names)] == names for offset in range(len(rows)))
    # The round trip keeps the streams.
    again = type(instance).from_data(instance.to_data(), name="x", time_unit="ns", source={})
    assert again.streams == instance.streams


def test_orion_placeholder_profile_refused(tmp_path):
    path = tmp_path / "placeholder_fb1.csv"
    path.write_text("Name,Profile,Memory_footprint,SM_usage,Duration\nk0,1,0,10,5\nk1,0,0,20,7\n")
    with pytest.raises(FormatError, match=r"placeholder_fb1\.csv.*placeholder profile"):
        import_orion(path)


def test_orion_size_refused_before_building(tmp_path):
    rows = "".join(f"k{i},1,0,10,{100 + i}\n" for i in range(300))
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("Name,Profile,Memory_footprint,SM_usage,Duration\n" + rows)
    with pytest.raises(InvalidInstanceError, match="600 kernels give 90,000 co-run pairs"):
        import_orion(tmp_path, max_pairs=50_000)
    assert len(import_orion(tmp_path, max_pairs=90_000).pairs) == 90_000


def test_gavel_huge_n_refused_with_the_figure(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"v100": {"('A', 1)": {"null": 2.0}}}))
    with pytest.raises(InvalidInstanceError, match="4,999,950,000 co-run pairs"):
        import_gavel(path, n=100_000)


@pytest.mark.data
def test_both_kineto_schemas(data_dir):
    old = read_chrome_trace(data_dir / "kineto" / "resnet50_v100_workers0.pt.trace.json.gz")
    new = read_chrome_trace(data_dir / "hta" / "alexnet_critical_path.trace.json.gz")
    amd = read_chrome_trace(data_dir / "hta" / "mi250_minitoy_train.json.gz")
    assert old.schema == "kineto-old" and new.schema == "kineto-new"
    assert old.kernels and new.kernels and amd.kernels
    assert old.kernels[0].grid is not None and old.device_properties[0]["numSms"] == 80
    assert new.device_properties[0]["numSms"] == 108
    assert all(k.grid is None for k in amd.kernels)  # the AMD trace has no launch fields
    instance = import_kineto(data_dir / "hta" / "mi250_minitoy_train.json.gz", n=4)
    assert all(k.profile["sm_demand"] == 104 for k in instance.kernels)


@pytest.mark.data
def test_kineto_refuses_mixing_gpu_models(data_dir):
    first = data_dir / "kineto" / "resnet50_v100_workers0.pt.trace.json.gz"
    paths = f"{first},{data_dir / 'hta' / 'alexnet_critical_path.trace.json.gz'}"
    with pytest.raises(FormatError, match="different"):
        import_kineto(paths, n=4)


@pytest.mark.data
def test_gavel_rates_are_measured_ratios(data_dir):
    path = data_dir / "gavel" / "simulation_throughputs.json"
    instance = import_gavel(path, n=6, seed=2)
    table = json.loads(path.read_text())["v100"]
    pair = instance.pairs[0]
    a, b = instance.kernels[pair.a].profile["job_type"], instance.kernels[pair.b].profile["job_type"]
    own, other = table[a][b]
    assert math.isclose(pair.rate_a, min(1.0, own / table[a]["null"]), rel_tol=1e-5)
    assert math.isclose(pair.rate_b, min(1.0, other / table[b]["null"]), rel_tol=1e-5)


def _trace(path, events):
    kernels = [
        {
            "ph": "X",
            "cat": "kernel",
            "name": name,
            "ts": ts,
            "dur": dur,
            "tid": stream,
            "args": {"device": 0, "stream": stream, "grid": [80, 1, 1], "block": [256, 1, 1]},
        }
        for name, ts, dur, stream in events
    ]
    document = {"traceEvents": kernels, "deviceProperties": [{"id": 0, "numSms": 80, "name": "V100"}]}
    with gzip.open(path, "wt") as handle:
        json.dump(document, handle)
    return path


def test_kineto_keeps_stream_order(tmp_path):
    # Issue 20 leftover: kernels of one CUDA stream run in timestamp order; the file lists them out of order.
    path = _trace(
        tmp_path / "t.json.gz", [("b", 20, 5, 7), ("x", 0, 30, 9), ("a", 0, 10, 7), ("c", 40, 5, 7), ("y", 31, 3, 9)]
    )
    instance = import_kineto(path)
    names = [kernel.name for kernel in instance.kernels]
    streams = [[names[k] for k in stream] for stream in instance.streams]
    assert sorted(streams) == [["a", "b", "c"], ["x", "y"]]
    # Stream-mates are never listed as pairs (they cannot co-run); every cross-stream pair is.
    stream_of = {k: s for s, stream in enumerate(instance.streams) for k in stream}
    assert all(stream_of[p.a] != stream_of[p.b] for p in instance.pairs) and len(instance.pairs) == 3 * 2
    assert "stream" in instance.source["streams"]


def test_kineto_streams_of_two_traces_are_distinct(tmp_path):
    first = _trace(tmp_path / "a.json.gz", [("a0", 0, 5, 7), ("a1", 10, 5, 7)])
    second = _trace(tmp_path / "b.json.gz", [("b0", 0, 5, 7), ("b1", 10, 5, 7), ("b2", 20, 5, 8)])
    instance = import_kineto(f"{first},{second}")
    # Stream 7 of each trace is its own stream; b2 (alone on stream 8) orders nothing and stays independent.
    assert [len(stream) for stream in instance.streams] == [2, 2]
    assert len(instance.pairs) == 5 * 4 // 2 - 2
