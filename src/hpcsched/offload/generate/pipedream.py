"""The PipeDream importer: a layer graph linearized into a chain.

Tensor accounting first (`hpcsched.traces.pipedream.storage_kind`): every node that
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from ...core.errors import FormatError
from ...core.io import file_sha256
from ...traces.pipedream import ALIAS_KINDS, node_number, operator_name, parse_graph, storage_kind
from ..model import Instance
from .synthetic import _check_link, _finish


def chain_from_pipedream(path: str | Path) -> dict[str, Any]:
    """Linearize a PipeDream graph into a chain (see the module docstring for the exact rules).

    Returns
    -------
    dict
        ``layers`` (names), ``forward``, ``backward`` (integer us), ``activation`` (bytes, s_0..s_L:
        every materialized tensor once), ``linearization`` (counts of the graph's shape and of what
        the chain does not represent), ``notes`` (the same in sentences) and ``dropped_input_ms``.
    """
    runs = _Runs.of(path)
    shape = _Shape.of(runs)
    return {
        "layers": [f"{head}:{operator_name(runs.by_id[head].operator)}" for head in runs.heads],
        "forward": [round(ms * 1000) for ms in runs.forward_ms],
        "backward": [round(ms * 1000) for ms in runs.backward_ms],
        "activation": runs.activation,
        "linearization": shape.linearization(runs),
        "notes": shape.notes(runs),
        "dropped_input_ms": sum(node.forward_ms for node in runs.inputs),
    }


@dataclass
class _Runs:
    """The topological order cut into runs (layers), with the storage each node's output lives in."""

    path: str | Path
    order: list[str]
    by_id: dict[str, Any]
    producers: Mapping[str, Sequence[str]]
    kind: dict[str, str]
    runs: list[list[str]] = field(default_factory=list)
    storage: dict[str, int | None] = field(default_factory=dict)  # node -> tensor holding its output (0 = a_0)
    run_of: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, path: str | Path) -> _Runs:
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
        runs = cls(path, order, by_id, producers, kind)
        runs.cut()
        return runs

    def cut(self) -> None:
        """A run starts at a node that materializes a tensor and takes the alias and scalar nodes after it
        (their time is the run's, their output is its storage)."""
        runs, storage = self.runs, self.storage
        leading: list[str] = []  # alias/scalar nodes before run 1
        for node_id in self.order:
            node_kind = self.kind[node_id]
            if node_kind == "input":
                storage[node_id] = 0
                continue
            if node_kind == "materialized":
                runs.append([*leading, node_id] if not runs else [node_id])
                leading = [] if len(runs) == 1 else leading
                storage[node_id] = len(runs)
            else:
                (runs[-1] if runs else leading).append(node_id)
                tensors = [t for p in self.producers[node_id] if (t := storage.get(p)) is not None]
                # An alias shares the storage of its most recently produced tensor input (the one an
                # in-place op writes into is not named in the file; only the statistics depend on it).
                storage[node_id] = max(tensors) if node_kind in ALIAS_KINDS and tensors else None
            self.run_of[node_id] = len(runs)  # 0 for leading nodes: they join run 1 below
        if not runs:
            raise FormatError(f"{self.path}: no layer materializes a tensor (only inputs, views and in-place ops)")
        for node_id in runs[0]:
            self.run_of[node_id] = 1

    @property
    def inputs(self) -> list[Any]:
        return [self.by_id[i] for i in self.order if self.kind[i] == "input"]

    @property
    def heads(self) -> list[str]:
        return [next(i for i in run if self.kind[i] == "materialized") for run in self.runs]

    @property
    def forward_ms(self) -> list[float]:
        return [sum(self.by_id[i].forward_ms for i in run) for run in self.runs]

    @property
    def backward_ms(self) -> list[float]:
        return [sum(self.by_id[i].backward_ms for i in run) for run in self.runs]

    @property
    def activation(self) -> list[int]:
        return [sum(node.activation_bytes for node in self.inputs)] + [
            self.by_id[head].activation_bytes for head in self.heads
        ]

    def reads(self) -> list[set[int]]:
        """The tensors each layer reads: views and scalars move no data, so their consumers read the
        storage they alias; in-place ops do read (ResNet's x += shortcut reads the shortcut)."""
        reads: list[set[int]] = [set() for _ in range(len(self.runs) + 1)]
        for node_id in self.order:
            if self.kind[node_id] in ("input", "view", "scalar"):
                continue
            layer = self.run_of[node_id]
            for producer in self.producers[node_id]:
                tensor = self.storage.get(producer)
                if tensor is not None and tensor != layer:
                    reads[layer].add(tensor)
        return reads


@dataclass(frozen=True)
class _Shape:
    """What the chain does not represent of the graph: branches, merges, skips, tensors kept across cuts."""

    skip_reads: int
    not_reading_previous: list[int]
    branches: int
    merges: int
    across_count: list[int]
    across_bytes: list[int]
    worst_cut: int

    @classmethod
    def of(cls, runs: _Runs) -> _Shape:
        n_layers, reads, activation = len(runs.runs), runs.reads(), runs.activation
        readers: list[set[int]] = [set() for _ in range(n_layers + 1)]
        for layer in range(1, n_layers + 1):
            for tensor in reads[layer]:
                readers[tensor].add(layer)
        # Cut k lies between layer k and layer k + 1; the chain carries only a_k across it.
        across_count, across_bytes = [], []
        for cut in range(n_layers):
            kept = [t for t in range(cut) if readers[t] and max(readers[t]) > cut]
            across_count.append(len(kept))
            across_bytes.append(sum(activation[t] for t in kept))
        return cls(
            skip_reads=sum(len(readers[t] - {t + 1}) for t in range(n_layers + 1)),
            not_reading_previous=[k for k in range(1, n_layers + 1) if (k - 1) not in reads[k]],
            branches=sum(1 for t in range(n_layers + 1) if len(readers[t]) >= 2),
            merges=sum(1 for k in range(1, n_layers + 1) if len(reads[k]) >= 2),
            across_count=across_count,
            across_bytes=across_bytes,
            worst_cut=max(range(n_layers), key=lambda cut: (across_bytes[cut], -cut)),
        )

    @property
    def exact(self) -> bool:
        return self.skip_reads == 0 and not self.not_reading_previous and self.branches == 0 and self.merges == 0

    def linearization(self, runs: _Runs) -> dict[str, Any]:
        n_layers, counts = len(runs.runs), _kind_counts(runs)
        return {
            "order": "topological, ties by node number; a layer = a materializing node and the alias/scalar "
            "nodes after it",
            "nodes": len(runs.order),
            "layers": n_layers,
            "inputs": counts["input"],
            "materialized": counts["materialized"],
            "inplace_folded": counts["inplace"],
            "views_folded": counts["view"],
            "scalars_folded": counts["scalar"],
            "zero_time_layers": len(_zero_time_layers(runs)),
            "branches": self.branches,
            "merges": self.merges,
            "skip_edges": self.skip_reads,
            "layers_not_reading_previous": len(self.not_reading_previous),
            "tensors_kept_across_cut": {
                "max_count": max(self.across_count, default=0),
                "max_bytes": self.across_bytes[self.worst_cut] if n_layers else 0,
                "at_cut": self.worst_cut,
                "cuts_with_any": sum(1 for c in self.across_count if c),
            },
            "exact": self.exact,
        }

    def notes(self, runs: _Runs) -> list[str]:
        inputs, activation, counts = runs.inputs, runs.activation, _kind_counts(runs)
        notes = [
            f"{len(runs.order)} graph nodes -> {len(runs.runs)} layers in topological order (ties by node number); "
            f"activation bytes = the {len(inputs)} input(s) as a_0 plus one tensor per materializing node "
            f"({sum(activation)} bytes, each tensor once)",
            f"dropped {len(inputs)} input node(s): {sum(node.forward_ms for node in inputs):g} ms of data loading",
        ]
        if counts["inplace"] or counts["view"] or counts["scalar"]:
            notes.append(
                f"folded into the layer before them (time added, no tensor of their own): "
                f"{counts['inplace']} in-place op(s), {counts['view']} view(s)/tuple index(es), "
                f"{counts['scalar']} Size node(s)"
            )
        zero_time = _zero_time_layers(runs)
        if zero_time:
            shown = ", ".join(zero_time[:5]) + (", ..." if len(zero_time) > 5 else "")
            notes.append(f"{len(zero_time)} zero-time layer(s) kept for their tensor ({shown})")
        if self.exact:
            notes.append("the graph is a chain: the linearization is exact")
            return notes
        notes.append(
            f"DAG approximated by a chain: {self.branches} branch(es) (tensors read by 2+ layers), {self.merges} "
            f"merge(s) (layers reading 2+ tensors), {self.skip_reads} read(s) by a layer other than the next one, "
            f"{len(self.not_reading_previous)} layer(s) that do not read a_(k-1)"
        )
        notes.append(
            f"the chain keeps only a_k across cut k: up to {max(self.across_count, default=0)} other tensor(s) "
            f"({self.across_bytes[self.worst_cut]} bytes at cut {self.worst_cut}) are still read after the cut; "
            f"the chain lets them be offloaded while a later layer reads them (optimistic) and frees a_k at the "
            f"end of B_(k+1) whatever layer reads it last (see docs/offload.md, Real instances)"
        )
        return notes


def _kind_counts(runs: _Runs) -> dict[str, int]:
    return {
        name: sum(1 for i in runs.order if runs.kind[i] == name)
        for name in ("input", "materialized", "inplace", "view", "scalar")
    }


def _zero_time_layers(runs: _Runs) -> list[str]:
    forward, backward = runs.forward_ms, runs.backward_ms
    return [
        f"{head}:{operator_name(runs.by_id[head].operator)}"
        for k, head in enumerate(runs.heads)
        if forward[k] == 0 and backward[k] == 0
    ]


def import_pipedream(
    path: str | Path,
    *,
    budget: float = 0.6,
    link: str = "pcie3",
    bandwidth: float | None = None,
    latency: int = 0,
    duplex: str = "full",
    memory: int | None = None,
    name: str | None = None,
) -> Instance:
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
        "options": {
            "budget": budget,
            "link": link,
            "bandwidth": bandwidth,
            "latency": latency,
            "duplex": duplex,
            "memory": memory,
        },
        "time_rounding": "ms rounded to integer us",
        "skip_edges": chain["linearization"]["skip_edges"],
        "dropped_input_ms": chain["dropped_input_ms"],
        "linearization": chain["linearization"],
        "notes": chain["notes"],
    }
    label = link if bandwidth is None else f"bw{bandwidth:g}"
    default_name = f"{network}-{label}-{round(100 * budget)}" if memory is None else f"{network}-{label}-m{memory}"
    return _finish(
        name or default_name,
        chain["forward"],
        chain["backward"],
        chain["activation"],
        budget=budget,
        link=link,
        bandwidth=bandwidth,
        latency=latency,
        duplex=duplex,
        source=source,
        layers=chain["layers"],
        memory=memory,
    )
