"""Write the coschedule instances whose rates were measured on an H100 (run from the repository root).

    .venv/bin/python instances/coschedule/make_measured.py

Input: ``measured/corun-h100.json``, written on an NVIDIA H100 80GB HBM3 by
``measure_corun.py`` (its docstring is the protocol: solo time per launch of
ten PyTorch kernel kinds, and each pair's co-run rates from two CUDA streams,
the mean of both launch orders). The rates of every pair of *kinds* are
measured; the instances are kernel *sequences* of those kinds, which we
composed (they are not traces of a real application):

* ``h100-corun-n<N>``: two streams, N/2 kernels each, cycling through an
  attention-like pattern (layer norm, bf16 GEMM, softmax, bf16 GEMM,
  residual add, fp32 GEMM) and a CNN-like pattern (convolution, add, sum,
  copy, gather, small GEMM); pairs only across the streams;
* ``h100-corun-mix-n<N>``: N independent kernels, kinds drawn uniformly with a
  seed, every pair listed;
* ``h100-corun-min-n<N>``: the streamed instances with, for each kernel, the
  smaller of its two launch-order rates instead of their mean (pessimistic:
  two kernels that each fill the GPU then barely co-run, as measured).

Durations are the measured solo times per launch, rounded to integer ns.
Rates are rounded to 4 decimals and clipped into [0.0001, 1] (noise puts a
few a hair above 1; ``source.clipped`` counts them).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.coschedule import Instance

HERE = Path(__file__).resolve().parent
MEASURED = HERE / "measured" / "corun-h100.json"
ATTENTION = ("layernorm-bf16", "gemm-bf16-4096", "softmax-fp16", "gemm-bf16-4096", "add-fp32-256MiB", "gemm-fp32-2048")
CNN = ("conv-bf16", "add-fp32-256MiB", "sum-fp32-256MiB", "copy-fp32-256MiB", "gather-fp32", "gemm-bf16-256")
STREAMED = (10, 20, 40)
MIXED = ((12, 1), (30, 2))
PESSIMISTIC = (10, 20)


def _rate(value: float) -> tuple[float, bool]:
    clipped = min(1.0, max(1e-4, round(value, 4)))
    return clipped, clipped != round(value, 4)


def _kind_rates(record: dict, orders: str) -> dict[tuple[str, str], tuple[float, float, bool]]:
    """(kind a, kind b) -> (rate of a with b, rate of b with a, whether one was clipped), both orientations.

    ``orders`` "mean": the mean of the two launch orders' rates; "min": the smaller one.
    """
    rates = {}
    for pair in record["pairs"]:
        if orders == "mean":
            raw_a, raw_b = pair["rate_a"], pair["rate_b"]
        else:
            raw_a = min(pair["a_first"]["rate_a"], pair["b_first"]["rate_a"])
            raw_b = min(pair["a_first"]["rate_b"], pair["b_first"]["rate_b"])
        (rate_a, clip_a), (rate_b, clip_b) = _rate(raw_a), _rate(raw_b)
        rates[pair["a"], pair["b"]] = (rate_a, rate_b, clip_a or clip_b)
        rates[pair["b"], pair["a"]] = (rate_b, rate_a, clip_a or clip_b)
    return rates


def build(
    record: dict, kinds: list[str], apps: list[str], streams: list[list[int]], name: str, sha: str, orders: str = "mean"
) -> Instance:
    """The instance of kernels of ``kinds`` (one per kernel), pairs across streams (or all pairs without streams)."""
    table = _kind_rates(record, orders)
    stream_of = {k: s for s, stream in enumerate(streams) for k in stream}
    pairs, clipped = [], 0
    for i in range(len(kinds)):
        for j in range(i + 1, len(kinds)):
            if i in stream_of and stream_of.get(i) == stream_of.get(j):
                continue
            rate_i, rate_j, was_clipped = table[kinds[i], kinds[j]]
            pairs.append((i, j, rate_i, rate_j))
            clipped += was_clipped
    about = record["kinds"]
    return Instance.create(
        [max(1, round(about[kind]["solo_ns_per_launch"])) for kind in kinds],
        pairs,
        name=name,
        names=[f"{app}:{kind}#{i}" for i, (app, kind) in enumerate(zip(apps, kinds, strict=True))],
        profiles=[
            {"kind": kind, "class": about[kind]["class"], "app": app} for kind, app in zip(kinds, apps, strict=True)
        ],
        gpu={"name": record["gpu"]["name"], "sms": record["gpu"]["sms"]},
        time_unit="ns",
        streams=streams or None,
        source={
            "importer": "measured-corun",
            "files": [{"file": "measured/corun-h100.json", "sha256": sha}],
            "rate_model": f"measured: two CUDA streams, {orders} of both launch orders (measure_corun.py)",
            "software": record["software"],
            "kernel_sequences": "composed here from the measured kinds (make_measured.py), not a trace",
            "clipped": clipped,
        },
    )


def main() -> None:
    raw = MEASURED.read_bytes()
    record, sha = json.loads(raw), hashlib.sha256(raw).hexdigest()
    for n in STREAMED:
        half = n // 2
        kinds = [ATTENTION[i % len(ATTENTION)] for i in range(half)] + [CNN[i % len(CNN)] for i in range(half)]
        apps = ["attention"] * half + ["cnn"] * half
        streams = [list(range(half)), list(range(half, n))]
        write_instance(build(record, kinds, apps, streams, f"h100-corun-n{n}", sha), HERE / f"h100-corun-n{n}.json")
        if n in PESSIMISTIC:
            name = f"h100-corun-min-n{n}"
            write_instance(build(record, kinds, apps, streams, name, sha, "min"), HERE / f"{name}.json")
    for n, seed in MIXED:
        draw = random.Random(seed)
        kinds = [draw.choice(sorted(record["kinds"])) for _ in range(n)]
        name = f"h100-corun-mix-n{n}"
        write_instance(build(record, kinds, ["mix"] * n, [], name, sha), HERE / f"{name}.json")


if __name__ == "__main__":
    main()
