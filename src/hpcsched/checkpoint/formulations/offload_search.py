"""The search behind `brute_force_offload`: configurations, the chain's timings and the A* over timed schedules.

Split from `brute_force_offload` (whose module docstring states the model, the search and its proof).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import NamedTuple

from ...core.deadline import Deadline
from ..model import Instance

ABSENT, CREATING, READY = 0, 1, 2  # GPU copy
NONE, WRITING, THERE = 0, 1, 2  # host copy

Op = tuple[str, int]
#: A running operation: (name, stage, time still needed, read of x served by xbar).
Running = tuple[str, int, int, bool]


class _Config(NamedTuple):
    """What the future of a schedule depends on at an instant (module docstring); a tuple, hashed fast."""

    k: int
    compute: Running | None
    channels: tuple[Running | None, ...]
    gpu: tuple[int, ...]
    host: tuple[int, ...]
    owed: frozenset[int]


#: Operations that read x_i (the read an xbar_i copy may serve).
X_READERS = ("F", "Fall", "B", "Off")


def _progress(config: _Config, step: int) -> tuple[list[Running | None], list[Running]]:
    """The running operations ``step`` time units later (None where one ended), and those that ended."""
    still: list[Running | None] = []
    ended: list[Running] = []
    for op in (config.compute, *config.channels):
        if op is None:
            still.append(None)
        elif op[2] == step:
            ended.append(op)
            still.append(None)
        else:
            still.append((op[0], op[1], op[2] - step, op[3]))
    return still, ended


class _Chain:
    """The instance's numbers indexed for the search: value v = i for x_i, L + i for xbar_i (i >= 1)."""

    def __init__(self, instance: Instance) -> None:
        from ..model.two_levels import duration

        self.L = L = instance.length
        self.memory = instance.memory
        self.size = [instance.x[i] for i in range(L + 1)] + [instance.xbar[i] for i in range(1, L + 1)]
        self.x = instance.x
        self.fw, self.bw, self.ftmp, self.btmp = instance.fw, instance.bw, instance.ftmp, instance.btmp
        links = [("Off", i) for i in range(L + 1)] + [("Pre", i) for i in range(L + 1)]
        links += [("Offall", i) for i in range(1, L + 1)] + [("Preall", i) for i in range(1, L + 1)]
        self.link_time = {op: duration(instance, *op) for op in links}
        self.half_duplex = instance.duplex == "half"
        self.backward_left = [sum(instance.bw[: j + 1]) for j in range(L + 1)]

    def xbar(self, i: int) -> int:
        return self.L + i

    def channel_of(self, name: str) -> int:
        """0: out (or the one channel of a half-duplex link), 1: in."""
        return 0 if self.half_duplex or name in ("Off", "Offall") else 1

    def reads(self, op: Running) -> list[int]:
        """The GPU copies a running operation reads (rule 4)."""
        name, stage, _, by_xbar = op
        values = []
        if name in X_READERS:
            values.append(self.xbar(stage) if by_xbar else stage)
        if name == "B" and stage < self.L:
            values.append(self.xbar(stage + 1))
        if name == "Offall":
            values.append(self.xbar(stage))
        return values

    def creates(self, name: str, stage: int) -> int | None:
        """The GPU copy an operation creates (None: a link operation to the host)."""
        if name == "F":
            return stage + 1
        if name == "Fall":
            return self.xbar(stage + 1)
        if name == "Pre":
            return stage
        if name == "Preall":
            return self.xbar(stage)
        return None

    def explicit_xbar(self, name: str, stage: int) -> int | None:
        """The xbar copy an operation reads explicitly (``B i-1`` and ``Offall i`` read xbar_i)."""
        if name == "B" and stage < self.L:
            return self.xbar(stage + 1)
        if name == "Offall":
            return self.xbar(stage)
        return None

    def useful(self, value: int, k: int) -> bool:
        """Whether an operation started from now on may read the value (module docstring: waste)."""
        if value <= self.L:
            return value <= k
        return value - self.L <= k + 1


class OffloadSearch:
    """The A* search of the module docstring over one instance."""

    def __init__(self, instance: Instance, deadline: Deadline, max_states: int, upper: int | None) -> None:
        self.c = _Chain(instance)
        self.deadline, self.max_states, self.upper = deadline, max_states, upper
        self.expanded = 0

    # -- starts ----------------------------------------------------------------
    def _x_servers(self, config: _Config, i: int) -> list[bool]:
        """Ways to serve a read of x_i from a ready copy (True: by xbar_i)."""
        ways = []
        if i >= 1 and config.gpu[self.c.xbar(i)] == READY:
            ways.append(True)
        if config.gpu[i] == READY:
            ways.append(False)
        return ways

    def _compute_starts(self, config: _Config) -> list[Running]:
        c, k, gpu = self.c, config.k, config.gpu
        starts: list[Running] = []
        if k < 0:
            return starts
        if k == c.L or gpu[c.xbar(k + 1)] == READY:
            starts += [("B", k, c.bw[k], by_xbar) for by_xbar in self._x_servers(config, k)]
        for j in range(min(k, c.L - 1) + 1):
            servers = self._x_servers(config, j)
            if not servers:
                continue
            if j + 1 <= k and gpu[j + 1] == ABSENT:
                starts += [("F", j, c.fw[j], by_xbar) for by_xbar in servers]
            if gpu[c.xbar(j + 1)] == ABSENT:
                starts += [("Fall", j, c.fw[j], by_xbar) for by_xbar in servers]
        return starts

    def _link_starts(self, config: _Config, channel: int) -> list[Running]:
        c, k, gpu, host = self.c, config.k, config.gpu, config.host
        starts: list[Running] = []
        out = channel == 0
        into = channel == 1 or c.half_duplex
        for i in range(min(k, c.L) + 1):
            if out and host[i] == NONE:
                starts += [("Off", i, c.link_time[("Off", i)], b) for b in self._x_servers(config, i)]
            if into and host[i] == THERE and gpu[i] == ABSENT:
                starts.append(("Pre", i, c.link_time[("Pre", i)], False))
        for i in range(1, min(k + 1, c.L) + 1):
            v = c.xbar(i)
            if out and gpu[v] == READY:
                starts.append(("Offall", i, c.link_time[("Offall", i)], False))
            if into and host[v] == THERE and gpu[v] == ABSENT:
                starts.append(("Preall", i, c.link_time[("Preall", i)], False))
        return starts

    def _start_choices(self, config: _Config) -> Iterator[tuple[Running, ...]]:
        """Every set of operations that may start now (no two creating the same copy)."""
        options: list[list[Running | None]] = []
        options.append([None, *self._compute_starts(config)] if config.compute is None else [None])
        for channel, running in enumerate(config.channels):
            options.append([None, *self._link_starts(config, channel)] if running is None else [None])
        for combination in itertools.product(*options):
            chosen = tuple(op for op in combination if op is not None)
            created = [self.c.creates(op[0], op[1]) for op in chosen]
            created = [v for v in created if v is not None]
            if len(created) == len(set(created)):
                yield chosen

    # -- one time unit -------------------------------------------------------------
    def _started(self, config: _Config, chosen: tuple[Running, ...]) -> _Config:
        """The configuration once ``chosen`` have started (copies being created, owed reads marked)."""
        c = self.c
        gpu, host, owed = list(config.gpu), list(config.host), set(config.owed)
        compute, channels, k = config.compute, list(config.channels), config.k
        for op in chosen:
            name, stage, _, by_xbar = op
            created = c.creates(name, stage)
            if created is not None:
                gpu[created] = CREATING
            if name in ("Off", "Offall"):
                host[stage if name == "Off" else c.xbar(stage)] = WRITING
            if by_xbar:
                owed.add(c.xbar(stage))
            if name in ("F", "Fall", "B"):
                compute = op
                if name == "B":
                    k -= 1
            else:
                channels[c.channel_of(name)] = op
        return _Config(k, compute, tuple(channels), tuple(gpu), tuple(host), frozenset(owed))

    def _memory(self, config: _Config) -> int:
        """Bytes held over the next time unit (rule 6)."""
        c = self.c
        held = sum(c.size[v] for v, status in enumerate(config.gpu) if status != ABSENT)
        running = config.compute
        if running is not None and running[0] == "B":
            j = running[1]
            held += c.x[j] + (c.x[j + 1] if j < c.L else 0) + c.btmp[j]
        else:
            if config.k < c.L:
                held += c.x[config.k + 1]
            if running is not None:
                held += c.ftmp[running[1]]
        return held

    def _advanced(self, config: _Config, step: int) -> list[_Config]:
        """The configurations ``step`` time units later (no operation ends before); each keep/drop a branch."""
        gpu, host, owed = list(config.gpu), list(config.host), set(config.owed)
        still, ended = _progress(config, step)
        running = [op for op in still if op is not None]
        read_now = {v for op in running for v in self.c.reads(op)}
        touched = self._finish(ended, running, gpu, host, owed)
        if not self._forget_useless(config.k, gpu, host, owed, read_now):
            return []
        optional = sorted(v for v in touched if gpu[v] == READY and v not in read_now and v not in owed)
        compute, channels, frozen_host, frozen_owed = still[0], tuple(still[1:]), tuple(host), frozenset(owed)
        out = []
        for drops in itertools.product((False, True), repeat=len(optional)):
            after = list(gpu)
            for v, drop in zip(optional, drops, strict=True):
                if drop:
                    after[v] = ABSENT
            out.append(_Config(config.k, compute, channels, tuple(after), frozen_host, frozen_owed))
        return out

    def _finish(self, ended: list[Running], running: list[Running], gpu: list, host: list, owed: set) -> set[int]:
        """Apply the ends (copies ready, host copies there, owed reads covered); the copies they touched."""
        c = self.c
        touched: set[int] = set()
        for name, stage, _, by_xbar in ended:
            created = c.creates(name, stage)
            if created is not None:
                gpu[created] = READY
                touched.add(created)
            if name in ("Off", "Offall"):
                host[stage if name == "Off" else c.xbar(stage)] = THERE
            touched.update(c.reads((name, stage, 0, by_xbar)))
            explicit = c.explicit_xbar(name, stage)
            # an explicit read that ends covers the served reads that have ended, unless one still runs
            if explicit is not None and not any(
                op[3] and c.xbar(op[1]) == explicit and op[0] in X_READERS for op in running
            ):
                owed.discard(explicit)
        return touched

    def _forget_useless(self, k: int, gpu: list, host: list, owed: set, read_now: set[int]) -> bool:
        """Drop the copies nothing may read again (False: one has an owed read, which is then never covered)."""
        c = self.c
        for v, status in enumerate(gpu):
            if status == READY and v not in read_now and not c.useful(v, k):
                if v in owed:
                    return False
                gpu[v] = ABSENT
        for v in range(len(host)):
            if host[v] == THERE and not c.useful(v, k):
                host[v] = NONE  # never read again: forgetting it merges equivalent configurations
        return True

    def _heuristic(self, config: _Config) -> int:
        """Compute time still needed (a lower bound; admissible, which A* with re-expansion needs).

        The running compute operation, the backwards not started, and one ``Fall j``
        for every ``B j`` to come (j < L) whose xbar_{j+1} has no copy on the GPU
        or the host: only ``Fall j`` can create it then (``Preall`` needs a host
        copy, ``Offall`` a GPU copy). Those ``Fall`` are distinct compute operations.
        """
        c, k, gpu, host = self.c, config.k, config.gpu, config.host
        left = config.compute[2] if config.compute is not None else 0
        if k < 0:
            return left
        for j in range(min(k, c.L - 1) + 1):
            v = c.xbar(j + 1)
            if gpu[v] == ABSENT and host[v] == NONE:
                left += c.fw[j]
        return left + c.backward_left[k]

    @staticmethod
    def _done(config: _Config) -> bool:
        return config.k == -1 and config.compute is None and all(op is None for op in config.channels)

    # -- the search ------------------------------------------------------------------
    def run(self) -> tuple[int, tuple[Op, ...], tuple[int, ...]] | str | None:
        """(makespan, sequence, starts) of an optimal schedule; None: none exists; "budget": stopped."""
        c = self.c
        gpu = [ABSENT] * (2 * c.L + 1)
        gpu[0] = READY
        channels: tuple[Running | None, ...] = (None,) if c.half_duplex else (None, None)
        start = _Config(c.L, None, channels, tuple(gpu), tuple([NONE] * (2 * c.L + 1)), frozenset())
        best = {start: 0}
        parent: dict[_Config, tuple[_Config, tuple[Running, ...], int]] = {}
        counter = itertools.count()
        queue = [(self._heuristic(start), 0, next(counter), start)]
        while queue:
            _, elapsed, _, config = heapq.heappop(queue)
            time = -elapsed
            if time > best.get(config, time):
                continue
            if self._done(config):
                return time, *self._schedule(parent, start, config, time)
            self.expanded += 1
            if self.expanded > self.max_states:
                return "budget"
            # every expansion: 4096 of them took 4.2 s on a 20-stage chain (and a 30 s run 33 s), and a check
            # is one clock read against the expansion's successors, sets and dictionaries
            self.deadline.check("searching the timed schedules")
            choices = list(self._start_choices(config))
            # with nothing to start, nothing changes before the next end: jump there in one edge
            jump = len(choices) == 1
            for chosen in choices:
                begun = self._started(config, chosen)
                if self._memory(begun) > c.memory:
                    continue
                running = [op[2] for op in (begun.compute, *begun.channels) if op is not None]
                if not running:
                    continue  # nothing runs and nothing starts: no future
                step = min(running) if jump else 1
                later = time + step
                for following in self._advanced(begun, step):
                    if following == config:
                        continue
                    estimate = later + self._heuristic(following)
                    if self.upper is not None and estimate > self.upper:
                        continue
                    if later < best.get(following, later + 1):
                        best[following] = later
                        parent[following] = (config, chosen, step)
                        heapq.heappush(queue, (estimate, -later, next(counter), following))  # ties: deepest first
        return None

    @staticmethod
    def _schedule(parent, start: _Config, config: _Config, time: int) -> tuple[tuple[Op, ...], tuple[int, ...]]:
        """The operations started along the path to ``config``, by start time (compute first at ties)."""
        timed = []
        while config != start:
            config, chosen, step = parent[config]
            time -= step
            timed += [(time, 0 if op[0] in ("F", "Fall", "B") else 1, (op[0], op[1])) for op in chosen]
        timed.sort()
        return tuple(op for _, _, op in timed), tuple(t for t, _, _ in timed)
