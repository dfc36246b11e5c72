"""Measure solo times and pairwise co-run rates of GPU kernels with two CUDA streams.

    python instances/coschedule/measure_corun.py OUT.json   (needs torch and a CUDA GPU)

The spec's rate model (SM share x memory contention) stands in where no
measurement exists; this script measures the rates instead, on the GPU at
hand, for a fixed set of kernel *kinds* (PyTorch operations with fixed
shapes, listed in ``KINDS``). ``make_measured.py`` turns the measurement file
into coschedule instances.

Protocol (what the numbers mean):

* Each kind is captured in a CUDA graph of ``reps`` back-to-back launches,
  ``reps`` chosen so that one replay lasts about ``--window`` ms alone; a graph
  replay is one CPU call, so launch overhead does not throttle short kernels.
* Solo time of a kind: median over ``--repeats`` replays of the graph alone
  (CUDA events), divided by ``reps``.
* Co-run of kinds a and b: the two graphs are launched on two streams
  behind a common start event (a spin kernel on the default stream holds the
  GPU until both are queued). The streams end at E_a and E_b after the start.
  Under the coschedule model (a kernel progresses at rate r while the other
  runs, at rate 1 alone), if a ends first its rate is r_a = T_a / E_a and b,
  alone during E_b - E_a, has r_b = (T_b - (E_b - E_a)) / E_a, with T the solo
  replay times (symmetric when b ends first). The median over ``--repeats``
  co-runs is kept, once with a's graph queued first and once with b's (the
  block scheduler favours the stream queued first: two kernels that each
  fill the GPU run one after the other); the pair's rates are the mean of
  the two orders, and both orders' values and raw end times are kept.

``--single`` measures the same pairs with ONE launch of each kernel (both
orders, median of ``--repeats``), the granularity at which a schedule of
the coschedule model pairs kernels; rates are derived the same way from the
two end times and the single-launch solo times.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F

MiB = 1 << 20


def _kinds(device: torch.device) -> dict[str, tuple[str, str, object]]:
    """name -> (class, description, zero-argument launcher) with preallocated tensors."""
    g = torch.Generator(device=device).manual_seed(0)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, device=device, dtype=dtype)

    a16, b16, c16 = randn(4096, 4096, dtype=torch.bfloat16), randn(4096, 4096, dtype=torch.bfloat16), None
    c16 = torch.empty_like(a16)
    a32, b32 = randn(2048, 2048), randn(2048, 2048)
    c32 = torch.empty_like(a32)
    s1, s2 = randn(256, 256, dtype=torch.bfloat16), randn(256, 256, dtype=torch.bfloat16)
    s3 = torch.empty_like(s1)
    x, y = randn(64 * MiB // 4 * 4), randn(64 * MiB // 4 * 4)  # 64 Mi floats = 256 MiB each
    z = torch.empty_like(x)
    total = torch.empty((), device=device)
    logits = randn(4096, 8192, dtype=torch.float16)
    hidden = randn(16384, 4096, dtype=torch.bfloat16)
    ln_w, ln_b = randn(4096, dtype=torch.bfloat16), randn(4096, dtype=torch.bfloat16)
    image = randn(32, 128, 56, 56, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    weight = randn(128, 128, 3, 3, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    table = randn(1 << 20, 256)
    index = torch.randint(0, 1 << 20, (1 << 16,), generator=g, device=device)
    gathered = torch.empty(1 << 16, 256, device=device)
    return {
        "gemm-bf16-4096": ("compute", "torch.mm bf16 4096x4096x4096", lambda: torch.mm(a16, b16, out=c16)),
        "gemm-fp32-2048": ("compute", "torch.mm fp32 2048x2048x2048 (TF32 off)", lambda: torch.mm(a32, b32, out=c32)),
        "gemm-bf16-256": ("compute", "torch.mm bf16 256x256x256 (few blocks)", lambda: torch.mm(s1, s2, out=s3)),
        "conv-bf16": (
            "compute",
            "conv2d bf16 channels_last, batch 32, 128->128 channels, 56x56, 3x3, padding 1",
            lambda: F.conv2d(image, weight, padding=1),
        ),
        "add-fp32-256MiB": ("memory", "torch.add of two 256 MiB fp32 vectors", lambda: torch.add(x, y, out=z)),
        "copy-fp32-256MiB": ("memory", "device-to-device copy_ of 256 MiB", lambda: z.copy_(x)),
        "sum-fp32-256MiB": ("memory", "torch.sum of a 256 MiB fp32 vector", lambda: torch.sum(x, dim=0, out=total)),
        "softmax-fp16": (
            "memory",
            "softmax over the last axis of a 4096x8192 fp16 matrix",
            lambda: torch.softmax(logits, -1),
        ),
        "layernorm-bf16": (
            "memory",
            "layer_norm of a 16384x4096 bf16 matrix",
            lambda: F.layer_norm(hidden, (4096,), ln_w, ln_b),
        ),
        "gather-fp32": (
            "memory",
            "index_select of 65,536 rows of 256 fp32 from a 1 Mi-row table",
            lambda: torch.index_select(table, 0, index, out=gathered),
        ),
    }


def _event_ms(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def _graph(launch, reps: int) -> torch.cuda.CUDAGraph:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # warm-up outside the graph (cuBLAS/cuDNN workspaces, autotuning)
            launch()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(reps):
            launch()
    torch.cuda.synchronize()
    return graph


def _corun(graph_a, graph_b, streams) -> tuple[float, float]:
    start = torch.cuda.Event(enable_timing=True)
    end_a, end_b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    torch.cuda._sleep(2_000_000)  # hold the GPU while both graphs are queued
    start.record()
    for stream, graph, end in ((streams[0], graph_a, end_a), (streams[1], graph_b, end_b)):
        stream.wait_event(start)
        with torch.cuda.stream(stream):
            graph.replay()
            end.record(stream)
    torch.cuda.synchronize()
    return start.elapsed_time(end_a), start.elapsed_time(end_b)


def _rates(solo_a: float, solo_b: float, ended_a: float, ended_b: float) -> tuple[float, float]:
    if ended_a <= ended_b:
        return solo_a / ended_a, (solo_b - (ended_b - ended_a)) / ended_a
    rate_b, rate_a = _rates(solo_b, solo_a, ended_b, ended_a)
    return rate_a, rate_b


def _queued_ms(launch, repeats: int) -> float:
    """One launch timed like the co-runs: queued behind a spin kernel, so no CPU dispatch time is counted."""
    times = []
    for _ in range(repeats + 1):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        torch.cuda._sleep(1_000_000)
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times[1:])


def _single_pairs(kinds: dict, repeats: int) -> list[dict]:
    """One launch of each kind of the pair, on two streams behind one start event, both launch orders.

    The looped measurement averages over many kernel boundaries; this one asks what a single
    pair of kernels does, which is what a schedule of the coschedule model pairs.
    """
    streams = (torch.cuda.Stream(), torch.cuda.Stream())
    launch = {name: entry[2] for name, entry in kinds.items()}
    solo = {name: _queued_ms(launch[name], repeats) for name in kinds}
    names, out = list(kinds), []
    for i, a in enumerate(names):
        for b in names[i:]:
            orders = {}
            for label, first, second in (("a_first", a, b), ("b_first", b, a)):
                ends = []
                for _ in range(repeats + 1):
                    start = torch.cuda.Event(enable_timing=True)
                    done = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                    torch.cuda.synchronize()
                    torch.cuda._sleep(1_000_000)
                    start.record()
                    for stream, name, end in zip(streams, (first, second), done, strict=True):
                        stream.wait_event(start)
                        with torch.cuda.stream(stream):
                            launch[name]()
                            end.record(stream)
                    torch.cuda.synchronize()
                    ends.append((start.elapsed_time(done[0]), start.elapsed_time(done[1])))
                ends = ends[1:]
                first_end = statistics.median(e[0] for e in ends)
                second_end = statistics.median(e[1] for e in ends)
                end_a, end_b = (first_end, second_end) if first == a else (second_end, first_end)
                rate_a, rate_b = _rates(solo[a], solo[b], end_a, end_b)
                orders[label] = {"end_a_ms": end_a, "end_b_ms": end_b, "rate_a": rate_a, "rate_b": rate_b}
            out.append({"a": a, "b": b, "solo_a_ms": solo[a], "solo_b_ms": solo[b], **orders})
            print(f"single {a} | {b}: {orders}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--window", type=float, default=20.0, help="ms one graph replay lasts alone")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--single", action="store_true", help="one launch per kernel instead of looped graphs")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")
    kinds = _kinds(device)
    if args.single:
        for _, _, launch in kinds.values():  # warm-up: cuBLAS/cuDNN handles and algorithm choice
            launch()
        pairs = _single_pairs(kinds, args.repeats)
        record = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "repeats": args.repeats}
        with open(args.out, "w") as handle:
            json.dump({"about": record, "mode": "single launches", "pairs": pairs}, handle, indent=1)
        return
    graphs, solo, reps_of = {}, {}, {}
    for name, (_, _, launch) in kinds.items():
        single = _event_ms(lambda launch=launch: launch(), 20)
        reps = max(1, round(args.window / max(single, 1e-3)))
        graph = _graph(launch, reps)
        graphs[name], reps_of[name] = graph, reps
        solo[name] = _event_ms(graph.replay, args.repeats)
        print(f"{name}: {1000 * solo[name] / reps:.1f} us per launch, {reps} launches", flush=True)
    streams = (torch.cuda.Stream(), torch.cuda.Stream())
    names = list(kinds)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i:]:
            # a launched first, then b first: the block scheduler favours the stream queued first
            a_first = [_corun(graphs[a], graphs[b], streams) for _ in range(args.repeats)]
            b_first = [_corun(graphs[b], graphs[a], streams)[::-1] for _ in range(args.repeats)]
            by_order = []
            for raw in (a_first, b_first):
                rates = [_rates(solo[a], solo[b], ea, eb) for ea, eb in raw]
                by_order.append((statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates)))
            rate_a = (by_order[0][0] + by_order[1][0]) / 2
            rate_b = (by_order[0][1] + by_order[1][1]) / 2
            pairs.append(
                {
                    "a": a,
                    "b": b,
                    "rate_a": rate_a,
                    "rate_b": rate_b,
                    "a_first": {"rate_a": by_order[0][0], "rate_b": by_order[0][1], "ended_ms": a_first},
                    "b_first": {"rate_a": by_order[1][0], "rate_b": by_order[1][1], "ended_ms": b_first},
                }
            )
            print(f"{a} | {b}: {rate_a:.3f} {rate_b:.3f} (a first {by_order[0]}, b first {by_order[1]})", flush=True)
    properties = torch.cuda.get_device_properties(device)
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    record = {
        "gpu": {"name": properties.name, "sms": properties.multi_processor_count, "nvidia_smi": smi},
        "software": {"torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version()},
        "protocol": __doc__.split("Protocol (what the numbers mean):")[1].strip(),
        "window_ms": args.window,
        "repeats": args.repeats,
        "kinds": {
            name: {
                "class": cls,
                "description": text,
                "launches": reps_of[name],
                "solo_replay_ms": solo[name],
                "solo_ns_per_launch": 1e6 * solo[name] / reps_of[name],
            }
            for name, (cls, text, _) in kinds.items()
        },
        "pairs": pairs,
        "command": " ".join(sys.argv),
    }
    with open(args.out, "w") as handle:
        json.dump(record, handle, indent=1)


if __name__ == "__main__":
    main()
