"""Data model of the checkpoint problem: Instance, Solution, evaluate, validate.

Activation rematerialization on a chain (``../shared/spec/checkpoint.md``).
A chain of L stages is trained once: forward, loss, backward. A schedule is a
sequence of operations ``F i`` (forward, keeps only the output x_{i+1}),
``Fall i`` (recording forward, keeps xbar_{i+1}, everything stage i's
backward needs) and ``B i`` (backward; ``B L`` is the loss). Values are held
from the start of the operation producing them to the end of the last
operation reading them; at every operation the held bytes plus the
operation's transient must fit in the budget M. The objective is the total
time of the operations.

Modelling choices where the specification leaves room (stated)
---------------------------------------------------------------
* Integers everywhere: times in ``time_unit``, sizes and M in bytes. Sizes
  and times may be 0; ``xbar[i] >= x[i]``.
* "A read of x_i is served by xbar_i when xbar_i is held": held is read as
  the *least* fixpoint. A production of xbar_i is held from its producer to
  the last *explicit* read of it (the ``B i-1`` that follows it, before any
  new production of xbar_i); a read of x_i that falls inside that interval
  is served by xbar_i and does not extend it. Any other read of x_i is a
  read of the most recent production of x_i (x_0 for i = 0), which it keeps
  alive. With this reading, a second copy of a value is never held: the
  "producing a held value" clause of rule 1 cannot fire (the old copy is
  released at its last read, which comes before the new producer).
* ``x_0`` is held from the start to its last read; ``delta_0`` from ``B 0``
  to the end of the sequence; ``delta_i`` (i >= 1) from ``B i`` to ``B i-1``.
* Budgets below `memory_lower_bound` are refused when the instance is built
  (``data.memory``): no sequence exists (proof in that function). Budgets at
  or above it are legal data; an exact method that proves no sequence fits
  answers INFEASIBLE.
* The validator is written from the definition and shares no code with the
  formulations, special cases or heuristics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import InvalidInstanceError, InvalidSolutionError
from ..core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)
from ..core.violation import Violation

#: The instance kinds this package reads (``chain-offload``: the chain plus a host level, see `two_levels`).
KINDS = ("chain", "chain-offload")
#: Compute operation names of a sequence.
COMPUTE_OPERATIONS = ("F", "Fall", "B")
#: Link operations (kind ``chain-offload`` only): copy x_i / xbar_i to the host, copy it back.
LINK_OPERATIONS = ("Off", "Pre", "Offall", "Preall")
#: Operation names of a sequence.
OPERATIONS = COMPUTE_OPERATIONS + LINK_OPERATIONS
#: Link modes of a ``chain-offload`` instance (as in the offload package).
DUPLEX_MODES = ("full", "half")

_INT = {"type": "integer", "minimum": 0}

#: JSON Schema of the ``data`` section of a checkpoint instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "checkpoint instance data (kind chain)",
    "type": "object",
    "required": ["kind", "memory", "fw", "bw", "x", "xbar"],
    "additionalProperties": False,
    "properties": {
        "kind": {"enum": list(KINDS)},
        "memory": {**_INT, "description": "budget M in bytes, x_0 included"},
        "fw": {"type": "array", "items": _INT, "minItems": 1, "description": "fw[i], i < L"},
        "bw": {"type": "array", "items": _INT, "description": "bw[i], i <= L (bw[L] is the loss)"},
        "x": {"type": "array", "items": _INT, "description": "x[i], i <= L: input size of stage i"},
        "xbar": {
            "type": "array",
            "items": {"anyOf": [_INT, {"type": "null"}]},
            "description": "xbar[i], i <= L (index 0 unused, null): what Fall i-1 keeps, x_i included",
        },
        "ftmp": {"type": "array", "items": _INT, "description": "transient of F/Fall i (default 0)"},
        "btmp": {"type": "array", "items": _INT, "description": "transient of B i (default 0)"},
        "bandwidth_out": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}],
                          "description": "chain-offload: bytes per time unit to the host (null: infinite)"},
        "bandwidth_in": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}],
                         "description": "chain-offload: bytes per time unit from the host (null: infinite)"},
        "latency": {**_INT, "description": "chain-offload: latency of every transfer"},
        "duplex": {"enum": list(DUPLEX_MODES), "description": "chain-offload: one channel per direction or one"},
    },
}


def _int_tuple(value: Any, field_name: str, length: int, *, allow_null_first: bool = False) -> tuple[int, ...]:
    items = require_list(value, field_name, length=length)
    out = []
    for index, item in enumerate(items):
        if allow_null_first and index == 0:
            out.append(0)  # unused slot: xbar_0 does not exist
            continue
        out.append(require_int(item, f"{field_name}[{index}]", minimum=0))
    return tuple(out)


@dataclass(frozen=True)
class Instance:
    """A chain to train under a memory budget.

    Attributes
    ----------
    name
        Instance name.
    fw
        fw[i], forward time of stage i (i < L).
    bw
        bw[i], backward time of stage i (i <= L; bw[L] is the loss).
    x
        x[i], size of x_i (and of delta_i), i <= L.
    xbar
        xbar[i], i <= L: bytes a recording forward of stage i-1 keeps
        (xbar[0] is unused and stored as 0).
    ftmp, btmp
        Transient bytes of a forward of stage i / of ``B i``.
    memory
        Budget M in bytes, x_0 included.
    kind
        ``"chain"``.
    """

    name: str
    fw: tuple[int, ...]
    bw: tuple[int, ...]
    x: tuple[int, ...]
    xbar: tuple[int, ...]
    ftmp: tuple[int, ...]
    btmp: tuple[int, ...]
    memory: int
    kind: str = "chain"
    time_unit: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict)
    bandwidth_out: float | None = None
    bandwidth_in: float | None = None
    latency: int = 0
    duplex: str = "full"

    def __post_init__(self) -> None:
        require_str(self.kind, "data.kind", choices=KINDS)
        if self.kind == "chain-offload":
            self._check_link()
        fw = require_list(list(self.fw), "data.fw", min_length=1)
        length = len(fw)
        object.__setattr__(self, "fw", _int_tuple(fw, "data.fw", length))
        object.__setattr__(self, "bw", _int_tuple(self.bw, "data.bw", length + 1))
        object.__setattr__(self, "x", _int_tuple(self.x, "data.x", length + 1))
        object.__setattr__(self, "xbar", _int_tuple(self.xbar, "data.xbar", length + 1, allow_null_first=True))
        object.__setattr__(self, "ftmp", _int_tuple(self.ftmp, "data.ftmp", length))
        object.__setattr__(self, "btmp", _int_tuple(self.btmp, "data.btmp", length + 1))
        for i in range(1, length + 1):
            if self.xbar[i] < self.x[i]:
                raise InvalidInstanceError(
                    f"data.xbar[{i}]", f"must be >= x[{i}] = {self.x[i]} (xbar_i includes x_i), got {self.xbar[i]}"
                )
        object.__setattr__(self, "memory", require_int(self.memory, "data.memory", minimum=0))
        object.__setattr__(self, "source", dict(self.source))
        if self.kind == "chain-offload":
            from .two_levels import offload_memory_lower_bound_with_reason

            needed, why = offload_memory_lower_bound_with_reason(self)
        else:
            needed, why = memory_lower_bound_with_reason(self)
        if self.memory < needed:
            raise InvalidInstanceError(
                "data.memory",
                f"{self.memory} is below the smallest budget any sequence needs, {needed} bytes ({why}): INFEASIBLE",
            )

    def _check_link(self) -> None:
        """The link fields of a ``chain-offload`` instance; every operation must last >= 1 time unit."""
        for name in ("bandwidth_out", "bandwidth_in"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, require_number(value, f"data.{name}", minimum=0.0,
                                                              strictly_positive=True))
        object.__setattr__(self, "latency", require_int(self.latency, "data.latency", minimum=0))
        require_str(self.duplex, "data.duplex", choices=DUPLEX_MODES)
        for name in ("fw", "bw"):
            for i, value in enumerate(getattr(self, name)):
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 1:
                    raise InvalidInstanceError(f"data.{name}[{i}]", "must be >= 1 for kind chain-offload (every "
                                               "operation occupies time, so memory is checked over time)")

    def transfer_time(self, size: int, direction: str) -> int:
        """max(1, ceil(size / bandwidth) + latency): the time a copy of ``size`` bytes holds its channel."""
        from fractions import Fraction

        bandwidth = self.bandwidth_out if direction == "out" else self.bandwidth_in
        moving = 0 if bandwidth is None else math.ceil(Fraction(size) / Fraction(bandwidth))
        return max(1, moving + self.latency)

    def as_chain(self) -> Instance:
        """The same chain without the host level (kind ``chain``: remat only)."""
        return Instance(self.name, self.fw, self.bw, self.x, self.xbar, self.ftmp, self.btmp, self.memory,
                        "chain", self.time_unit, self.source)

    def with_link(self, *, bandwidth_out: float | None, bandwidth_in: float | None, latency: int = 0,
                  duplex: str = "full", memory: int | None = None, name: str | None = None) -> Instance:
        """The same chain with a host level (kind ``chain-offload``)."""
        return Instance(name or self.name, self.fw, self.bw, self.x, self.xbar, self.ftmp, self.btmp,
                        self.memory if memory is None else memory, "chain-offload", self.time_unit, self.source,
                        bandwidth_out, bandwidth_in, latency, duplex)

    # -- construction -------------------------------------------------------
    @classmethod
    def create(
        cls,
        fw: list[int],
        bw: list[int],
        x: list[int],
        xbar: list[int | None],
        memory: int,
        *,
        ftmp: list[int] | None = None,
        btmp: list[int] | None = None,
        name: str = "chain",
        time_unit: str | None = None,
        source: Mapping[str, Any] | None = None,
    ) -> Instance:
        """An instance from lists (transients default to 0; ``xbar[0]`` may be None)."""
        length = len(fw)
        return cls(
            name=name,
            fw=tuple(fw),
            bw=tuple(bw),
            x=tuple(x),
            xbar=tuple(xbar),
            ftmp=tuple(ftmp if ftmp is not None else [0] * length),
            btmp=tuple(btmp if btmp is not None else [0] * (length + 1)),
            memory=memory,
            time_unit=time_unit,
            source=dict(source or {}),
        )

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = None, source: dict | None = None) -> Instance:
        """The instance described by the ``data`` section of a file."""
        data = require_dict(data, "data")
        require_known_keys(data, ["kind", *DATA_SCHEMA["properties"]], "data", "checkpoint data")
        kind = require_str(require_key(data, "kind", "data"), "data.kind", choices=KINDS)
        link: dict[str, Any] = {}
        if kind == "chain-offload":
            link = {"bandwidth_out": require_key(data, "bandwidth_out", "data"),
                    "bandwidth_in": require_key(data, "bandwidth_in", "data"),
                    "latency": data.get("latency", 0), "duplex": data.get("duplex", "full")}
        else:
            for key in ("bandwidth_out", "bandwidth_in", "latency", "duplex"):
                if key in data:
                    raise InvalidInstanceError(f"data.{key}", "only for kind 'chain-offload'")
        fw = require_list(require_key(data, "fw", "data"), "data.fw", min_length=1)
        length = len(fw)
        return cls(
            name=name,
            fw=tuple(fw),
            bw=tuple(require_list(require_key(data, "bw", "data"), "data.bw")),
            x=tuple(require_list(require_key(data, "x", "data"), "data.x")),
            xbar=tuple(require_list(require_key(data, "xbar", "data"), "data.xbar")),
            ftmp=tuple(require_list(data.get("ftmp", [0] * length), "data.ftmp")),
            btmp=tuple(require_list(data.get("btmp", [0] * (length + 1)), "data.btmp")),
            memory=require_key(data, "memory", "data"),
            kind=kind,
            time_unit=time_unit,
            source=dict(source or {}),
            **link,
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        link = {}
        if self.kind == "chain-offload":
            link = {"bandwidth_out": self.bandwidth_out, "bandwidth_in": self.bandwidth_in,
                    "latency": self.latency, "duplex": self.duplex}
        return {
            "kind": self.kind,
            "memory": self.memory,
            "fw": list(self.fw),
            "bw": list(self.bw),
            "x": list(self.x),
            "xbar": [None, *self.xbar[1:]],
            "ftmp": list(self.ftmp),
            "btmp": list(self.btmp),
            **link,
        }

    def with_memory(self, memory: int, *, name: str | None = None) -> Instance:
        """The same chain under another budget."""
        return Instance(name or self.name, self.fw, self.bw, self.x, self.xbar, self.ftmp, self.btmp, memory,
                        self.kind, self.time_unit, self.source, self.bandwidth_out, self.bandwidth_in,
                        self.latency, self.duplex)

    # -- convenience --------------------------------------------------------
    @property
    def length(self) -> int:
        """L, the number of stages."""
        return len(self.fw)

    @property
    def compute_time(self) -> int:
        """Σfw + Σbw: the time of any sequence that recomputes nothing."""
        return sum(self.fw) + sum(self.bw)


def memory_lower_bound_with_reason(instance: Instance) -> tuple[int, str]:
    """The largest of the footprints below, which every valid sequence reaches, and which one.

    Proof (each item is an operation every valid sequence contains, with the
    values the definition makes it hold; x_0 is held from the start until
    ``B 0``, the last backward, so it is held during every operation below):

    * ``B L`` (rule 4) holds x_0, what serves x_L (>= x_L bytes) and the delta_L it produces.
    * ``B i``, 1 <= i < L, holds x_0, the server of x_i (>= x_i), xbar_{i+1},
      delta_{i+1}, the delta_i it produces, and btmp_i. ``B 0`` holds x_0
      (read, served by x_0), xbar_1, delta_1, delta_0 and btmp_0.
    * ``B L`` reads x_L, so every stage i < L is forwarded at least once
      before it (the chain of producers goes back to x_0): that forward holds
      x_0, its input (>= x_i) and its output (>= x_{i+1}) plus ftmp_i.
    * ``B i`` (i < L) reads xbar_{i+1}, produced by a ``Fall i`` that runs
      either after ``B i+1`` (then it holds x_0, its input >= x_i, xbar_{i+1},
      delta_{i+1} and ftmp_i) or before it (then xbar_{i+1} is held during
      ``B i+1``, in place of the >= x_{i+1} bytes counted there): the smaller
      of the two footprints is reached.
    """
    L, x, xb = instance.length, instance.x, instance.xbar
    candidates: list[tuple[int, str]] = []

    def backward_footprint(i: int, server: int) -> int:
        if i == L:
            return x[0] + server + x[L] + instance.btmp[L]
        if i == 0:
            return x[0] + xb[1] + x[1] + x[0] + instance.btmp[0]
        return x[0] + server + xb[i + 1] + x[i + 1] + x[i] + instance.btmp[i]

    for i in range(L + 1):
        candidates.append((backward_footprint(i, x[i]), f"B {i} alone"))
    for i in range(L):
        candidates.append(((x[0] if i > 0 else 0) + x[i] + x[i + 1] + instance.ftmp[i], f"the forward of stage {i}"))
        after = (x[0] if i > 0 else 0) + x[i] + xb[i + 1] + x[i + 1] + instance.ftmp[i]
        before = backward_footprint(i + 1, xb[i + 1])
        candidates.append((min(after, before), f"the Fall {i} that B {i} reads"))
    return max(candidates)


def memory_lower_bound(instance: Instance) -> int:
    """Bytes every valid sequence needs (see `memory_lower_bound_with_reason` for the proof)."""
    return memory_lower_bound_with_reason(instance)[0]


def store_all_sequence(length: int) -> tuple[tuple[str, int], ...]:
    """``Fall 0 .. Fall L-1, B L .. B 0``: the sequence that recomputes nothing."""
    return tuple([("Fall", i) for i in range(length)] + [("B", i) for i in range(length, -1, -1)])


def store_all_peak(instance: Instance) -> int:
    """Peak memory of `store_all_sequence` under the definition's liveness (budgets are fractions of it).

    During ``Fall i``: x_0, xbar_1..xbar_{i+1}, ftmp_i (x_i is served by
    xbar_i, i >= 1). During ``B L``: x_0, xbar_1..xbar_L, delta_L, btmp_L.
    During ``B i`` (i < L): x_0, xbar_1..xbar_{i+1}, delta_{i+1}, delta_i, btmp_i.
    """
    L, x, xb = instance.length, instance.x, instance.xbar
    prefix = [0] * (L + 1)  # prefix[i] = xbar_1 + .. + xbar_i
    for i in range(1, L + 1):
        prefix[i] = prefix[i - 1] + xb[i]
    peak = max(x[0] + prefix[i + 1] + instance.ftmp[i] for i in range(L))
    peak = max(peak, x[0] + prefix[L] + x[L] + instance.btmp[L])
    for i in range(L):
        peak = max(peak, x[0] + prefix[i + 1] + x[i + 1] + x[i] + instance.btmp[i])
    return peak


# ----------------------------------------------------------------------------------------------
# Solution
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """An operation sequence: ``(("F", 0), ("Fall", 1), ("B", 2), ...)``.

    ``start`` (kind ``chain-offload``): the start time of each operation, same
    length as ``sequence``; None means compute operations back to back from 0
    (allowed only for a sequence without link operations).
    """

    sequence: tuple[tuple[str, int], ...]
    start: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        checked = []
        for k, op in enumerate(self.sequence):
            if not isinstance(op, (list, tuple)) or len(op) != 2:
                raise InvalidSolutionError(f"sequence[{k}]", f"must be a pair [operation, stage], got {op!r}")
            try:
                name = require_str(op[0], f"sequence[{k}][0]", choices=OPERATIONS)
                checked.append((name, require_int(op[1], f"sequence[{k}][1]", minimum=0)))
            except InvalidSolutionError:
                raise
            except InvalidInstanceError as error:  # the same checks, reported as a solution's field
                raise InvalidSolutionError(error.field, error.reason) from None
        object.__setattr__(self, "sequence", tuple(checked))
        if self.start is not None:
            try:
                starts = require_list(list(self.start), "start", length=len(checked))
                object.__setattr__(self, "start", tuple(require_int(value, f"start[{k}]", minimum=0)
                                                        for k, value in enumerate(starts)))
            except InvalidInstanceError as error:
                raise InvalidSolutionError(error.field, error.reason) from None

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """The solution described by the ``solution`` section of a file (stages checked against L)."""
        data = require_dict(data, "solution")
        raw = require_list(require_key(data, "sequence", ""), "sequence")
        start = data.get("start")
        solution = cls(tuple(tuple(op) if isinstance(op, list) else op for op in raw),
                       None if start is None else tuple(require_list(start, "start")))
        for k, (name, stage) in enumerate(solution.sequence):
            low, top = stage_range(instance.length, name)
            if not low <= stage <= top:
                raise InvalidSolutionError(f"sequence[{k}][1]", f"{name} {stage}: stage must be in {low}..{top}")
        return solution

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"sequence": [[name, stage] for name, stage in self.sequence]}
        if self.start is not None:
            data["start"] = list(self.start)
        return data


def stage_range(length: int, name: str) -> tuple[int, int]:
    """The stages an operation may name: F/Fall 0..L-1, B 0..L, Off/Pre 0..L (x_i), Offall/Preall 1..L (xbar_i)."""
    if name in ("F", "Fall"):
        return 0, length - 1
    if name in ("Offall", "Preall"):
        return 1, length
    return 0, length


# ----------------------------------------------------------------------------------------------
# The definition: liveness, memory, evaluate, validate
# ----------------------------------------------------------------------------------------------


@dataclass
class _Trace:
    """Held intervals (first op, last op, bytes, value) and refused reads of one sequence."""

    intervals: list[tuple[int, int, int, str]]
    problems: list[Violation]


def _trace(instance: Instance, sequence: tuple[tuple[str, int], ...]) -> _Trace:
    """Apply rules 1-2 of the definition: who serves each read, how long each value is held."""
    L, n = instance.length, len(sequence)
    problems: list[Violation] = []
    xbar_productions: dict[int, list[int]] = {i: [] for i in range(1, L + 1)}
    explicit_xbar_reads: dict[int, list[int]] = {i: [] for i in range(1, L + 1)}
    backward_at: dict[int, int] = {}
    for t, (name, i) in enumerate(sequence):
        if name == "Fall":
            xbar_productions[i + 1].append(t)
        elif name == "B":
            backward_at.setdefault(i, t)
            if i < L:
                explicit_xbar_reads[i + 1].append(t)
    # xbar_i: held from producer to its last explicit read before the next production.
    xbar_interval: dict[int, list[tuple[int, int]]] = {}
    for i, starts in xbar_productions.items():
        spans = []
        for k, start in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else n
            reads = [q for q in explicit_xbar_reads[i] if start < q < stop]
            spans.append((start, max(reads) if reads else start))
        xbar_interval[i] = spans

    def served_by_xbar(i: int, t: int) -> bool:
        return i >= 1 and any(start < t <= end for start, end in xbar_interval[i])

    x_production_end: dict[tuple[int, int], int] = {}  # (i, producer position) -> last read
    latest_x: dict[int, int] = {0: -1}  # i -> position of the most recent production (-1: x_0 at the start)
    x0_last = 0
    for t, (name, i) in enumerate(sequence):
        reads_x = i  # every operation reads x_i (F i, Fall i, B i; B L reads x_L)
        if not served_by_xbar(reads_x, t):
            if reads_x in latest_x:
                producer = latest_x[reads_x]
                if reads_x == 0:
                    x0_last = t
                else:
                    x_production_end[(reads_x, producer)] = t
            else:
                problems.append(Violation("not-held", f"operation {t} ({name} {i}) reads x_{i}, which is not held"))
        if name == "B" and i < L:
            if not any(start < t for start in xbar_productions[i + 1]):
                problems.append(Violation("not-held",
                                          f"operation {t} (B {i}) reads xbar_{i + 1}, never produced before"))
            if backward_at.get(i + 1, n) >= t:
                problems.append(Violation("not-held",
                                          f"operation {t} (B {i}) reads delta_{i + 1}, not produced before"))
        if name == "F":
            latest_x[i + 1] = t
            x_production_end[(i + 1, t)] = t
    intervals = [(0, x0_last, instance.x[0], "x_0")]
    for (i, start), end in x_production_end.items():
        intervals.append((start, end, instance.x[i], f"x_{i}"))
    for i, spans in xbar_interval.items():
        for start, end in spans:
            intervals.append((start, end, instance.xbar[i], f"xbar_{i}"))
    for i, start in backward_at.items():
        end = n - 1 if i == 0 else backward_at.get(i - 1, start)
        intervals.append((start, max(start, end), instance.x[i], f"delta_{i}"))
    return _Trace(intervals, problems)


def _operation_time(instance: Instance, name: str, stage: int) -> int:
    return instance.bw[stage] if name == "B" else instance.fw[stage]


def _transient(instance: Instance, name: str, stage: int) -> int:
    return instance.btmp[stage] if name == "B" else instance.ftmp[stage]


def memory_profile(instance: Instance, solution: Solution) -> list[int]:
    """Bytes held during each operation, its transient included (rule 3's left-hand side)."""
    n = len(solution.sequence)
    delta = [0] * (n + 1)
    for start, end, size, _ in _trace(instance, solution.sequence).intervals:
        delta[start] += size
        delta[end + 1] -= size
    profile, held = [], 0
    for t, (name, stage) in enumerate(solution.sequence):
        held += delta[t]
        profile.append(held + _transient(instance, name, stage))
    return profile


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Total time (the objective) and KPIs of a sequence.

    KPIs: ``total_time``; ``recomputation_time`` = objective − Σfw − Σbw;
    ``peak_memory`` (bytes) and ``peak_memory_fraction`` (of M);
    ``forward_ops`` (F and Fall operations run); ``operations``.
    Kind ``chain-offload``: see `two_levels.evaluate` (objective = makespan).
    """
    if instance.kind == "chain-offload":
        from .two_levels import evaluate as evaluate_two_levels

        return evaluate_two_levels(instance, solution)
    if any(name in LINK_OPERATIONS for name, _ in solution.sequence):
        nan = float("nan")
        return {"objective": nan, "total_time": nan, "recomputation_time": nan, "peak_memory": nan,
                "peak_memory_fraction": nan, "forward_ops": nan, "operations": float(len(solution.sequence))}
    in_range = all(stage <= (instance.length if name == "B" else instance.length - 1)
                   for name, stage in solution.sequence)
    if not in_range:  # `validate` reports the stage; nothing here can be measured
        nan = float("nan")
        return {"objective": nan, "total_time": nan, "recomputation_time": nan, "peak_memory": nan,
                "peak_memory_fraction": nan, "forward_ops": nan, "operations": float(len(solution.sequence))}
    total = sum(_operation_time(instance, name, stage) for name, stage in solution.sequence)
    profile = memory_profile(instance, solution) if solution.sequence else [0]
    peak = max(profile)
    return {
        "objective": float(total),
        "total_time": float(total),
        "recomputation_time": float(total - instance.compute_time),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.memory if instance.memory else float("inf"),
        "forward_ops": float(sum(1 for name, _ in solution.sequence if name != "B")),
        "operations": float(len(solution.sequence)),
    }


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = valid).

    Rules: ``stage`` (an operation on a stage that does not exist),
    ``not-held`` (rule 1: a read value is not held), ``backward-order``
    (rule 4: each ``B i`` once, in the order L..0), ``memory`` (rule 3).
    Kind ``chain-offload``: `two_levels.validate`, the definition over time.
    """
    if instance.kind == "chain-offload":
        from .two_levels import validate as validate_two_levels

        return validate_two_levels(instance, solution)
    link = [f"{name} {stage}" for name, stage in solution.sequence if name in LINK_OPERATIONS]
    if link:
        return [Violation("no-host", f"kind 'chain' has no host level; link operations {link[:3]} are not allowed")]
    L = instance.length
    for t, (name, stage) in enumerate(solution.sequence):
        top = L if name == "B" else L - 1
        if stage > top:
            return [Violation("stage", f"operation {t} ({name} {stage}) names a stage > {top}")]
    violations: list[Violation] = []
    backwards = [stage for name, stage in solution.sequence if name == "B"]
    if backwards != list(range(L, -1, -1)):
        violations.append(Violation(
            "backward-order", f"the backward operations must be B {L}..B 0, once each, in that order; got {backwards}"))
    trace = _trace(instance, solution.sequence)
    violations.extend(trace.problems)
    for t, used in enumerate(memory_profile(instance, solution)):
        if used > instance.memory:
            name, stage = solution.sequence[t]
            violations.append(Violation(
                "memory", f"operation {t} ({name} {stage}) needs {used} bytes, budget is {instance.memory} "
                          f"(over by {used - instance.memory})"))
    return violations
