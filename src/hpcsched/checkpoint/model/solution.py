"""Solutions of both kinds: an operation sequence, with start times for kind ``chain-offload``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...core.deadline import Deadline
from ...core.errors import InvalidInstanceError, InvalidSolutionError
from ...core.fields import require_dict, require_int, require_key, require_known_keys, require_list, require_str
from .data import OPERATIONS

if TYPE_CHECKING:
    from .data import Instance


#: CPU seconds per operation of a returned sequence: building its `Solution`, the registry's validation
#: and evaluation, and the method's own simulation, per kind of the instance that checks it. Measured
#: (CPU time, 2-core machine at load ~10): 3.6 µs (chain) and 10 µs (chain-offload: the timed definition)
#: for the Solution, validate and evaluate; the method's simulation adds ~1.5 µs. About 1.5-2× that here.
CHECK_SECONDS_PER_OPERATION = {"chain": 6e-6, "chain-offload": 2e-5}

#: Seconds past the method's deadline that checking its answer may take (the registry validates every
#: answer, and a time limit T covers it: a method returns within 1.2·T + 2 s).
CHECK_ALLOWANCE_S = 1.0


def too_long_to_check(kind: str, operations: int, deadline: Deadline) -> str | None:
    """Why a sequence of ``operations`` operations cannot be returned in time, or None when it can.

    Some sequences are far longer than the chain (recompute-all has L(L−1)/2 + 3L + 1 operations):
    checking one takes `CHECK_SECONDS_PER_OPERATION` per operation, which must fit in what the
    deadline leaves plus `CHECK_ALLOWANCE_S`. Without a deadline every length fits.
    """
    left = deadline.remaining()
    if left is None:
        return None
    seconds = operations * CHECK_SECONDS_PER_OPERATION[kind]
    if seconds <= left + CHECK_ALLOWANCE_S:
        return None
    return (
        f"its sequence has {operations} operations, ~{seconds:.3g} s to build and check against the "
        f"{kind} definition: more than the {left:.3g} s left (+{CHECK_ALLOWANCE_S:g} s); a longer time limit "
        "may allow it"
    )


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
