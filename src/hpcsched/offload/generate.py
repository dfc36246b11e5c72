"""Seeded generators and the PipeDream importer of ``offload`` instances.

Units: times are integer microseconds (``time_unit = "us"``), sizes bytes,
bandwidths bytes per microsecond (1 GB/s = 1e9 B/s = 1000 B/us).

Budgets are fractions of the *no-offload peak*: the peak memory of the
schedule that keeps every activation (`no_offload_peak`).  Link presets
(per direction, full duplex): PCIe 3.0 x16 12 GB/s, PCIe 4.0 24 GB/s, PCIe 5.0
50 GB/s, NVLink-C2C (GH200) 450 GB/s.  Latency defaults to 0.

PipeDream import (`import_pipedream`, `chain_from_pipedream`).  Tensor
accounting first (`hpcsched.traces.pipedream.storage_kind`): every node that
materializes a tensor counts once, at its ``activation_size``, whatever its
compute time (a zero-time ``Concat`` or non-in-place ``Add`` allocates its
result); in-place ops (``ReLU(inplace)``, ``Add(inplace)``, ``inplace=True``),
views (``View``, ``Flatten``...) and tuple indexing (``__getitem__``) share
their input's storage and ``Size`` returns a number: none of them counts.
Then the linearization, stated exactly:

- the graph (edges sorted, so the order of the lines does not matter) is
  ordered topologically, ties broken by node number (the profiler's
  execution order);
- ``Input*`` nodes and zero-time nodes without producers (GNMT's ``hidden``)
  are dropped: their forward time is data loading, their bytes (summed) are
  a_0;
- the rest of the order is cut into runs: a run starts at a materializing
  node and takes the alias and ``Size`` nodes after it.  Each run is one
  layer k: f_k and b_k are the run's summed times (ms rounded to integer
  us once per layer), a_k is the bytes of the run's materializing node.  So
  Σ s_i is exactly the bytes of the inputs plus every materialized tensor
  once, Σ f and Σ b are the graph's (Input excluded), and a layer after a
  merge that directly follows it reads the merge's output;
- what the chain cannot say is counted in ``source["linearization"]`` and
  said in ``source["notes"]``: ``branches`` (tensors read by 2+ layers),
  ``merges`` (layers reading 2+ tensors), ``skip_edges`` (reads by a layer
  other than the next one), ``layers_not_reading_previous`` (a layer of a
  parallel branch whose chain input a_{k-1} it does not read) and
  ``tensors_kept_across_cut`` (at cut k, between layers k and k+1, the
  tensors other than a_k produced before it and read after it: the most of
  them, their bytes at the worst cut, how many cuts have any).  ``exact`` is
  true when all are 0 (VGG16, AlexNet).
- In the chain a_k is read by layer k+1 alone and lives until the end of
  B_{k+1}.  With no offloading, the forward phase holds exactly what the
  graph holds (every tensor is kept for the backward pass).  A tensor read
  by a later layer c > k+1 must really be on the GPU during F_c and B_c: the
  chain lets it be offloaded then (optimistic); its gradient accumulates
  from B_c on, before B_{k+1} where the chain allocates δ_k (optimistic);
  a tensor whose first reader is not layer k+1 really dies at the end of
  its first reader's backward, after which the chain still holds it until
  the end of B_{k+1} (pessimistic).  The instance is a model of the chain,
  not of the graph, wherever ``exact`` is false.
- Workspaces are 0 (the profiles do not report them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.fields import LARGEST_INTEGER, require_int, require_number, require_str
from .model import DUPLEX_MODES
from ..core.io import file_sha256
from .model import Instance

#: Link presets: name -> bytes per microsecond per direction.
LINKS = {"pcie3": 12_000.0, "pcie4": 24_000.0, "pcie5": 50_000.0, "nvlink-c2c": 450_000.0}

_HUGE = LARGEST_INTEGER  # memory that never binds


def no_offload_peak(instance: Instance) -> int:
    """Peak memory of the schedule that keeps every activation (no idle time)."""
    from .model import evaluate
    from .simulate import simulate

    relaxed = instance.with_memory(_HUGE)
    return int(evaluate(relaxed, simulate(relaxed, ()))["peak_memory"])


def _check_link(budget: Any, link: Any, bandwidth: Any, latency: Any, duplex: Any, memory: Any = None) -> None:
    """The parameters every generator and importer shares, checked on entry and named as given."""
    if memory is None:
        if not 0 < require_number(budget, "budget") <= 10:
            raise InvalidInstanceError("budget", f"must be a fraction of the no-offload peak in (0, 10], got {budget}")
    else:
        require_int(memory, "memory", minimum=0)
    if bandwidth is None:
        require_str(link, "link", choices=tuple(LINKS))
    else:
        require_number(bandwidth, "bandwidth", strictly_positive=True)
    require_int(latency, "latency", minimum=0)
    require_str(duplex, "duplex", choices=DUPLEX_MODES)


def _check_generator(seed: Any, n: Any, budget: Any, link: Any, bandwidth: Any, latency: Any, duplex: Any,
                     **sizes: tuple[Any, int]) -> int:
    """``n`` (layers, >= 1) and the shared and family parameters (``name=(value, minimum)``); returns n."""
    n = require_int(n, "n", minimum=1)
    require_int(seed, "seed", minimum=0)
    _check_link(budget, link, bandwidth, latency, duplex)
    for name, (value, minimum) in sizes.items():
        require_int(value, name, minimum=minimum)
    return n


def _bandwidth(link: str | None, bandwidth: float | None) -> float:
    if bandwidth is not None:
        return float(bandwidth)
    if link not in LINKS:
        raise InvalidInstanceError("link", f"must be one of {', '.join(LINKS)}, got {link!r}")
    return LINKS[link]


def _finish(name: str, forward, backward, activation, *, budget: float, link: str | None, bandwidth: float | None,
            latency: int, duplex: str, source: dict, layers=(), memory: int | None = None) -> Instance:
    bw = _bandwidth(link, bandwidth)
    try:
        base = Instance(name=name, forward=tuple(int(x) for x in forward), backward=tuple(int(x) for x in backward),
                        activation=tuple(int(x) for x in activation), memory=_HUGE, bandwidth_out=bw, bandwidth_in=bw,
                        latency=int(latency), duplex=duplex, layers=tuple(layers), time_unit="us", source=source)
    except InvalidInstanceError as error:  # too slow a link (transfer times past 2^53): name the parameter given
        parameter = {"data.bandwidth_out": "bandwidth", "data.bandwidth_in": "bandwidth", "data.latency": "latency"}
        if error.field not in parameter:
            raise
        raise InvalidInstanceError(parameter[error.field], error.reason) from None
    if memory is None:  # budget checked on entry (`_check_link`)
        peak = no_offload_peak(base)
        memory = int(float(budget) * peak)
        source = {**source, "no_offload_peak": peak, "budget": float(budget)}
    import dataclasses

    return dataclasses.replace(base, memory=int(memory), source=source)


def _common(family: str, seed: int, n: int, params: dict) -> dict:
    return {"generator": family, "seed": int(seed), "n": int(n), "params": params}


def generate_homogeneous(*, seed: int = 0, n: int = 10, forward: int = 100, backward: int = 200,
                         activation: int = 1_000_000, budget: float = 0.5, link: str = "pcie3",
                         bandwidth: float | None = None, latency: int = 0, duplex: str = "full") -> Instance:
    """Identical layers: f, b, s constant (the seed is unused but recorded)."""
    n = _check_generator(seed, n, budget, link, bandwidth, latency, duplex, forward=(forward, 0), backward=(backward, 0),
                         activation=(activation, 0))
    params = dict(forward=forward, backward=backward, activation=activation, budget=budget, link=link,
                  bandwidth=bandwidth, latency=latency, duplex=duplex)
    return _finish(f"homogeneous-n{n}-s{seed}", [forward] * n, [backward] * n, [activation] * (n + 1),
                   budget=budget, link=link, bandwidth=bandwidth, latency=latency, duplex=duplex,
                   source=_common("homogeneous", seed, n, params))


def generate_random(*, seed: int = 0, n: int = 20, budget: float = 0.5, link: str = "pcie3",
                    bandwidth: float | None = None, latency: int = 0, duplex: str = "full",
                    max_time: int = 1000, max_activation: int = 20_000_000) -> Instance:
    """Heterogeneous chain: f, s uniform, b = f times U(1, 3)."""
    n = _check_generator(seed, n, budget, link, bandwidth, latency, duplex, max_time=(max_time, 1),
                         max_activation=(max_activation, 1))
    rng = np.random.default_rng(seed)
    forward = rng.integers(1, max_time + 1, n)
    backward = np.ceil(forward * rng.uniform(1.0, 3.0, n)).astype(int)
    activation = rng.integers(max_activation // 20, max_activation + 1, n + 1)
    params = dict(budget=budget, link=link, bandwidth=bandwidth, latency=latency, duplex=duplex,
                  max_time=max_time, max_activation=max_activation)
    return _finish(f"random-n{n}-s{seed}", forward, backward, activation, budget=budget, link=link,
                   bandwidth=bandwidth, latency=latency, duplex=duplex, source=_common("random", seed, n, params))


def generate_cnn(*, seed: int = 0, n: int = 20, budget: float = 0.75, link: str = "pcie3",
                 bandwidth: float | None = None, latency: int = 0, duplex: str = "full",
                 first_activation: int = 400_000_000, first_time: int = 2000) -> Instance:
    """CNN-like: activations shrink and compute per byte grows with depth (noisy)."""
    n = _check_generator(seed, n, budget, link, bandwidth, latency, duplex, first_activation=(first_activation, 1),
                         first_time=(first_time, 0))
    rng = np.random.default_rng(seed)
    depth = np.linspace(0.0, 1.0, n + 1)
    activation = (first_activation * 2.0 ** (-5 * depth) * rng.uniform(0.8, 1.2, n + 1)).astype(int) + 1
    intensity = 2.0 ** (3 * depth[1:])  # time per byte grows with depth
    forward = np.maximum(1, (first_time * intensity * activation[1:] / first_activation * rng.uniform(0.7, 1.3, n))).astype(int)
    backward = np.maximum(1, (forward * rng.uniform(1.5, 2.5, n))).astype(int)
    params = dict(budget=budget, link=link, bandwidth=bandwidth, latency=latency, duplex=duplex,
                  first_activation=first_activation, first_time=first_time)
    return _finish(f"cnn-n{n}-s{seed}", forward, backward, activation, budget=budget, link=link,
                   bandwidth=bandwidth, latency=latency, duplex=duplex, source=_common("cnn", seed, n, params))


def generate_transformer(*, seed: int = 0, n: int = 24, budget: float = 0.5, link: str = "pcie3",
                         bandwidth: float | None = None, latency: int = 0, duplex: str = "full",
                         hidden_bytes: int = 50_000_000, block_time: int = 3000) -> Instance:
    """Transformer-like: repeating (attention, MLP) pairs, attention stores more and runs shorter."""
    n = _check_generator(seed, n, budget, link, bandwidth, latency, duplex, hidden_bytes=(hidden_bytes, 0),
                         block_time=(block_time, 0))
    rng = np.random.default_rng(seed)
    forward, activation = [], [hidden_bytes]
    for k in range(n):
        attention = k % 2 == 0
        forward.append(int(block_time * (0.6 if attention else 1.0) * rng.uniform(0.9, 1.1)))
        activation.append(int(hidden_bytes * (3.0 if attention else 1.0) * rng.uniform(0.95, 1.05)))
    backward = [2 * x for x in forward]
    params = dict(budget=budget, link=link, bandwidth=bandwidth, latency=latency, duplex=duplex,
                  hidden_bytes=hidden_bytes, block_time=block_time)
    return _finish(f"transformer-n{n}-s{seed}", forward, backward, activation, budget=budget, link=link,
                   bandwidth=bandwidth, latency=latency, duplex=duplex, source=_common("transformer", seed, n, params))


def chain_from_pipedream(path: str | Path) -> dict[str, Any]:
    """Linearize a PipeDream graph into a chain (see the module docstring for the exact rules).

    Returns
    -------
    dict
        ``layers`` (names), ``forward``, ``backward`` (integer us), ``activation`` (bytes, s_0..s_L:
        every materialized tensor once), ``linearization`` (counts of the graph's shape and of what
        the chain does not represent), ``notes`` (the same in sentences) and ``dropped_input_ms``.
    """
    import networkx as nx

    from ..traces.pipedream import ALIAS_KINDS, node_number, operator_name, parse_graph, storage_kind

    graph = parse_graph(path)
    producers = graph.predecessors()
    digraph = nx.DiGraph()
    digraph.add_nodes_from(sorted((node.node_id for node in graph.nodes), key=node_number))
    digraph.add_edges_from(graph.edges)
    if not nx.is_directed_acyclic_graph(digraph):
        raise FormatError(f"{path}: the layer graph has a cycle")
    by_id = {node.node_id: node for node in graph.nodes}
    order = list(nx.lexicographical_topological_sort(digraph, key=node_number))
    kind = {node_id: storage_kind(by_id[node_id], bool(producers[node_id])) for node_id in order}

    # Cut the topological order into runs: a run starts at a node that materializes a tensor and takes
    # the alias and scalar nodes after it (their time is the run's, their output is its storage).
    runs: list[list[str]] = []
    leading: list[str] = []  # alias/scalar nodes before the first materializing node (they join run 1)
    storage: dict[str, int | None] = {}  # node -> index of the tensor holding its output (0 = a_0)
    run_of: dict[str, int] = {}
    for node_id in order:
        node_kind = kind[node_id]
        if node_kind == "input":
            storage[node_id] = 0
            continue
        if node_kind == "materialized":
            runs.append(leading + [node_id] if not runs else [node_id])
            leading = [] if len(runs) == 1 else leading
            storage[node_id] = len(runs)
        else:
            (runs[-1] if runs else leading).append(node_id)
            tensors = [storage[p] for p in producers[node_id] if storage.get(p) is not None]
            # An alias shares the storage of its most recently produced tensor input (the one an
            # in-place op writes into is not named in the file; only the statistics depend on it).
            storage[node_id] = max(tensors) if node_kind in ALIAS_KINDS and tensors else None
        run_of[node_id] = len(runs)  # 0 for leading nodes: they join run 1 below
    if not runs:
        raise FormatError(f"{path}: no layer materializes a tensor (only inputs, views and in-place ops)")
    for node_id in runs[0]:
        run_of[node_id] = 1

    inputs = [by_id[i] for i in order if kind[i] == "input"]
    heads = [next(i for i in run if kind[i] == "materialized") for run in runs]
    n_layers = len(runs)
    forward_ms = [sum(by_id[i].forward_ms for i in run) for run in runs]
    backward_ms = [sum(by_id[i].backward_ms for i in run) for run in runs]
    activation = [sum(node.activation_bytes for node in inputs)] + [by_id[head].activation_bytes for head in heads]

    # Which tensors each layer reads: views and scalars move no data, so their consumers read the
    # storage they alias; in-place ops do read (ResNet's x += shortcut reads the shortcut).
    reads: list[set[int]] = [set() for _ in range(n_layers + 1)]
    for node_id in order:
        if kind[node_id] in ("input", "view", "scalar"):
            continue
        layer = run_of[node_id]
        for producer in producers[node_id]:
            tensor = storage.get(producer)
            if tensor is not None and tensor != layer:
                reads[layer].add(tensor)
    readers: list[set[int]] = [set() for _ in range(n_layers + 1)]
    for layer in range(1, n_layers + 1):
        for tensor in reads[layer]:
            readers[tensor].add(layer)
    skip_reads = sum(len(readers[t] - {t + 1}) for t in range(n_layers + 1))
    not_reading_previous = [k for k in range(1, n_layers + 1) if (k - 1) not in reads[k]]
    branches = sum(1 for t in range(n_layers + 1) if len(readers[t]) >= 2)
    merges = sum(1 for k in range(1, n_layers + 1) if len(reads[k]) >= 2)
    # Cut k lies between layer k and layer k + 1; the chain carries only a_k across it.
    across_count, across_bytes = [], []
    for cut in range(n_layers):
        kept = [t for t in range(cut) if readers[t] and max(readers[t]) > cut]
        across_count.append(len(kept))
        across_bytes.append(sum(activation[t] for t in kept))
    worst_cut = max(range(n_layers), key=lambda cut: (across_bytes[cut], -cut))
    counts = {name: sum(1 for i in order if kind[i] == name)
              for name in ("input", "materialized", "inplace", "view", "scalar")}
    zero_time_layers = [f"{head}:{operator_name(by_id[head].operator)}" for k, head in enumerate(heads)
                        if forward_ms[k] == 0 and backward_ms[k] == 0]
    exact = skip_reads == 0 and not not_reading_previous and branches == 0 and merges == 0
    linearization = {
        "order": "topological, ties by node number; a layer = a materializing node and the alias/scalar nodes after it",
        "nodes": len(order),
        "layers": n_layers,
        "inputs": counts["input"],
        "materialized": counts["materialized"],
        "inplace_folded": counts["inplace"],
        "views_folded": counts["view"],
        "scalars_folded": counts["scalar"],
        "zero_time_layers": len(zero_time_layers),
        "branches": branches,
        "merges": merges,
        "skip_edges": skip_reads,
        "layers_not_reading_previous": len(not_reading_previous),
        "tensors_kept_across_cut": {
            "max_count": max(across_count, default=0),
            "max_bytes": across_bytes[worst_cut] if n_layers else 0,
            "at_cut": worst_cut,
            "cuts_with_any": sum(1 for c in across_count if c),
        },
        "exact": exact,
    }
    notes = [
        f"{len(order)} graph nodes -> {n_layers} layers in topological order (ties by node number); "
        f"activation bytes = the {len(inputs)} input(s) as a_0 plus one tensor per materializing node "
        f"({sum(activation)} bytes, each tensor once)",
        f"dropped {len(inputs)} input node(s): {sum(node.forward_ms for node in inputs):g} ms of data loading",
    ]
    if counts["inplace"] or counts["view"] or counts["scalar"]:
        notes.append(f"folded into the layer before them (time added, no tensor of their own): "
                     f"{counts['inplace']} in-place op(s), {counts['view']} view(s)/tuple index(es), "
                     f"{counts['scalar']} Size node(s)")
    if zero_time_layers:
        shown = ", ".join(zero_time_layers[:5]) + (", ..." if len(zero_time_layers) > 5 else "")
        notes.append(f"{len(zero_time_layers)} zero-time layer(s) kept for their tensor ({shown})")
    if exact:
        notes.append("the graph is a chain: the linearization is exact")
    else:
        cut = linearization["tensors_kept_across_cut"]
        notes.append(
            f"DAG approximated by a chain: {branches} branch(es) (tensors read by 2+ layers), {merges} merge(s) "
            f"(layers reading 2+ tensors), {skip_reads} read(s) by a layer other than the next one, "
            f"{len(not_reading_previous)} layer(s) that do not read a_(k-1)")
        notes.append(
            f"the chain keeps only a_k across cut k: up to {cut['max_count']} other tensor(s) "
            f"({cut['max_bytes']} bytes at cut {cut['at_cut']}) are still read after the cut; the chain lets "
            f"them be offloaded while a later layer reads them (optimistic) and frees a_k at the end of "
            f"B_(k+1) whatever layer reads it last (see docs/offload.md, Real instances)")
    return {
        "layers": [f"{head}:{operator_name(by_id[head].operator)}" for head in heads],
        "forward": [int(round(ms * 1000)) for ms in forward_ms],
        "backward": [int(round(ms * 1000)) for ms in backward_ms],
        "activation": activation,
        "linearization": linearization,
        "notes": notes,
        "dropped_input_ms": sum(node.forward_ms for node in inputs),
    }


def import_pipedream(path: str | Path, *, budget: float = 0.6, link: str = "pcie3", bandwidth: float | None = None,
                     latency: int = 0, duplex: str = "full", memory: int | None = None,
                     name: str | None = None) -> Instance:
    """An offload Instance from a PipeDream ``graph.txt`` (see the module docstring).

    Parameters
    ----------
    path
        The graph file.
    budget
        Memory as a fraction of the no-offload peak (ignored when ``memory`` is given).
    link
        Preset of `LINKS` (ignored when ``bandwidth`` is given, in bytes/us).
    """
    _check_link(budget, link, bandwidth, latency, duplex, memory)
    path = Path(path)
    chain = chain_from_pipedream(path)
    network = path.name.split(".")[0]
    source = {
        "importer": "pipedream",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"budget": budget, "link": link, "bandwidth": bandwidth, "latency": latency, "duplex": duplex,
                    "memory": memory},
        "time_rounding": "ms rounded to integer us",
        "skip_edges": chain["linearization"]["skip_edges"],
        "dropped_input_ms": chain["dropped_input_ms"],
        "linearization": chain["linearization"],
        "notes": chain["notes"],
    }
    label = link if bandwidth is None else f"bw{bandwidth:g}"
    default_name = f"{network}-{label}-{int(round(100 * budget))}" if memory is None else f"{network}-{label}-m{memory}"
    return _finish(name or default_name, chain["forward"], chain["backward"], chain["activation"], budget=budget,
                   link=link, bandwidth=bandwidth, latency=latency, duplex=duplex, source=source,
                   layers=chain["layers"], memory=memory)


def import_kineto(path: str | Path, *, budget: float = 0.6, link: str = "pcie3", bandwidth: float | None = None,
                  latency: int = 0, duplex: str = "full", memory: int | None = None, iteration: int | None = None,
                  name: str | None = None) -> Instance:
    """An offload Instance from a PyTorch/Kineto training trace (per-layer GPU kernel times).

    The layers, their GPU times and input sizes come from
    `hpcsched.traces.kineto_layers.read_layers` (see its docstring: one
    iteration, top-level module operators in time order, backward nodes
    paired in reverse order of the same kind, float32 sizes).  The same
    chain approximation of skip connections as for PipeDream applies (the
    residual ``add_`` writes into its first input; its second input's extra
    lifetime is ignored).  Times are kernel microseconds, rounded to
    integers; idle gaps and CPU-side time are not part of f and b.

    In-place operators (aten names ending in ``_``: ``relu_``, the residual
    ``add_``) write into their input's storage: their output is no new
    tensor, so each is folded into the layer before it (times added, one
    activation: the storage both share).  ResNet-50: 174 operators, 109
    layers.
    """
    from ..traces.kineto_layers import read_layers

    _check_link(budget, link, bandwidth, latency, duplex, memory)
    path = Path(path)
    layers = read_layers(path, iteration=iteration)
    records, output = layers[:-1], layers[-1]
    # Fold each in-place operator into the layer before it: its output is its input's storage.
    chain: list[dict[str, Any]] = []
    activation = [records[0].input_bytes] if records else []
    folded = 0
    for k, record in enumerate(records):
        output_bytes = records[k + 1].input_bytes if k + 1 < len(records) else output.input_bytes
        if chain and record.operator.endswith("_"):
            chain[-1]["forward_us"] += record.forward_us
            chain[-1]["backward_us"] += record.backward_us
            folded += 1
            continue
        chain.append({"operator": record.operator, "forward_us": record.forward_us, "backward_us": record.backward_us})
        activation.append(output_bytes)
    source = {
        "importer": "kineto",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"budget": budget, "link": link, "bandwidth": bandwidth, "latency": latency, "duplex": duplex,
                    "memory": memory, "iteration": iteration},
        "time_rounding": "kernel us rounded to integers",
        "notes": [f"{len(records)} operators -> {len(chain)} layers: {folded} in-place operator(s) (relu_, add_) "
                  "folded into the layer before them (no tensor of their own)",
                  "skip connections: the residual add_'s second input is kept only until the next layer's "
                  "backward in the chain (approximation)"],
    }
    network = path.name.split(".")[0]
    label = link if bandwidth is None else f"bw{bandwidth:g}"
    default_name = f"{network}-{label}-{int(round(100 * budget))}" if memory is None else f"{network}-{label}-m{memory}"
    return _finish(name or default_name, [round(layer["forward_us"]) for layer in chain],
                   [round(layer["backward_us"]) for layer in chain], activation, budget=budget, link=link,
                   bandwidth=bandwidth, latency=latency, duplex=duplex, source=source,
                   layers=[f"{k + 1}:{layer['operator'].replace('aten::', '')}" for k, layer in enumerate(chain)],
                   memory=memory)
