"""Seeded generators and the PipeDream importer of checkpoint chains.

Budgets are fractions of the store-all peak (`store_all_peak`, the peak of
``Fall 0..L-1, B L..0``), option ``budget``. A fraction whose budget falls
below the peak of the recompute-all sequence (keep only x_0, the least
memory any method here is sure to fit) is raised to that peak, and the
instance's ``source["notes"]`` says so.

PipeDream import (`import_pipedream`), modelling choices written down:

* The graph is parsed by `hpcsched.traces.pipedream.parse_graph` and
  linearized in topological order, ties by node number (the profiler's
  execution order).
* ``Input*`` nodes are dropped (their forward time is data loading); the sum
  of their outputs is x_0.
* Nodes whose output is not a new tensor (`storage_kind` "inplace", "view",
  "scalar") are folded into the stage before them: their times are added to
  it, and the stage's output x_{i+1} is the folded node's size. Every other
  node (materialized, even at zero time) is a stage.
* xbar_{i+1} (what a recording forward of stage i keeps, x_{i+1} included):
  the stage output, plus what its operator's backward saves that the
  profile does not list: MaxPool keeps int64 argmax indices (+2·x_{i+1} for
  float32 outputs), Dropout a one-byte mask (+x_{i+1}/4). The stage input
  x_i is not counted: ``B i`` reads it separately in this model.
* Skip connections (ResNet shortcuts, GNMT residuals) are approximated: in
  the chain x_i is read by stage i only, so the extra lifetime of a tensor a
  later stage also reads is ignored (optimistic); their count is in
  ``source["skip_edges"]``. VGG16 and AlexNet are chains.
* Times in ms are rounded to integer µs; transients are 0 (not profiled).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..core import generation
from ..core.errors import FormatError, InvalidInstanceError
from ..core.fields import require_int, require_number
from ..core.generation import checked
from ..core.io import file_sha256
from .model import Instance, store_all_peak
from .model.sequences import recompute_all_sequence
from .simulate import peak as simulated_peak

#: The longest chain of every family (docs/architecture.md "Generator sizes"): the budget's floor is
#: the peak of the recompute-all sequence, L(L+1)/2 operations, so a chain costs O(L^2) to make
#: (4,000 stages: 8 s of CPU and 1 GB; 10^4 stages would take about 6 GB).
MAX_STAGES = 5_000


def _check_budget(budget: float) -> float:
    return require_number(budget, "budget", minimum=0.0, maximum=1e6, strictly_positive=True)


def with_budget(
    fw,
    bw,
    x,
    xbar,
    *,
    budget: float,
    name: str,
    source: dict[str, Any],
    time_unit: str | None = None,
    memory: int | None = None,
    ftmp=None,
    btmp=None,
) -> Instance:
    """The chain with M = budget × store-all peak (raised to the recompute-all peak if below it)."""
    source = dict(source)
    notes = list(source.get("notes", []))
    probe = Instance.create(fw, bw, x, xbar, 2**52, ftmp=ftmp, btmp=btmp, name=name, time_unit=time_unit)
    peak = store_all_peak(probe)
    floor = simulated_peak(probe, recompute_all_sequence(probe.length))
    if memory is None:
        memory = round(budget * peak)
        if memory < floor:
            notes.append(
                f"budget {budget:g} × store-all peak {peak} = {memory} bytes is below the recompute-all "
                f"peak; raised to {floor} bytes ({floor / peak:.3f} of the peak)"
            )
            memory = floor
    source.update({"store_all_peak": peak, "recompute_all_peak": floor, "notes": notes})
    return Instance.create(fw, bw, x, xbar, memory, ftmp=ftmp, btmp=btmp, name=name, time_unit=time_unit, source=source)


def with_host_link(chain: Instance, bandwidth: float | None, latency: int = 0) -> Instance:
    """The generated ``chain`` as kind ``chain-offload`` when ``bandwidth`` is given: a full-duplex host link of
    ``bandwidth`` bytes per time unit each way and ``latency`` time units per transfer, the same budget M (the
    generators' parameters ``bandwidth`` and ``latency``; kind ``chain`` when ``bandwidth`` is None)."""
    if bandwidth is None:
        if latency != 0:
            raise InvalidInstanceError("latency", "needs a bandwidth: the host link of kind chain-offload")
        return chain
    bandwidth = require_number(bandwidth, "bandwidth", minimum=0.0, maximum=1e18, strictly_positive=True)
    latency = require_int(latency, "latency", minimum=0)
    linked = chain.with_link(
        bandwidth_out=bandwidth, bandwidth_in=bandwidth, latency=latency, name=f"{chain.name}-bw{bandwidth:g}"
    )
    parameters = {**chain.source.get("parameters", {}), "bandwidth": bandwidth, "latency": latency}
    return replace(linked, source={**chain.source, "parameters": parameters})


@checked(n=generation.size(MAX_STAGES, "stages"))
def generate_homogeneous(
    *,
    seed: int = 0,
    n: int = 10,
    budget: float = 0.5,
    size: int = 1,
    time: int = 1,
    bandwidth: float | None = None,
    latency: int = 0,
) -> Instance:
    """Revolve's class: L = n stages, fw = bw = ``time``, x = xbar = ``size``, no transients (a host link:
    `with_host_link`)."""
    n = require_int(n, "n", minimum=1)
    size, time = require_int(size, "size", minimum=1), require_int(time, "time", minimum=0)
    chain = with_budget(
        [time] * n,
        [time] * (n + 1),
        [size] * (n + 1),
        [None] + [size] * n,
        budget=_check_budget(budget),
        name=f"homogeneous-n{n}-b{budget:g}",
        source={
            "generator": "homogeneous",
            "seed": seed,
            "parameters": {"n": n, "budget": budget, "size": size, "time": time},
        },
    )
    return with_host_link(chain, bandwidth, latency)


@checked(n=generation.size(MAX_STAGES, "stages"))
def generate_random(
    *, seed: int = 0, n: int = 10, budget: float = 0.5, bandwidth: float | None = None, latency: int = 0
) -> Instance:
    """Heterogeneous chain: fw in [1, 100], bw ≈ 2·fw, x in [1, 100] MB-like units, xbar = x·[1, 3] (a host
    link: `with_host_link`)."""
    n = require_int(n, "n", minimum=1)
    rng = np.random.default_rng(seed)
    fw = rng.integers(1, 101, n)
    bw = np.concatenate([np.maximum(1, (fw * rng.uniform(1.5, 2.5, n)).round()), [int(rng.integers(1, 20))]])
    x = rng.integers(1, 101, n + 1)
    recorded = [int(x[i] * rng.uniform(1.0, 3.0)) for i in range(1, n + 1)]
    # xbar_i includes x_i: the rounding down above may leave it short by one
    xbar: list[int | None] = [None] + [max(v, int(x[i])) for i, v in enumerate(recorded, start=1)]
    chain = with_budget(
        fw.tolist(),
        [int(v) for v in bw],
        x.tolist(),
        xbar,
        budget=_check_budget(budget),
        name=f"random-n{n}-b{budget:g}-s{seed}",
        source={"generator": "random", "seed": seed, "parameters": {"n": n, "budget": budget}},
    )
    return with_host_link(chain, bandwidth, latency)


@checked(n=generation.size(MAX_STAGES, "stages"))
def generate_transformer(
    *, seed: int = 0, n: int = 4, budget: float = 0.5, bandwidth: float | None = None, latency: int = 0
) -> Instance:
    """Transformer-like: an embedding, ``n`` identical blocks (attention, MLP-up, MLP-down), a head (a host
    link: `with_host_link`).

    Per block, with h the hidden activation: attention fw 6, xbar 4h (scores
    and softmax kept); MLP up fw 8, output 4h, xbar 4h; MLP down fw 8,
    output h, xbar h. Small seeded jitter (±10 %) on the times only.
    """
    n = require_int(n, "n", minimum=1)
    rng = np.random.default_rng(seed)
    h = 8
    fw, x, recorded = [2], [h], [h]  # embedding: x_0 tokens (h), output h; recorded[i-1] is xbar_i
    for _ in range(n):
        fw += [6, 8, 8]
        x += [h, 4 * h, h]
        recorded += [4 * h, 4 * h, h]
    fw.append(3)
    x += [h, 1]  # head input h, output (loss input) 1
    recorded.append(1)
    x = x[: len(fw) + 1]
    jitter = rng.uniform(0.9, 1.1, len(fw))
    fw = [max(1, round(f * j)) for f, j in zip(fw, jitter, strict=False)]
    bw = [2 * f for f in fw] + [1]
    xbar: list[int | None] = [None] + [max(a, b) for a, b in zip(recorded, x[1:], strict=False)]
    chain = with_budget(
        fw,
        bw,
        x,
        xbar,
        budget=_check_budget(budget),
        name=f"transformer-n{n}-b{budget:g}-s{seed}",
        source={"generator": "transformer", "seed": seed, "parameters": {"n": n, "budget": budget}},
    )
    return with_host_link(chain, bandwidth, latency)


_EXTRA_SAVED = {"MaxPool2d": 2.0, "MaxPool1d": 2.0, "MaxPool3d": 2.0, "Dropout": 0.25}


def chain_from_pipedream(path: str | Path) -> dict[str, Any]:
    """Stages of a PipeDream graph (see the module docstring): names, fw, bw (µs), x, xbar, skip edges."""
    import networkx as nx

    from ..traces.pipedream import operator_name, parse_graph, storage_kind

    graph = parse_graph(path)
    digraph = nx.DiGraph()
    digraph.add_nodes_from(node.node_id for node in graph.nodes)
    digraph.add_edges_from(graph.edges)
    if not nx.is_directed_acyclic_graph(digraph):
        raise FormatError(f"{path}: the layer graph has a cycle")
    by_id = {node.node_id: node for node in graph.nodes}
    order = list(nx.lexicographical_topological_sort(digraph, key=lambda node_id: int(node_id[4:])))
    x0 = 0
    stages: list[dict[str, Any]] = []
    stage_of: dict[str, int] = {}
    for node_id in order:
        node = by_id[node_id]
        kind = storage_kind(node, digraph.in_degree(node_id) > 0)
        if kind == "input":
            x0 += node.activation_bytes
            continue
        if kind in ("inplace", "view", "scalar") and stages:
            stage = stages[-1]
            stage["fw"] += node.forward_ms
            stage["bw"] += node.backward_ms
            if kind != "scalar":
                stage["out"] = node.activation_bytes
            stage["nodes"].append(node_id)
            stage_of[node_id] = len(stages) - 1
            continue
        extra = _EXTRA_SAVED.get(operator_name(node.operator), 0.0)
        stages.append(
            {
                "name": f"{node_id}:{operator_name(node.operator)}",
                "fw": node.forward_ms,
                "bw": node.backward_ms,
                "out": node.activation_bytes,
                "extra": extra,
                "nodes": [node_id],
            }
        )
        stage_of[node_id] = len(stages) - 1
    if not stages:
        raise FormatError(f"{path}: no layer besides the inputs")
    skip = sum(1 for a, b in graph.edges if a in stage_of and b in stage_of and stage_of[b] > stage_of[a] + 1)
    x = [x0] + [stage["out"] for stage in stages]
    xbar = [None] + [stage["out"] + int(stage["extra"] * stage["out"]) for stage in stages]
    return {
        "layers": [stage["name"] for stage in stages],
        "fw": [round(stage["fw"] * 1000) for stage in stages],
        "bw": [round(stage["bw"] * 1000) for stage in stages] + [0],
        "x": x,
        "xbar": xbar,
        "skip_edges": skip,
    }


def import_pipedream(
    path: str | Path, *, budget: float = 0.6, memory: int | None = None, name: str | None = None
) -> Instance:
    """A chain Instance from a PipeDream ``graph.txt`` (see the module docstring for every approximation)."""
    budget = _check_budget(budget)
    if memory is not None:
        memory = require_int(memory, "memory", minimum=0)
    path = Path(path)
    chain = chain_from_pipedream(path)
    network = path.name.split(".")[0]
    notes = [
        "linearized in topological order (ties by node number); Input nodes dropped, their outputs are x_0",
        "in-place ops, views and Size folded into the stage before them (times added, no tensor of their own)",
        "xbar = stage output (+2x for MaxPool int64 indices, +x/4 for a Dropout mask); B i reads x_i itself",
        f"{chain['skip_edges']} skip edges ignored: a tensor read by a later stage is not kept alive (optimistic)",
        "times ms rounded to integer us; the loss backward bw[L] is 0 (not profiled); transients 0",
    ]
    source = {
        "importer": "pipedream",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"budget": budget, "memory": memory},
        "layers": chain["layers"],
        "skip_edges": chain["skip_edges"],
        "notes": notes,
    }
    default = f"{network}-b{round(100 * budget)}" if memory is None else f"{network}-m{memory}"
    try:
        return with_budget(
            chain["fw"],
            chain["bw"],
            chain["x"],
            chain["xbar"],
            budget=budget,
            name=name or default,
            source=source,
            time_unit="us",
            memory=memory,
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def import_kineto(
    path: str | Path,
    *,
    budget: float = 0.6,
    memory: int | None = None,
    iteration: int | None = None,
    name: str | None = None,
) -> Instance:
    """A chain Instance from a PyTorch (Kineto) training trace: the ResNet-50 layer table.

    Layers, kernel times (µs) and float32 input sizes come from
    `hpcsched.traces.kineto_layers.read_layers` (one iteration; see its
    docstring). In-place operators (aten names ending in ``_``: ``relu_``, the
    residual ``add_``) are folded into the layer before them (times added, no
    tensor of their own). x_i is the input of layer i, x_L the input of the
    final ``log_softmax``; xbar_{i+1} = x_{i+1}, +2·x_{i+1} for ``max_pool2d``
    (int64 indices). The loss backward bw[L] is 0; skip connections are
    ignored as for PipeDream (optimistic).
    """
    from ..traces.kineto_layers import read_layers

    budget = _check_budget(budget)
    if memory is not None:
        memory = require_int(memory, "memory", minimum=0)
    path = Path(path)
    layers = read_layers(path, iteration=iteration)
    records, output = layers[:-1], layers[-1]
    if not records:
        raise FormatError(f"{path}: no forward layer found")
    stages: list[dict[str, Any]] = []
    x = [records[0].input_bytes]
    folded = 0
    for k, record in enumerate(records):
        output_bytes = records[k + 1].input_bytes if k + 1 < len(records) else output.input_bytes
        if stages and record.operator.endswith("_"):
            stages[-1]["fw"] += record.forward_us
            stages[-1]["bw"] += record.backward_us
            folded += 1
            continue
        stages.append({"operator": record.operator, "fw": record.forward_us, "bw": record.backward_us})
        x.append(output_bytes)
    xbar = [None] + [x[i + 1] * (3 if stage["operator"] == "aten::max_pool2d" else 1) for i, stage in enumerate(stages)]
    notes = [
        f"{len(records)} operators -> {len(stages)} stages: {folded} in-place operator(s) folded into the stage "
        "before them",
        "xbar = stage output (+2x for max_pool2d int64 indices); sizes float32 from Input Dims",
        "skip connections ignored (optimistic); loss backward bw[L] = 0; kernel us rounded to integers",
    ]
    source = {
        "importer": "kineto",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"budget": budget, "memory": memory, "iteration": iteration},
        "layers": [f"{k}:{stage['operator'].replace('aten::', '')}" for k, stage in enumerate(stages)],
        "notes": notes,
    }
    network = path.name.split(".")[0]
    default = f"{network}-b{round(100 * budget)}" if memory is None else f"{network}-m{memory}"
    try:
        return with_budget(
            [round(stage["fw"]) for stage in stages],
            [round(stage["bw"]) for stage in stages] + [0],
            x,
            xbar,
            budget=budget,
            name=name or default,
            source=source,
            time_unit="us",
            memory=memory,
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


GENERATORS = {"homogeneous": generate_homogeneous, "random": generate_random, "transformer": generate_transformer}
