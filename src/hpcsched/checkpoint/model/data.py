"""Data of the checkpoint problem: Instance, Solution, the memory floors.

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
from typing import Any, cast

from ...core.errors import InvalidInstanceError, InvalidSolutionError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)

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
        "bandwidth_out": {
            "anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}],
            "description": "chain-offload: bytes per time unit to the host (null: infinite)",
        },
        "bandwidth_in": {
            "anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}],
            "description": "chain-offload: bytes per time unit from the host (null: infinite)",
        },
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
                object.__setattr__(
                    self, name, require_number(value, f"data.{name}", minimum=0.0, strictly_positive=True)
                )
        object.__setattr__(self, "latency", require_int(self.latency, "data.latency", minimum=0))
        require_str(self.duplex, "data.duplex", choices=DUPLEX_MODES)
        for name in ("fw", "bw"):
            for i, value in enumerate(getattr(self, name)):
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 1:
                    raise InvalidInstanceError(
                        f"data.{name}[{i}]",
                        "must be >= 1 for kind chain-offload (every "
                        "operation occupies time, so memory is checked over time)",
                    )

    def transfer_time(self, size: int, direction: str) -> int:
        """max(1, ceil(size / bandwidth) + latency): the time a copy of ``size`` bytes holds its channel."""
        from fractions import Fraction

        bandwidth = self.bandwidth_out if direction == "out" else self.bandwidth_in
        moving = 0 if bandwidth is None else math.ceil(Fraction(size) / Fraction(bandwidth))
        return max(1, moving + self.latency)

    def as_chain(self) -> Instance:
        """The same chain without the host level (kind ``chain``: remat only)."""
        return Instance(
            self.name,
            self.fw,
            self.bw,
            self.x,
            self.xbar,
            self.ftmp,
            self.btmp,
            self.memory,
            "chain",
            self.time_unit,
            self.source,
        )

    def with_link(
        self,
        *,
        bandwidth_out: float | None,
        bandwidth_in: float | None,
        latency: int = 0,
        duplex: str = "full",
        memory: int | None = None,
        name: str | None = None,
    ) -> Instance:
        """The same chain with a host level (kind ``chain-offload``)."""
        return Instance(
            name or self.name,
            self.fw,
            self.bw,
            self.x,
            self.xbar,
            self.ftmp,
            self.btmp,
            self.memory if memory is None else memory,
            "chain-offload",
            self.time_unit,
            self.source,
            bandwidth_out,
            bandwidth_in,
            latency,
            duplex,
        )

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
            # __post_init__ turns a None xbar[0] into 0 and rejects a None anywhere else
            xbar=cast("tuple[int, ...]", tuple(xbar)),
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
            link = {
                "bandwidth_out": require_key(data, "bandwidth_out", "data"),
                "bandwidth_in": require_key(data, "bandwidth_in", "data"),
                "latency": data.get("latency", 0),
                "duplex": data.get("duplex", "full"),
            }
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
            link = {
                "bandwidth_out": self.bandwidth_out,
                "bandwidth_in": self.bandwidth_in,
                "latency": self.latency,
                "duplex": self.duplex,
            }
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
        return Instance(
            name or self.name,
            self.fw,
            self.bw,
            self.x,
            self.xbar,
            self.ftmp,
            self.btmp,
            memory,
            self.kind,
            self.time_unit,
            self.source,
            self.bandwidth_out,
            self.bandwidth_in,
            self.latency,
            self.duplex,
        )

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
                object.__setattr__(
                    self, "start", tuple(require_int(value, f"start[{k}]", minimum=0) for k, value in enumerate(starts))
                )
            except InvalidInstanceError as error:
                raise InvalidSolutionError(error.field, error.reason) from None

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """The solution described by the ``solution`` section of a file (stages checked against L)."""
        data = require_dict(data, "solution")
        raw = require_list(require_key(data, "sequence", ""), "sequence")
        start = data.get("start")
        solution = cls(
            tuple(tuple(op) if isinstance(op, list) else op for op in raw),
            None if start is None else tuple(require_list(start, "start")),
        )
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


def offload_memory_lower_bound_with_reason(instance: Instance) -> tuple[int, str]:
    """Bytes every valid two-level schedule needs, and which operation forces them.

    Proof: every schedule runs ``B L .. B 0`` (rule 2) and, since ``B L``
    reads x_L, a forward of every stage. While ``B i`` (1 <= i < L) runs it
    holds the server of x_i (>= x_i bytes), xbar_{i+1}, delta_{i+1} (read),
    delta_i (produced) and btmp_i; ``B L`` the server of x_L, delta_L and
    btmp_L; ``B 0`` x_0, xbar_1, delta_1, delta_0, btmp_0. A forward of stage
    i holds its input (>= x_i) and its output (>= x_{i+1}) and ftmp_i. Unlike
    kind ``chain``, x_0 is not counted during the other operations: it may be
    offloaded.
    """
    L, x, xb = instance.length, instance.x, instance.xbar
    candidates = [(x[L] + x[L] + instance.btmp[L], f"B {L} alone")]
    for i in range(L):
        server = x[0] if i == 0 else x[i]
        candidates.append((server + xb[i + 1] + x[i + 1] + x[i] + instance.btmp[i], f"B {i} alone"))
        candidates.append((x[i] + x[i + 1] + instance.ftmp[i], f"the forward of stage {i}"))
    return max(candidates)
