"""Solutions of both kinds: an operation sequence, with start times for kind ``chain-offload``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...core.errors import InvalidInstanceError, InvalidSolutionError
from ...core.fields import require_dict, require_int, require_key, require_known_keys, require_list, require_str
from .data import OPERATIONS

if TYPE_CHECKING:
    from .data import Instance


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
        require_known_keys(data, ("sequence", "start"), "", "a checkpoint solution")
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
