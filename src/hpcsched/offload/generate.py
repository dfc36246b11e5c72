"""Seeded generators and the PipeDream importer of ``offload`` instances.

Units: times are integer microseconds (``time_unit = "us"``), sizes bytes,
bandwidths bytes per microsecond (1 GB/s = 1e9 B/s = 1000 B/us).

Budgets are fractions of the *no-offload peak*: the peak memory of the
schedule that keeps every activation (`no_offload_peak`).  Link presets
(per direction, full duplex): PCIe 3.0 x16 12 GB/s, PCIe 4.0 24 GB/s, PCIe 5.0
50 GB/s, NVLink-C2C (GH200) 450 GB/s.  Latency defaults to 0.

PipeDream import (`import_pipedream`): the graph is linearized in
topological order (ties broken by node number, which follows the
profiler's execution order).  Modelling choices, written down here:

- ``Input*`` nodes are dropped; their forward time is data loading, their
  output bytes (summed) become a_0.
- Nodes with zero forward and backward time (``__getitem__`` views,
  ``hidden`` placeholders, zero-cost ``Add``/``Concat`` in GNMT) are dropped:
  they do not occupy the compute stream and their outputs alias tensors
  already counted (option ``drop_zero_time=False`` keeps them).
- Skip connections are approximated: in the chain, a_i is read only by the
  next layer, so the extra lifetime of a tensor that a later layer also
  reads (a ResNet shortcut, a GNMT residual) is ignored.  This is
  *optimistic* on memory; the number of such edges is recorded in
  ``source.skip_edges``.  VGG16 and AlexNet are chains and are exact.
- Times in ms are rounded to integer microseconds (a 0.0005 ms step at most
  per layer); a layer rounding to 0 keeps time 0.
- Workspaces are 0 (the profiles do not report them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import FormatError, InvalidInstanceError
from ..core.fields import LARGEST_INTEGER, require_bool, require_int, require_number, require_str
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


def chain_from_pipedream(path: str | Path, *, drop_zero_time: bool = True) -> dict[str, Any]:
    """Linearize a PipeDream graph: layer names, f, b (us), activations (bytes), skip-edge count."""
    import networkx as nx

    from ..traces.pipedream import parse_graph

    graph = parse_graph(path)
    digraph = nx.DiGraph()
    for node in graph.nodes:
        digraph.add_node(node.node_id)
    digraph.add_edges_from(graph.edges)
    if not nx.is_directed_acyclic_graph(digraph):
        raise FormatError(f"{path}: the layer graph has a cycle")
    by_id = {node.node_id: node for node in graph.nodes}
    order = list(nx.lexicographical_topological_sort(digraph, key=lambda node_id: int(node_id[4:])))
    inputs = [by_id[i] for i in order if by_id[i].operator.startswith("Input")]
    kept = []
    for node_id in order:
        node = by_id[node_id]
        if node.operator.startswith("Input"):
            continue
        if drop_zero_time and node.forward_ms == 0 and node.backward_ms == 0:
            continue
        kept.append(node)
    if not kept:
        raise FormatError(f"{path}: no layer with compute time")
    position = {node.node_id: k for k, node in enumerate(kept)}
    # A kept edge whose consumer is not the next layer is a skip connection; edges through
    # dropped nodes are followed to their nearest kept descendant.
    skip = 0
    for node in kept:
        for successor in digraph.successors(node.node_id):
            targets = [successor]
            while targets and targets[0] not in position:
                nxt = []
                for t in targets:
                    nxt.extend(digraph.successors(t))
                targets = [t for t in nxt] if nxt else []
                if all(t in position for t in targets):
                    break
            for target in targets:
                if target in position and position[target] != position[node.node_id] + 1:
                    skip += 1
    return {
        "layers": [f"{node.node_id}:{node.operator.split('(')[0]}" for node in kept],
        "forward": [int(round(node.forward_ms * 1000)) for node in kept],
        "backward": [int(round(node.backward_ms * 1000)) for node in kept],
        "activation": [sum(node.activation_bytes for node in inputs)] + [node.activation_bytes for node in kept],
        "skip_edges": skip,
        "dropped_input_ms": sum(node.forward_ms for node in inputs),
    }


def import_pipedream(path: str | Path, *, budget: float = 0.6, link: str = "pcie3", bandwidth: float | None = None,
                     latency: int = 0, duplex: str = "full", memory: int | None = None,
                     drop_zero_time: bool = True, name: str | None = None) -> Instance:
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
    require_bool(drop_zero_time, "drop_zero_time")
    path = Path(path)
    chain = chain_from_pipedream(path, drop_zero_time=drop_zero_time)
    network = path.name.split(".")[0]
    source = {
        "importer": "pipedream",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"budget": budget, "link": link, "bandwidth": bandwidth, "latency": latency, "duplex": duplex,
                    "memory": memory, "drop_zero_time": drop_zero_time},
        "time_rounding": "ms rounded to integer us",
        "skip_edges": chain["skip_edges"],
        "dropped_input_ms": chain["dropped_input_ms"],
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
    residual ``add_`` is a layer of its own; its second input's extra
    lifetime is ignored).  Times are kernel microseconds, rounded to
    integers; idle gaps and CPU-side time are not part of f and b.
    """
    from ..traces.kineto_layers import read_layers

    _check_link(budget, link, bandwidth, latency, duplex, memory)
    path = Path(path)
    layers = read_layers(path, iteration=iteration)
    chain, output = layers[:-1], layers[-1]
    activation = [layer.input_bytes for layer in chain] + [output.input_bytes]
    source = {
        "importer": "kineto",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"budget": budget, "link": link, "bandwidth": bandwidth, "latency": latency, "duplex": duplex,
                    "memory": memory, "iteration": iteration},
        "time_rounding": "kernel us rounded to integers",
    }
    network = path.name.split(".")[0]
    label = link if bandwidth is None else f"bw{bandwidth:g}"
    default_name = f"{network}-{label}-{int(round(100 * budget))}" if memory is None else f"{network}-{label}-m{memory}"
    return _finish(name or default_name, [round(layer.forward_us) for layer in chain],
                   [round(layer.backward_us) for layer in chain], activation, budget=budget, link=link,
                   bandwidth=bandwidth, latency=latency, duplex=duplex, source=source,
                   layers=[f"{k + 1}:{layer.operator.replace('aten::', '')}" for k, layer in enumerate(chain)],
                   memory=memory)
