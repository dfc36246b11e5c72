"""Profile real networks on a CUDA GPU into checkpoint chains (the measurements behind the ``*-h100-*`` files).

    PYTHONPATH=src python instances/checkpoint/profile_gpu.py OUT_FOLDER   (torch, torchvision, a CUDA GPU)

Writes, per network, ``<network>-<gpu>.profile.json``: the chain that
`hpcsched.checkpoint.profile.profile_chain` measured (memory = the store-all
peak), with the model, batch, dtype and GPU in ``source``; and
``link-<gpu>.json``: the host link's measured bandwidths (pinned host memory,
``copy_`` with ``non_blocking``, median of 5 transfers of 256 MiB each way,
alone and both directions at once). ``make_gpu.py`` derives the shipped
budget variants and two-level chains from them. Weights are random
(``weights=None``): the times and sizes of a training step do not depend on
their values.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
from pathlib import Path

import torch
import torchvision
from torch import nn

from hpcsched.checkpoint.profile import profile_chain
from hpcsched.core.io import write_instance

MiB = 1 << 20


def resnet50_stages() -> list[nn.Module]:
    """torchvision ResNet-50 as 18 stages: the stem, each bottleneck block, the head."""
    net = torchvision.models.resnet50(weights=None)
    stem = nn.Sequential(net.conv1, net.bn1, net.relu, net.maxpool)
    blocks = [block for layer in (net.layer1, net.layer2, net.layer3, net.layer4) for block in layer]
    head = nn.Sequential(net.avgpool, nn.Flatten(1), net.fc)
    return [stem, *blocks, head]


def vgg16_stages() -> list[nn.Module]:
    """torchvision VGG16: each convolution with its ReLU, each max-pool, then the classifier's three Linear groups."""
    net = torchvision.models.vgg16(weights=None)
    stages: list[nn.Module] = []
    features = list(net.features)
    i = 0
    while i < len(features):
        if isinstance(features[i], nn.Conv2d):
            stages.append(nn.Sequential(features[i], features[i + 1]))
            i += 2
        else:
            stages.append(features[i])
            i += 1
    classifier = list(net.classifier)
    head = [nn.Sequential(net.avgpool, nn.Flatten(1), *classifier[0:3]), nn.Sequential(*classifier[3:6]), classifier[6]]
    return stages + head


def transformer_stages(layers: int = 12, width: int = 1024, heads: int = 16) -> list[nn.Module]:
    """``layers`` nn.TransformerEncoderLayer blocks (GPT-medium width, pre-norm, GELU, no dropout)."""
    return [
        nn.TransformerEncoderLayer(
            width, heads, 4 * width, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        for _ in range(layers)
    ]


NETWORKS = {
    # name: (stages, input shape, batch description)
    "resnet50": (resnet50_stages, (64, 3, 224, 224), "batch 64, 3x224x224 fp32"),
    "vgg16": (vgg16_stages, (64, 3, 224, 224), "batch 64, 3x224x224 fp32"),
    "transformer12": (transformer_stages, (8, 1024, 1024), "batch 8, sequence 1024, width 1024 fp32"),
}


def _median_ms(run, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats + 1):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times[1:])


def measure_link(size: int = 256 * MiB) -> dict:
    """Host<->device bandwidth in bytes per µs with pinned host memory."""
    host_out = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    host_in = torch.ones(size, dtype=torch.uint8, pin_memory=True)
    device_a = torch.ones(size, dtype=torch.uint8, device="cuda")
    device_b = torch.empty(size, dtype=torch.uint8, device="cuda")
    out_ms = _median_ms(lambda: host_out.copy_(device_a, non_blocking=True))
    in_ms = _median_ms(lambda: device_b.copy_(host_in, non_blocking=True))
    streams = (torch.cuda.Stream(), torch.cuda.Stream())

    def both() -> None:
        for stream in streams:
            stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(streams[0]):
            host_out.copy_(device_a, non_blocking=True)
        with torch.cuda.stream(streams[1]):
            device_b.copy_(host_in, non_blocking=True)
        for stream in streams:
            torch.cuda.current_stream().wait_stream(stream)

    both_ms = _median_ms(both)
    return {
        "bytes": size,
        "device_to_host_bytes_per_us": size / (1000 * out_ms),
        "host_to_device_bytes_per_us": size / (1000 * in_ms),
        "both_directions_ms": both_ms,
        "one_direction_ms": {"out": out_ms, "in": in_ms},
        "method": "pinned host tensors, Tensor.copy_(non_blocking=True), CUDA events, median of 5 after a warm-up; "
        "both directions at once on two streams",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default=",".join(NETWORKS))
    parser.add_argument(
        "--cudnn-benchmark",
        action="store_true",
        help="let cuDNN pick the fastest algorithms (PyTorch's default is off; their workspaces can reach GBs)",
    )
    parser.add_argument(
        "--bf16",
        action="store_true",
        help="parameters and input in bfloat16 (pure bf16 training; files named <network>-bf16-<gpu>)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    gpu = torch.cuda.get_device_name().replace("NVIDIA ", "").split()[0].lower()
    link = measure_link()
    link.update({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__})
    (args.out / f"link-{gpu}.json").write_text(json.dumps(link, indent=1))
    print(link, flush=True)
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    for name in args.only.split(","):
        build, shape, batch = NETWORKS[name]
        torch.manual_seed(0)
        dtype = torch.bfloat16 if args.bf16 else torch.float32
        stages = [stage.cuda().to(dtype).train() for stage in build()]
        sample = torch.randn(*shape, device="cuda", dtype=dtype)
        label = f"{name}-bf16" if args.bf16 else name
        instance = profile_chain(
            stages,
            sample,
            budget=1.0,
            repeats=args.repeats,
            loss=lambda out: out.float().square().mean(),
            name=f"{label}-{gpu}",
        )
        source = dict(instance.source)
        source.update(
            {
                "model": name,
                "input": batch.replace("fp32", "bf16") if args.bf16 else batch,
                "gpu": torch.cuda.get_device_name(),
                "cuda": torch.version.cuda,
                "torchvision": torchvision.__version__,
                "script": "instances/checkpoint/profile_gpu.py",
                "loss": "mean of squares of the last output (timed as bw[L])",
                "cudnn_benchmark": args.cudnn_benchmark,
            }
        )
        write_instance(dataclasses.replace(instance, source=source), args.out / f"{label}-{gpu}.profile.json")
        print(name, instance.length, "stages; store-all peak", source.get("store_all_peak"), flush=True)
        del stages, sample
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
