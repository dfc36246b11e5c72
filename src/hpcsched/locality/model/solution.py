"""`Solution`: per-server ordered queues of tasks, in CSR form."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ...core.errors import InvalidSolutionError
from ...core.fields import require_dict, require_int, require_key, require_known_keys, require_list
from .checks import frozen
from .instance import Instance


@dataclass(frozen=True, eq=False)
class Solution:
    """Per-server ordered queues of tasks, in CSR form.

    The tasks of server ``i`` in execution order are
    ``queue_tasks[queue_offsets[i]:queue_offsets[i+1]]``.
    """

    queue_offsets: np.ndarray
    queue_tasks: np.ndarray

    def __post_init__(self) -> None:
        offsets = np.asarray(self.queue_offsets, dtype=np.int64)
        tasks = np.asarray(self.queue_tasks)
        if tasks.size and tasks.dtype.kind not in "iu":
            raise InvalidSolutionError("queues", "task ids must be integers")
        tasks = tasks.astype(np.int64, copy=False)
        if (
            offsets.ndim != 1
            or offsets.size < 1
            or offsets[0] != 0
            or offsets[-1] != tasks.size
            or np.any(np.diff(offsets) < 0)
        ):
            raise InvalidSolutionError("queues", "queue offsets do not match the tasks")
        object.__setattr__(self, "queue_offsets", frozen(offsets))
        object.__setattr__(self, "queue_tasks", frozen(tasks))

    @classmethod
    def from_queues(cls, queues: Iterable[Iterable[int]]) -> Solution:
        lists = [list(q) for q in queues]
        counts = [len(q) for q in lists]
        flat = [task for q in lists for task in q]
        return cls(np.concatenate(([0], np.cumsum(counts, dtype=np.int64))), np.asarray(flat, dtype=np.int64))

    @classmethod
    def from_assignment(cls, server_of_task: np.ndarray, servers: int, sort_key: np.ndarray | None = None) -> Solution:
        """Queues from a task -> server array; within a server, tasks by ``sort_key`` then index."""
        server_of_task = np.asarray(server_of_task)
        if sort_key is None:
            order = _stable_group_order(server_of_task)
        else:
            order = np.lexsort((np.asarray(sort_key), server_of_task))
        counts = np.bincount(server_of_task, minlength=servers)
        return cls(np.concatenate(([0], np.cumsum(counts))), order)

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        require_known_keys(data, ("queues",), "", "a locality solution")
        queues = require_list(require_key(data, "queues", ""), "queues")
        n = instance.num_tasks
        if len(queues) > instance.servers:
            raise InvalidSolutionError("queues", f"{len(queues)} queues for {instance.servers} servers")
        checked = []
        for i, queue in enumerate(queues):
            queue = require_list(queue, f"queues[{i}]")
            row = []
            for k, task in enumerate(queue):
                task = require_int(task, f"queues[{i}][{k}]")
                if not 0 <= task < n:
                    raise InvalidSolutionError(f"queues[{i}][{k}]", f"task {task} does not exist (valid: 0..{n - 1})")
                row.append(task)
            checked.append(row)
        return cls.from_queues(checked)

    def to_data(self) -> dict:
        offsets = self.queue_offsets.tolist()
        tasks = self.queue_tasks.tolist()
        return {"queues": [tasks[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]}

    @property
    def num_queues(self) -> int:
        return int(self.queue_offsets.size - 1)

    def queue(self, server: int) -> np.ndarray:
        return self.queue_tasks[self.queue_offsets[server] : self.queue_offsets[server + 1]]

    @property
    def queues(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(q) for q in self.to_data()["queues"])

    def server_of_task(self, n: int) -> np.ndarray:
        """Task -> server array (-1 for a task in no queue; the last queue wins on duplicates)."""
        servers = np.full(n, -1, dtype=np.int64)
        servers[self.queue_tasks] = np.repeat(np.arange(self.num_queues), np.diff(self.queue_offsets))
        return servers

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Solution):
            return NotImplemented
        return np.array_equal(self.queue_offsets, other.queue_offsets) and np.array_equal(
            self.queue_tasks, other.queue_tasks
        )

    __hash__ = None  # type: ignore[assignment]


def _stable_group_order(keys: np.ndarray) -> np.ndarray:
    """``argsort(keys, kind="stable")`` as a two-pass LSD radix sort on 16-bit halves.

    numpy radix-sorts 16-bit keys in linear time but merge-sorts wider ones;
    two stable 16-bit passes are about twice as fast at 10^7 tasks.
    """
    if keys.size == 0 or int(keys.max()) >= 2**32 or int(keys.min()) < 0:
        return np.argsort(keys, kind="stable")
    keys = keys.astype(np.uint32, copy=False)
    by_low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if int(keys.max()) < 2**16:
        return by_low
    by_high = np.argsort((keys[by_low] >> 16).astype(np.uint16), kind="stable")
    return by_low[by_high]
