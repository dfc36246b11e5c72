"""Offload decisions and start times, and the exchange lemma on offload sets of equal-size activations."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ...core.errors import InvalidInstanceError, InvalidSolutionError
from ...core.fields import int_list, require_dict, require_int, require_key, require_known_keys, require_list
from .instance import Instance


@dataclass(frozen=True)
class Solution:
    """Offload decisions and start times.

    Attributes
    ----------
    offloaded
        Sorted indices i of offloaded activations a_i.
    forward_start, backward_start
        Start of F_k and B_k at index k-1.
    offload_start, prefetch_start
        Activation index -> start of its offload / prefetch (keys = offloaded).
    """

    offloaded: tuple[int, ...]
    forward_start: tuple[int, ...]
    backward_start: tuple[int, ...]
    offload_start: Mapping[int, int]
    prefetch_start: Mapping[int, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "offloaded", tuple(sorted(int(i) for i in self.offloaded)))
        object.__setattr__(self, "forward_start", tuple(int(t) for t in self.forward_start))
        object.__setattr__(self, "backward_start", tuple(int(t) for t in self.backward_start))
        object.__setattr__(
            self, "offload_start", MappingProxyType({int(k): int(v) for k, v in self.offload_start.items()})
        )
        object.__setattr__(
            self, "prefetch_start", MappingProxyType({int(k): int(v) for k, v in self.prefetch_start.items()})
        )

    def to_data(self) -> dict:
        return {
            "offloaded": list(self.offloaded),
            "forward_start": list(self.forward_start),
            "backward_start": list(self.backward_start),
            "offload_start": {str(i): t for i, t in sorted(self.offload_start.items())},
            "prefetch_start": {str(i): t for i, t in sorted(self.prefetch_start.items())},
        }

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """Parse a ``solution`` section (structure only; feasibility is `validate`'s job)."""
        try:
            data = require_dict(data, "solution")
            require_known_keys(
                data,
                ("offloaded", "forward_start", "backward_start", "offload_start", "prefetch_start"),
                "",
                "an offload solution",
            )
            n = instance.n_layers
            offloaded_raw = require_list(require_key(data, "offloaded", ""), "offloaded")
            offloaded: list[int] = []
            offloadable, seen = set(instance.offloadable), set()  # sets: membership in lists was quadratic in L
            for position, item in enumerate(offloaded_raw):
                index = require_int(item, f"offloaded[{position}]")
                if index not in offloadable:
                    raise InvalidInstanceError(f"offloaded[{position}]", f"activation {index} is not offloadable")
                if index in seen:
                    raise InvalidInstanceError(f"offloaded[{position}]", f"activation {index} is listed twice")
                seen.add(index)
                offloaded.append(index)
            forward_start = int_list(require_key(data, "forward_start", ""), "forward_start", length=n)
            backward_start = int_list(require_key(data, "backward_start", ""), "backward_start", length=n)
            starts = {}
            for key in ("offload_start", "prefetch_start"):
                table = require_dict(require_key(data, key, ""), key)
                parsed = {}
                for raw_index, value in table.items():
                    try:
                        index = int(raw_index)
                    except (TypeError, ValueError):
                        raise InvalidInstanceError(f"{key}.{raw_index}", "key must be an activation index") from None
                    if index not in offloaded:
                        raise InvalidInstanceError(f"{key}.{raw_index}", f"activation {index} is not offloaded")
                    parsed[index] = require_int(value, f"{key}.{raw_index}")
                missing = sorted(set(offloaded) - set(parsed))
                if missing:
                    raise InvalidInstanceError(key, f"missing start of offloaded activation {missing[0]}")
                starts[key] = parsed
        except InvalidSolutionError:
            raise
        except InvalidInstanceError as error:
            raise InvalidSolutionError(error.field, error.reason) from None
        return cls(tuple(offloaded), forward_start, backward_start, starts["offload_start"], starts["prefetch_start"])


def identical_classes(instance: Instance) -> list[tuple[int, ...]]:
    """Groups (increasing indices, two or more) of offloadable activations of equal size.

    Equal sizes give equal transfer times in both directions, which is what
    the exchange lemma (`exchange_pairs`) needs.
    """
    groups: dict[int, list[int]] = {}
    for i in instance.offloadable:
        groups.setdefault(instance.activation[i], []).append(i)
    return sorted(tuple(group) for group in groups.values() if len(group) >= 2)


def exchange_pairs(instance: Instance) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j consecutive in an `identical_classes` group: offloading a_j implies offloading a_i w.l.o.g.

    **Exchange lemma.** Let a_i and a_j (i < j) be offloadable with
    ``s_i = s_j``, a_i kept and a_j offloaded in a valid schedule.  Give a_j's
    two transfers (same start times) to a_i and keep a_j.  The result is
    valid with the same makespan:

    - the transfers take the same time (equal sizes) and the channels carry
      the same intervals;
    - a_i is produced no later than a_j (end F_i <= end F_j <= the offload
      start) and read no earlier (start B_{i+1} >= start B_{j+1} >= the
      prefetch end);
    - memory: write [e, p) for the end of the offload and the start of the
      prefetch.  The new a_i is absent exactly on [e, p) (its out-part ends
      at max(e, end F_{i+1}) = e, because e >= end F_j >= end F_{i+1}),
      the old a_j was absent on [max(e, end F_{j+1}), p), a subset, and both
      lie in a_j's lifetime.  At an instant of [e, p) the pair holds one
      activation (s bytes) after the exchange and at least one before; at
      every other instant the pair holds the same bytes as before.  The
      zero-duration rows (kept a_0..a_{k-2}) count a_j after and a_i before,
      or only a_i before (i < j).

    Repeating it moves every group's offloaded members to its lowest
    indices (`canonical_schedule`), so an optimal schedule exists whose
    offload set satisfies ``a_j offloaded => a_i offloaded`` for every pair:
    exact methods may add these implications (symmetry breaking) and an
    offload-set search may skip the sets that break them.  Consecutive pairs
    suffice (the implications chain).
    """
    return [(group[t], group[t + 1]) for group in identical_classes(instance) for t in range(len(group) - 1)]


def canonical_set_count(instance: Instance) -> int:
    """How many offload sets keep the implications of `exchange_pairs` (each group: how many, not which)."""
    groups = identical_classes(instance)
    alone = len(instance.offloadable) - sum(len(group) for group in groups)
    return math.prod(len(group) + 1 for group in groups) * 2**alone


def canonical_schedule(instance: Instance, solution: Solution) -> Solution:
    """``solution`` with the exchange lemma (`exchange_pairs`) applied until its offload set is canonical.

    In each group the t-th lowest offloaded member's transfers go to the
    group's t-th lowest index; compute starts are unchanged, so the makespan
    is the same.  Valid whenever ``solution`` is (a sequence of the lemma's
    exchanges: the t-th lowest index is kept at step t while the t-th
    offloaded member is not lower).
    """
    offload_start, prefetch_start = dict(solution.offload_start), dict(solution.prefetch_start)
    for group in identical_classes(instance):
        members = [i for i in group if i in offload_start]
        slots = [(offload_start.pop(i), prefetch_start.pop(i)) for i in members]
        for target, (out_at, in_at) in zip(group, slots, strict=False):
            offload_start[target], prefetch_start[target] = out_at, in_at
    return Solution(
        tuple(sorted(offload_start)), solution.forward_start, solution.backward_start, offload_start, prefetch_start
    )
