"""The pipeline instance: a block graph (one micro-batch's work) repeated over micro-batches.

Every field is checked when an `Instance` is built (``__post_init__``): bad
input ends in one `InvalidInstanceError` naming the field. The rules are those
of docs/pipeline.md, "Definition" and "File format".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    LARGEST_INTEGER,
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from .checks import check_acyclic, check_levels_nonnegative, check_memory_balance
from .schema import BLOCK_KINDS, OBJECTIVES

#: Most devices and most blocks per micro-batch an instance may have (bad input above).
MAX_DEVICES = 100_000
MAX_BLOCKS = 1_000_000


@dataclass(frozen=True)
class Block:
    """The work of one block of one micro-batch.

    Attributes
    ----------
    name
        Unique name.
    devices
        The devices the block occupies, all at once (usually one; several for a
        block sharded over devices, as Tessel's placements have).
    duration
        Integer time units, >= 1.
    memory
        Signed memory delta on each of its devices: > 0 allocated at the block's
        start, < 0 freed at its end, 0 nothing.
    stage, kind
        Optional labels: pipeline stage (int >= 0) and ``"F"``, ``"B"`` or ``"W"``.
    """

    name: str
    devices: tuple[int, ...]
    duration: int
    memory: int
    stage: int | None = None
    kind: str | None = None

    @property
    def device(self) -> int:
        """The block's first device (its only one unless the block spans several)."""
        return self.devices[0]


@dataclass(frozen=True)
class Edge:
    """``target`` of a micro-batch starts at least ``delay`` after ``source`` of the same micro-batch ends."""

    source: int
    target: int
    delay: int = 0


def _checked_devices(raw: Any, path: str, devices: int) -> tuple[int, ...]:
    items = raw if isinstance(raw, (list, tuple)) else [raw]
    if isinstance(raw, (list, tuple)) and not raw:
        raise InvalidInstanceError(path, "must name at least one device")
    checked = tuple(
        require_int(item, f"{path}[{i}]" if isinstance(raw, (list, tuple)) else path) for i, item in enumerate(items)
    )
    for i, device in enumerate(checked):
        where = f"{path}[{i}]" if isinstance(raw, (list, tuple)) else path
        if not 0 <= device < devices:
            raise InvalidInstanceError(where, f"device {device} does not exist (valid: 0..{devices - 1})")
    if len(set(checked)) != len(checked):
        raise InvalidInstanceError(path, f"names a device twice: {list(checked)}")
    return checked


def _checked_block(raw: Any, path: str, devices: int) -> Block:
    if isinstance(raw, Block):
        raw = {
            "name": raw.name,
            "device": list(raw.devices),
            "duration": raw.duration,
            "memory": raw.memory,
            "stage": raw.stage,
            "kind": raw.kind,
        }
        raw = {key: value for key, value in raw.items() if value is not None}
    record = require_dict(raw, path)
    require_known_keys(record, ("name", "device", "duration", "memory", "stage", "kind"), path, "a block")
    name = require_str(require_key(record, "name", path), f"{path}.name")
    if not name:
        raise InvalidInstanceError(f"{path}.name", "must not be empty")
    on = _checked_devices(require_key(record, "device", path), f"{path}.device", devices)
    duration = require_int(require_key(record, "duration", path), f"{path}.duration", minimum=1)
    memory = require_int(require_key(record, "memory", path), f"{path}.memory")
    stage = record.get("stage")
    if stage is not None:
        stage = require_int(stage, f"{path}.stage", minimum=0)
    kind = record.get("kind")
    if kind is not None:
        kind = require_str(kind, f"{path}.kind", choices=BLOCK_KINDS)
    return Block(name, on, duration, memory, stage, kind)


def _checked_edges(raw: Sequence[Any], blocks: tuple[Block, ...]) -> tuple[Edge, ...]:
    index = {block.name: i for i, block in enumerate(blocks)}
    edges, seen = [], set()
    for i, item in enumerate(raw):
        path = f"data.edges[{i}]"
        if isinstance(item, Edge):
            source, target, delay = item.source, item.target, item.delay
            if not (0 <= source < len(blocks) and 0 <= target < len(blocks)):
                raise InvalidInstanceError(path, f"block index out of range (0..{len(blocks) - 1})")
        else:
            record = require_dict(item, path)
            require_known_keys(record, ("from", "to", "delay"), path, "an edge")
            names = []
            for key in ("from", "to"):
                name = require_str(require_key(record, key, path), f"{path}.{key}")
                if name not in index:
                    raise InvalidInstanceError(f"{path}.{key}", f"no block is named '{name}'")
                names.append(index[name])
            source, target = names
            delay = record.get("delay", 0)
        delay = require_int(delay, f"{path}.delay", minimum=0)
        if source == target:
            raise InvalidInstanceError(path, f"block '{blocks[source].name}' depends on itself")
        if (source, target) in seen:
            raise InvalidInstanceError(path, f"duplicate edge {blocks[source].name} -> {blocks[target].name}")
        seen.add((source, target))
        edges.append(Edge(source, target, delay))
    return tuple(edges)


def _checked_limits(raw: Any, devices: int) -> tuple[int | None, ...]:
    if raw is None:
        return (None,) * devices
    items = require_list(raw, "data.memory_limit", length=devices)
    return tuple(
        None if item is None else require_int(item, f"data.memory_limit[{i}]", minimum=0)
        for i, item in enumerate(items)
    )


@dataclass(frozen=True)
class Instance:
    """A pipeline instance (docs/pipeline.md, "Definition").

    Attributes
    ----------
    name
        Instance name.
    devices
        D, the number of devices.
    memory_limit
        Per device, its memory limit (None: unlimited).
    blocks
        The blocks of one micro-batch.
    edges
        Dependencies inside one micro-batch (block indices).
    micro_batches
        The micro-batches a solution lists: N of the step (objective
        ``makespan``), or R per period (objective ``period``, the file's
        ``period_micro_batches``).
    objective
        ``"makespan"`` or ``"period"``.
    time_unit, source
        Unit of the integer times and provenance, as for every problem.
    """

    name: str
    devices: int
    memory_limit: tuple[int | None, ...]
    blocks: tuple[Block, ...]
    edges: tuple[Edge, ...]
    micro_batches: int = 1
    objective: str = "makespan"
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        devices = require_int(self.devices, "data.devices", minimum=1, maximum=MAX_DEVICES)
        object.__setattr__(self, "devices", devices)
        object.__setattr__(self, "objective", require_str(self.objective, "data.objective", choices=OBJECTIVES))
        count = "data.micro_batches" if self.objective == "makespan" else "data.period_micro_batches"
        object.__setattr__(self, "micro_batches", require_int(self.micro_batches, count, minimum=1))
        object.__setattr__(self, "memory_limit", _checked_limits(self.memory_limit, devices))
        raw_blocks = require_list(list(self.blocks), "data.blocks", min_length=1)
        if len(raw_blocks) > MAX_BLOCKS:
            raise InvalidInstanceError("data.blocks", f"at most {MAX_BLOCKS} blocks, got {len(raw_blocks)}")
        blocks = tuple(_checked_block(block, f"data.blocks[{i}]", devices) for i, block in enumerate(raw_blocks))
        seen: dict[str, int] = {}
        for i, block in enumerate(blocks):
            if block.name in seen:
                raise InvalidInstanceError(
                    f"data.blocks[{i}].name", f"duplicate name '{block.name}' (also block {seen[block.name]})"
                )
            seen[block.name] = i
        edges = _checked_edges(require_list(list(self.edges), "data.edges"), blocks)
        object.__setattr__(self, "blocks", blocks)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "source", dict(self.source))
        check_acyclic(blocks, edges)
        check_memory_balance(blocks, devices)
        check_levels_nonnegative(blocks, edges, devices)
        self._check_horizon()

    def _check_horizon(self) -> None:
        """Refuse instances whose sequential schedule ends after 2^53 (every start must stay an exact integer)."""
        one = sum(block.duration for block in self.blocks) + sum(edge.delay for edge in self.edges)
        total = one * self.micro_batches
        if total > LARGEST_INTEGER:
            raise InvalidInstanceError(
                "data.blocks",
                f"micro_batches x (sum of durations and delays) = {total} exceeds 2^53 = {LARGEST_INTEGER}: "
                "schedules must end by 2^53 so that every start stays exact",
            )

    # ----- reading and writing the data section

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        """The instance described by the ``data`` section of a file."""
        data = require_dict(data, "data")
        require_known_keys(
            data,
            ("devices", "memory_limit", "blocks", "edges", "objective", "micro_batches", "period_micro_batches"),
            "data",
            "pipeline data",
        )
        objective = require_str(data.get("objective", "makespan"), "data.objective", choices=OBJECTIVES)
        if objective == "makespan":
            if "period_micro_batches" in data:
                raise InvalidInstanceError("data.period_micro_batches", "is only for objective 'period'")
            micro_batches = require_key(data, "micro_batches", "data")
        else:
            if "micro_batches" in data:
                raise InvalidInstanceError(
                    "data.micro_batches", "is only for objective 'makespan' (a period uses period_micro_batches)"
                )
            micro_batches = data.get("period_micro_batches", 1)
        return cls(
            name=name,
            devices=require_key(data, "devices", "data"),
            memory_limit=cast(Any, data.get("memory_limit")),  # None: all unlimited (checked)
            blocks=tuple(require_list(require_key(data, "blocks", "data"), "data.blocks", min_length=1)),
            edges=tuple(require_list(data.get("edges", []), "data.edges")),
            micro_batches=micro_batches,
            objective=objective,
            time_unit=time_unit,
            source=dict(source or {}),
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        blocks = []
        for block in self.blocks:
            record: dict[str, Any] = {
                "name": block.name,
                "device": block.devices[0] if len(block.devices) == 1 else list(block.devices),
                "duration": block.duration,
                "memory": block.memory,
            }
            if block.stage is not None:
                record["stage"] = block.stage
            if block.kind is not None:
                record["kind"] = block.kind
            blocks.append(record)
        data: dict[str, Any] = {
            "devices": self.devices,
            "memory_limit": None if all(m is None for m in self.memory_limit) else list(self.memory_limit),
            "objective": self.objective,
        }
        data["micro_batches" if self.objective == "makespan" else "period_micro_batches"] = self.micro_batches
        data["blocks"] = blocks
        data["edges"] = [
            {"from": self.blocks[e.source].name, "to": self.blocks[e.target].name, "delay": e.delay} for e in self.edges
        ]
        return data

    # ----- derived data the methods share

    @property
    def n_blocks(self) -> int:
        """B, the blocks of one micro-batch."""
        return len(self.blocks)

    @property
    def is_period(self) -> bool:
        """True for the period objective."""
        return self.objective == "period"

    def device_blocks(self, device: int) -> tuple[int, ...]:
        """Indices of the blocks that occupy ``device``, in block order."""
        return tuple(b for b, block in enumerate(self.blocks) if device in block.devices)

    def work(self) -> tuple[int, ...]:
        """Per device, the busy time of one micro-batch (sum of its blocks' durations)."""
        busy = [0] * self.devices
        for block in self.blocks:
            for device in block.devices:
                busy[device] += block.duration
        return tuple(busy)

    def predecessors(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Per block, its ``(predecessor, delay)`` pairs."""
        found: list[list[tuple[int, int]]] = [[] for _ in self.blocks]
        for edge in self.edges:
            found[edge.target].append((edge.source, edge.delay))
        return tuple(tuple(items) for items in found)

    def successors(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Per block, its ``(successor, delay)`` pairs."""
        found: list[list[tuple[int, int]]] = [[] for _ in self.blocks]
        for edge in self.edges:
            found[edge.source].append((edge.target, edge.delay))
        return tuple(tuple(items) for items in found)

    def topological_order(self) -> tuple[int, ...]:
        """The blocks in a topological order of the edges (smallest index first among the ready ones)."""
        import heapq

        indegree = [0] * self.n_blocks
        for edge in self.edges:
            indegree[edge.target] += 1
        ready = [b for b in range(self.n_blocks) if indegree[b] == 0]
        heapq.heapify(ready)
        successors = self.successors()
        order = []
        while ready:
            b = heapq.heappop(ready)
            order.append(b)
            for c, _ in successors[b]:
                indegree[c] -= 1
                if indegree[c] == 0:
                    heapq.heappush(ready, c)
        return tuple(order)
