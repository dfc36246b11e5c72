"""Memory slots of the persistent DP: the slot size and every size, transient and budget in slots."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce

from ..model import Instance


def slot_size(instance: Instance, slots: int) -> tuple[int, bool]:
    """The gcd of the sizes when it gives at most ``slots`` slots (exact), else ⌈(M − x_0)/slots⌉."""
    budget = instance.memory - instance.x[0]
    values = [v for v in (*instance.x, *instance.xbar[1:], *instance.ftmp, *instance.btmp, budget) if v > 0]
    divisor = reduce(math.gcd, values, 0) or 1
    if budget // divisor <= slots:
        return divisor, True
    return max(1, math.ceil(budget / slots)), False


@dataclass(frozen=True)
class SlotSizes:
    """The chain's sizes in slots under one rounding.

    Attributes
    ----------
    budget
        Slots available beside x_0 (S; negative: not even x_0 fits).
    x, xbar, ftmp, btmp
        x_i, xbar_i (0 for i = 0), the forward and backward transients, in slots.
    """

    budget: int
    x: list[int]
    xbar: list[int]
    ftmp: list[int]
    btmp: list[int]


def slot_sizes(instance: Instance, slot: int, exact: bool, rounding: str) -> SlotSizes:
    """Sizes and budget (M − x_0) in slots.

    ``"up"``: sizes rounded up, budget down (conservative: fits in bytes).
    ``"nearest"``: sizes and budget to the nearest slot, halves up.
    ``"down"``: sizes down, budget up. The last two are optimistic; with
    ``exact`` (every size a multiple of the slot) all three are the same.
    """
    budget = instance.memory - instance.x[0]
    if rounding == "nearest" and not exact:

        def up(value: int) -> int:
            return (2 * value + slot) // (2 * slot)

        S = up(budget)
    elif rounding == "down" and not exact:

        def up(value: int) -> int:
            return value // slot

        S = -(-budget // slot)
    else:

        def up(value: int) -> int:
            return -(-value // slot)

        S = budget // slot
    return SlotSizes(
        S,
        [up(v) for v in instance.x],
        [0] + [up(v) for v in instance.xbar[1:]],
        [up(v) for v in instance.ftmp],
        [up(v) for v in instance.btmp],
    )
