"""Data of the checkpoint problem: the instances (solutions in `solution`, memory floors in `floors`).

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

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)
from .floors import memory_lower_bound_with_reason, offload_memory_lower_bound_with_reason

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
            "prefixItems": [{"type": "null", "description": "xbar_0 does not exist (x_0 is the input)"}],
            "items": _INT,
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
