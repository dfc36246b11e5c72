"""`Instance`: m servers, n tasks with integer durations and replica sets, all checked when built.

Storage is compact so that 10^6-10^7 tasks fit: durations are one int64
array, replica sets are in CSR form (``replica_offsets`` of length n+1 and
``replica_servers``), all read-only numpy arrays. Task names are ``None``
unless the file gave names other than the defaults ``j0, j1, ...``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from .checks import checked_durations, checked_names, checked_replicas, default_name, frozen
from .schema import DATA_KEYS, MAX_SERVERS, OBJECTIVES, TASK_KEYS


@dataclass(frozen=True, eq=False)
class Instance:
    """A locality instance (see the module docstring).

    Build it with `Instance.create` (Python data or numpy arrays) or
    `Instance.from_data` (the JSON ``data`` section); both check everything.

    Attributes
    ----------
    name
        Instance name.
    servers
        Number of servers ``m``.
    durations
        int64 array of the n task durations (read-only).
    replica_offsets
        int64 array of length n+1; the replicas of task j are
        ``replica_servers[replica_offsets[j]:replica_offsets[j+1]]``.
    replica_servers
        int32 array of server indices (read-only).
    objective
        ``"makespan"`` or ``"communication"``.
    remote_cost
        Extra duration of a non-local task (objective 2 only).
    task_names
        Tuple of names, or None for the defaults ``j0, j1, ...``.
    time_unit
        Unit of durations, or None.
    source
        Provenance.
    """

    name: str
    servers: int
    durations: np.ndarray
    replica_offsets: np.ndarray
    replica_servers: np.ndarray
    objective: str = "makespan"
    remote_cost: int = 0
    task_names: tuple[str, ...] | None = None
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        m = require_int(self.servers, "data.servers", minimum=1, maximum=MAX_SERVERS)
        object.__setattr__(self, "servers", m)
        require_str(self.objective, "data.objective", choices=OBJECTIVES)
        object.__setattr__(self, "remote_cost", require_int(self.remote_cost, "data.remote_cost", minimum=0))
        durations = checked_durations(self.durations, self.objective, self.remote_cost)
        offsets, servers = checked_replicas(self.replica_offsets, self.replica_servers, durations.size, m)
        if self.task_names is not None:
            object.__setattr__(self, "task_names", checked_names(self.task_names, durations.size))
        object.__setattr__(self, "durations", frozen(durations))
        object.__setattr__(self, "replica_offsets", frozen(offsets))
        object.__setattr__(self, "replica_servers", frozen(servers))
        object.__setattr__(self, "source", dict(self.source))

    # ------------------------------------------------------------------ build
    @classmethod
    def create(
        cls,
        servers: int,
        durations: Sequence[int] | np.ndarray,
        replicas: Sequence[Sequence[int]] | np.ndarray,
        *,
        objective: str = "makespan",
        remote_cost: int = 0,
        task_names: Sequence[str] | None = None,
        name: str = "locality",
        time_unit: str | None = None,
        source: Mapping[str, Any] | None = None,
    ) -> Instance:
        """Build a checked instance.

        ``replicas`` is either an ``n x r`` integer array (every task has r
        replicas) or a sequence of per-task server lists.
        """
        durations = np.asarray(durations)
        if isinstance(replicas, np.ndarray) and replicas.ndim == 2:
            n, width = replicas.shape
            offsets = np.arange(n + 1, dtype=np.int64) * width
            flat = replicas.reshape(-1)
        else:
            lists = [np.asarray(list(r)) if len(r) else np.zeros(0, dtype=np.int64) for r in replicas]
            counts = np.array([len(r) for r in lists], dtype=np.int64)
            offsets = np.concatenate(([0], np.cumsum(counts)))
            flat = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
            if flat.size and flat.dtype.kind not in "iu":
                raise InvalidInstanceError("data.tasks[].replicas", "must be integers")
            flat = flat.astype(np.int64)
        if durations.shape[0:1] != (offsets.size - 1,):
            raise InvalidInstanceError("data.tasks", f"{durations.size} durations for {offsets.size - 1} replica sets")
        return cls(
            name=name,
            servers=servers,
            durations=durations,
            replica_offsets=offsets,
            replica_servers=flat,
            objective=objective,
            remote_cost=remote_cost,
            task_names=None if task_names is None else tuple(task_names),
            time_unit=time_unit,
            source=dict(source or {}),
        )

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None, source: dict) -> Instance:
        """Build from the ``data`` section of an instance file (checked field by field)."""
        data = require_dict(data, "data")
        require_known_keys(data, DATA_KEYS, "data", "locality data")
        m = require_int(require_key(data, "servers", "data"), "data.servers", minimum=1, maximum=MAX_SERVERS)
        objective = require_str(data.get("objective", "makespan"), "data.objective", choices=OBJECTIVES)
        remote_cost = require_int(data.get("remote_cost", 0), "data.remote_cost", minimum=0)
        tasks = require_list(require_key(data, "tasks", "data"), "data.tasks", min_length=1)
        durations = np.empty(len(tasks), dtype=np.int64)
        names: list[str] = []
        counts = np.empty(len(tasks), dtype=np.int64)
        flat: list[int] = []
        for index, task in enumerate(tasks):
            path = f"data.tasks[{index}]"
            task = require_dict(task, path)
            require_known_keys(task, TASK_KEYS, path, "a locality task")
            durations[index] = require_int(require_key(task, "duration", path), f"{path}.duration", minimum=1)
            names.append(require_str(task.get("name", default_name(index)), f"{path}.name"))
            replicas = require_list(require_key(task, "replicas", path), f"{path}.replicas", min_length=1)
            for k, server in enumerate(replicas):
                server = require_int(server, f"{path}.replicas[{k}]")
                if not 0 <= server < m:
                    raise InvalidInstanceError(
                        f"{path}.replicas[{k}]", f"server {server} does not exist (valid: 0..{m - 1})"
                    )
                flat.append(server)
            counts[index] = len(replicas)
        offsets = np.concatenate(([0], np.cumsum(counts)))
        return cls(
            name=name,
            servers=m,
            durations=durations,
            replica_offsets=offsets,
            replica_servers=np.asarray(flat, dtype=np.int64),
            objective=objective,
            remote_cost=remote_cost,
            task_names=tuple(names),
            time_unit=time_unit,
            source=source,
        )

    def to_data(self) -> dict:
        """The JSON ``data`` section."""
        offsets = self.replica_offsets.tolist()
        servers = self.replica_servers.tolist()
        durations = self.durations.tolist()
        names = self.task_names
        tasks = [
            {
                "name": names[j] if names is not None else default_name(j),
                "duration": durations[j],
                "replicas": servers[offsets[j] : offsets[j + 1]],
            }
            for j in range(len(durations))
        ]
        return {"servers": self.servers, "objective": self.objective, "remote_cost": self.remote_cost, "tasks": tasks}

    def with_objective(self, objective: str, remote_cost: int | None = None) -> Instance:
        """The same tasks and servers under another objective."""
        return Instance(
            name=self.name,
            servers=self.servers,
            durations=self.durations,
            replica_offsets=self.replica_offsets,
            replica_servers=self.replica_servers,
            objective=objective,
            remote_cost=self.remote_cost if remote_cost is None else remote_cost,
            task_names=self.task_names,
            time_unit=self.time_unit,
            source=self.source,
        )

    # ------------------------------------------------------------ accessors
    @property
    def num_tasks(self) -> int:
        return int(self.durations.size)

    @property
    def replica_counts(self) -> np.ndarray:
        return np.diff(self.replica_offsets)

    @property
    def replication(self) -> int | None:
        """r when every task has exactly r replicas, else None."""
        counts = self.replica_counts
        return int(counts[0]) if np.all(counts == counts[0]) else None

    @property
    def is_unit(self) -> bool:
        """All durations equal 1."""
        return bool(np.all(self.durations == 1))

    def replicas(self, task: int) -> np.ndarray:
        """Replica servers of ``task``."""
        return self.replica_servers[self.replica_offsets[task] : self.replica_offsets[task + 1]]

    def replica_matrix(self) -> np.ndarray:
        """``n x r_max`` array of replicas, padded with -1 where a task has fewer."""
        counts = self.replica_counts
        width = int(counts.max())
        if np.all(counts == width):
            return self.replica_servers.reshape(-1, width)
        matrix = np.full((self.num_tasks, width), -1, dtype=self.replica_servers.dtype)
        task_of_entry = np.repeat(np.arange(self.num_tasks), counts)
        column = np.arange(self.replica_servers.size) - self.replica_offsets[task_of_entry]
        matrix[task_of_entry, column] = self.replica_servers
        return matrix

    def task_name(self, task: int) -> str:
        return self.task_names[task] if self.task_names is not None else default_name(task)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Instance):
            return NotImplemented
        return (
            self.name == other.name
            and self.servers == other.servers
            and self.objective == other.objective
            and self.remote_cost == other.remote_cost
            and self.task_names == other.task_names
            and self.time_unit == other.time_unit
            and dict(self.source) == dict(other.source)
            and np.array_equal(self.durations, other.durations)
            and np.array_equal(self.replica_offsets, other.replica_offsets)
            and np.array_equal(self.replica_servers, other.replica_servers)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Instance(name={self.name!r}, servers={self.servers}, tasks={self.num_tasks}, "
            f"objective={self.objective!r}, remote_cost={self.remote_cost})"
        )
