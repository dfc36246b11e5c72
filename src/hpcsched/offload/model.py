"""Data model of ``offload``: activation offloading during DNN training.

A chain of L layers is trained with one serial compute stream in the fixed
order F_1..F_L, B_L..B_1.  Activations a_0..a_L (a_0 is the input of layer 1)
may be copied to host memory after the forward step that produced them and
copied back before the backward step that reads them; copies share the PCIe
or NVLink link ("full" duplex: one channel per direction, "half": one shared
channel).  The question is which activations to offload and when, so that the
step ends as early as possible within the memory budget M.

Modelling choices where ``offload.md`` leaves room (a scheduling researcher's
reading, written down once here):

- Transfer durations are integers: ``tau = ceil(s / bandwidth) + latency``
  computed exactly with fractions; ``bandwidth: null`` means infinite
  bandwidth (``tau = latency``).  Compute plus every transfer once (the
  worst makespan any method considers) must stay at most 2^53, so a tiny
  positive bandwidth is refused naming ``data.bandwidth_out``/``_in``
  (`_check_time_range`); keys outside the schema are refused too.
- a_L is never offloadable (B_L reads it right after F_L); a_0's offload may
  start at time 0 (it is "produced" by the data loader before F_1).
- Residency intervals are half-open and the memory sweep applies releases
  before allocations at equal times:
  a_i kept ``[start F_i, end B_{i+1})`` (a_0 from 0, a_L until end B_L);
  a_i offloaded ``[start F_i, max(end offload_i, end F_{i+1}))`` and
  ``[start prefetch_i, end B_{i+1})``;
  δ_i (gradient of a_i, size s_i, written by B_{i+1}) ``[start B_{i+1}, end B_i)``
  for 1 <= i < L, δ_0 ``[start B_1, end B_1)``; B_L reads the loss, so there is
  no δ_L; workspaces during their step.
- Feasibility: during F_k the memory must hold a_{k-1}, a_k, wf_k and every
  non-offloadable a_i (i <= k-2); during B_k it must hold a_{k-1}, δ_{k-1},
  δ_k (a_L when k = L), wb_k and every non-offloadable a_i (i <= k-2).  These
  floors are necessary for any offload decision, and sufficient: offloading
  everything offloadable and waiting for each transfer fits (see
  `memory_floors`).  `check_feasible` raises `InfeasibleError` naming the
  first step whose floor exceeds M.
- A step of zero duration contains no instant of the half-open intervals,
  so the sweep alone would let it hold nothing (a schedule of makespan 0
  then passed the validator on an instance where every exact model proves
  2).  It still reads its operands: the validator requires the kept
  a_0..a_{k-2} plus its floor to fit in M, the row every exact model
  (`formulations.build_cpsat`, the brute force's pre-check) and
  `check_feasible` already had.  For a step of positive duration the sweep
  implies that row.  The Kineto importer keeps zero-time layers (16 steps
  of ResNet-50); the PipeDream importer drops them.

The validator (`validate`) is written from the definition above and shares
no code with the simulator, the formulations or the heuristics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ..core.errors import InfeasibleError, InvalidInstanceError, InvalidSolutionError
from ..core.fields import (LARGEST_INTEGER, int_list, require_dict, require_int, require_key, require_known_keys,
                           require_list, require_number, require_str)
from ..core.violation import Violation

DUPLEX_MODES = ("full", "half")

#: The keys of an instance's ``data`` (the schema closes it: a misspelt ``latency`` must not read as 0).
DATA_KEYS = ("layers", "forward", "backward", "activation", "workspace_forward", "workspace_backward", "memory",
             "bandwidth_out", "bandwidth_in", "latency", "duplex", "offloadable")


def _transfer_time(size: int, bandwidth: float | None, latency: int) -> int:
    if bandwidth is None:
        return latency
    return math.ceil(Fraction(size) / Fraction(bandwidth)) + latency


@dataclass(frozen=True)
class Instance:
    """A chain of layers to train under a memory budget.

    Attributes
    ----------
    forward, backward
        f_1..f_L and b_1..b_L (index 0 is layer 1), integers in `time_unit`.
    activation
        s_0..s_L in bytes (s_0: input of layer 1).
    workspace_forward, workspace_backward
        wf_i, wb_i in bytes, length L.
    memory
        M, bytes available for activations, gradients and workspaces.
    bandwidth_out, bandwidth_in
        Bytes per time unit (None: infinite).
    latency
        λ, added to every transfer (time units).
    duplex
        "full" or "half".
    offloadable
        Sorted indices i in 0..L-1 whose a_i may be offloaded.
    layers
        Layer names (length L) or empty.
    """

    name: str
    forward: tuple[int, ...]
    backward: tuple[int, ...]
    activation: tuple[int, ...]
    memory: int
    bandwidth_out: float | None
    bandwidth_in: float | None
    latency: int = 0
    duplex: str = "full"
    workspace_forward: tuple[int, ...] = ()
    workspace_backward: tuple[int, ...] = ()
    offloadable: tuple[int, ...] | None = None
    layers: tuple[str, ...] = ()
    time_unit: str | None = "us"
    source: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Normalise and check through the same path as files (one place).
        data = self.to_data(raw=True)
        checked = _check_data(data)
        for key, value in checked.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "source", MappingProxyType(dict(self.source)))

    # ------------------------------------------------------------------ I/O
    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None, source: dict) -> "Instance":
        """Build an Instance from the ``data`` section of an instance file."""
        data = require_dict(data, "data")
        checked = _check_data(data)
        return cls(name=name, time_unit=time_unit, source=dict(source), **checked)

    def to_data(self, raw: bool = False) -> dict:
        """The ``data`` section of the file format."""
        data: dict[str, Any] = {}
        if self.layers:
            data["layers"] = list(self.layers)
        data["forward"] = list(self.forward)
        data["backward"] = list(self.backward)
        data["activation"] = list(self.activation)
        if any(self.workspace_forward) or (raw and self.workspace_forward):
            data["workspace_forward"] = list(self.workspace_forward)
        if any(self.workspace_backward) or (raw and self.workspace_backward):
            data["workspace_backward"] = list(self.workspace_backward)
        data["memory"] = self.memory
        data["bandwidth_out"] = self.bandwidth_out
        data["bandwidth_in"] = self.bandwidth_in
        data["latency"] = self.latency
        data["duplex"] = self.duplex
        if raw or self.offloadable is None or tuple(self.offloadable) != tuple(range(len(self.forward))):
            data["offloadable"] = None if self.offloadable is None else list(self.offloadable)
        return data

    def with_memory(self, memory: int, name: str | None = None) -> "Instance":
        """The same chain under another budget."""
        import dataclasses

        return dataclasses.replace(self, memory=int(memory), name=name or self.name)

    # ------------------------------------------------------------ derived
    @property
    def n_layers(self) -> int:
        return len(self.forward)

    @property
    def compute_time(self) -> int:
        """Σ (f_i + b_i): the makespan without any stall."""
        return sum(self.forward) + sum(self.backward)

    def offload_time(self, i: int) -> int:
        """τout_i, duration of the offload of a_i."""
        return _transfer_time(self.activation[i], self.bandwidth_out, self.latency)

    def prefetch_time(self, i: int) -> int:
        """τin_i, duration of the prefetch of a_i."""
        return _transfer_time(self.activation[i], self.bandwidth_in, self.latency)

    def layer_name(self, k: int) -> str:
        """Readable name of layer k (1-based)."""
        return f"layer {k} ({self.layers[k - 1]})" if self.layers else f"layer {k}"


def _check_data(data: dict) -> dict:
    """Every check of an instance's data; returns the constructor fields."""
    require_known_keys(data, DATA_KEYS, "data", "an offload instance")
    forward = int_list(require_key(data, "forward", "data"), "data.forward", minimum=0)
    n = len(forward)
    if n < 1:
        raise InvalidInstanceError("data.forward", "must have at least 1 layer")
    backward = int_list(require_key(data, "backward", "data"), "data.backward", minimum=0, length=n)
    activation = int_list(require_key(data, "activation", "data"), "data.activation", minimum=0, length=n + 1)
    wf = data.get("workspace_forward")
    wb = data.get("workspace_backward")
    workspace_forward = (0,) * n if wf is None else int_list(wf, "data.workspace_forward", minimum=0, length=n)
    workspace_backward = (0,) * n if wb is None else int_list(wb, "data.workspace_backward", minimum=0, length=n)
    memory = require_int(require_key(data, "memory", "data"), "data.memory", minimum=0)
    bandwidths = []
    for key in ("bandwidth_out", "bandwidth_in"):
        value = require_key(data, key, "data")
        bandwidths.append(None if value is None else require_number(value, f"data.{key}", strictly_positive=True))
    latency = require_int(data.get("latency", 0), "data.latency", minimum=0)
    duplex = require_str(data.get("duplex", "full"), "data.duplex", choices=DUPLEX_MODES)
    raw_offloadable = data.get("offloadable")
    if raw_offloadable is None:
        offloadable = tuple(range(n))
    else:
        items = require_list(raw_offloadable, "data.offloadable")
        seen = set()
        for position, item in enumerate(items):
            index = require_int(item, f"data.offloadable[{position}]")
            if not 0 <= index < n:
                raise InvalidInstanceError(
                    f"data.offloadable[{position}]",
                    f"activation {index} cannot be offloaded (valid: 0..{n - 1}; a_{n} is read by B_{n} at once)",
                )
            if index in seen:
                raise InvalidInstanceError(f"data.offloadable[{position}]", f"activation {index} is listed twice")
            seen.add(index)
        offloadable = tuple(sorted(seen))
    layers_raw = data.get("layers")
    if layers_raw is None:
        layers: tuple[str, ...] = ()
    else:
        items = require_list(layers_raw, "data.layers", length=n)
        layers = tuple(require_str(item, f"data.layers[{k}]") for k, item in enumerate(items))
    _check_time_range(forward, backward, activation, offloadable, bandwidths[0], bandwidths[1], latency)
    return {
        "forward": forward,
        "backward": backward,
        "activation": activation,
        "workspace_forward": workspace_forward,
        "workspace_backward": workspace_backward,
        "memory": memory,
        "bandwidth_out": bandwidths[0],
        "bandwidth_in": bandwidths[1],
        "latency": latency,
        "duplex": duplex,
        "offloadable": offloadable,
        "layers": layers,
    }


def _check_time_range(forward, backward, activation, offloadable, bandwidth_out, bandwidth_in, latency) -> None:
    """Refuse instances whose worst makespan (compute, then every transfer one after another) exceeds 2^53.

    That sum bounds every schedule the methods consider (offload-all's, the
    horizons and big-Ms of the exact models); beyond 2^53 CP-SAT's int64
    domains overflow and HiGHS's doubles round.  A tiny bandwidth (1e-300
    bytes per time unit) is legal as a number but makes a transfer last
    ~1e301 time units: the error names the field that makes the sum too large.
    """
    parts = {
        "data.forward": sum(forward),
        "data.backward": sum(backward),
        "data.bandwidth_out": sum(_transfer_time(activation[i], bandwidth_out, 0) for i in offloadable),
        "data.bandwidth_in": sum(_transfer_time(activation[i], bandwidth_in, 0) for i in offloadable),
        "data.latency": 2 * latency * len(offloadable),
    }
    total = sum(parts.values())
    if total > LARGEST_INTEGER:
        culprit = max(parts, key=parts.get)
        what = {"data.forward": "the forward times", "data.backward": "the backward times",
                "data.bandwidth_out": "the offload times ceil(s_i / bandwidth_out)",
                "data.bandwidth_in": "the prefetch times ceil(s_i / bandwidth_in)",
                "data.latency": "the latencies of the transfers"}[culprit]
        raise InvalidInstanceError(
            culprit, f"{what} sum to {_rough(parts[culprit])} time units; compute and every transfer together "
                     f"({_rough(total)}) must stay at most 2^53 = {LARGEST_INTEGER}")


def _rough(value: int) -> str:
    """``value`` to 3 digits; past a double's range (bandwidth 5e-324 B/unit) as a power of ten."""
    digits = len(str(value))
    return f"{value:.3g}" if digits <= 300 else f"{value // 10 ** (digits - 3) / 100:.2f}e+{digits - 1}"


# ---------------------------------------------------------------- feasibility
def memory_floors(instance: Instance) -> list[tuple[str, int]]:
    """Memory that step F_k / B_k needs whatever is offloaded, in compute order.

    Returns ``[("F1", bytes), ..., ("FL", ...), ("BL", ...), ..., ("B1", ...)]``.
    Necessary: a step's inputs, outputs and workspace are resident while it
    runs, and so is every non-offloadable activation still to be read.
    Sufficient when every floor is <= M: offload everything offloadable, let
    F_k wait until the offloads of a_0..a_{k-2} are done, and let each
    prefetch of a_{k-1} start after B_{k+1} ends; memory is then at most the
    floor of the running step.
    """
    s, n = instance.activation, instance.n_layers
    pinned = [0] * (n + 1)  # pinned[i] = Σ_{j<i, j not offloadable} s_j
    offloadable = set(instance.offloadable)
    for i in range(n):
        pinned[i + 1] = pinned[i] + (0 if i in offloadable else s[i])
    floors = [(f"F{k}", pinned[max(k - 1, 0)] + _step_floor(instance, f"F{k}")) for k in range(1, n + 1)]
    floors += [(f"B{k}", pinned[max(k - 1, 0)] + _step_floor(instance, f"B{k}")) for k in range(n, 0, -1)]
    return floors


def _step_floor(instance: Instance, step: str) -> int:
    """Bytes step F_k / B_k itself needs: its inputs, its outputs and its workspace."""
    s, n, k = instance.activation, instance.n_layers, int(step[1:])
    if step[0] == "F":
        return s[k - 1] + s[k] + instance.workspace_forward[k - 1]
    gradient_in = s[n] if k == n else s[k]  # δ_k (a_L stands for the loss gradient of B_L)
    return 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1]


def kept_prefix_fits(instance: Instance, offloaded: Iterable[int]) -> bool:
    """Whether every step fits with the kept a_0..a_{k-2}: kept bytes + `_step_floor` <= M for all k.

    Necessary for any schedule that offloads exactly ``offloaded`` (the row of
    the validator's zero-duration check, implied by the sweep for a step of
    positive duration); a cheap filter before timing a set.
    """
    chosen, s = set(offloaded), instance.activation
    kept = 0
    for k in range(1, instance.n_layers + 1):
        kept += s[k - 2] if k >= 2 and (k - 2) not in chosen else 0
        if kept + max(_step_floor(instance, f"F{k}"), _step_floor(instance, f"B{k}")) > instance.memory:
            return False
    return True


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
    return math.prod(len(group) + 1 for group in groups) * 2 ** alone


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
        for target, (out_at, in_at) in zip(group, slots):
            offload_start[target], prefetch_start[target] = out_at, in_at
    return Solution(tuple(sorted(offload_start)), solution.forward_start, solution.backward_start,
                    offload_start, prefetch_start)


def check_feasible(instance: Instance) -> None:
    """Raise `InfeasibleError` naming the first step that cannot fit in M."""
    for step, need in memory_floors(instance):
        if need > instance.memory:
            k = int(step[1:])
            raise InfeasibleError(
                f"step {step} ({'forward' if step[0] == 'F' else 'backward'} of {instance.layer_name(k)}) "
                f"needs at least {need} bytes whatever is offloaded, budget is {instance.memory}"
            )


# ---------------------------------------------------------------- solution
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
        object.__setattr__(self, "offload_start", MappingProxyType({int(k): int(v) for k, v in self.offload_start.items()}))
        object.__setattr__(self, "prefetch_start", MappingProxyType({int(k): int(v) for k, v in self.prefetch_start.items()}))

    def to_data(self) -> dict:
        return {
            "offloaded": list(self.offloaded),
            "forward_start": list(self.forward_start),
            "backward_start": list(self.backward_start),
            "offload_start": {str(i): t for i, t in sorted(self.offload_start.items())},
            "prefetch_start": {str(i): t for i, t in sorted(self.prefetch_start.items())},
        }

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> "Solution":
        """Parse a ``solution`` section (structure only; feasibility is `validate`'s job)."""
        try:
            data = require_dict(data, "solution")
            n = instance.n_layers
            offloaded_raw = require_list(require_key(data, "offloaded", ""), "offloaded")
            offloaded = []
            for position, item in enumerate(offloaded_raw):
                index = require_int(item, f"offloaded[{position}]")
                if index not in instance.offloadable:
                    raise InvalidInstanceError(f"offloaded[{position}]", f"activation {index} is not offloadable")
                if index in offloaded:
                    raise InvalidInstanceError(f"offloaded[{position}]", f"activation {index} is listed twice")
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


# ---------------------------------------------------------------- evaluation
def _residency(instance: Instance, solution: Solution) -> list[tuple[int, int, int, str]]:
    """Every residency interval ``(start, end, bytes, what)`` from the definition."""
    n, s = instance.n_layers, instance.activation
    fs, bs = solution.forward_start, solution.backward_start
    f_end = [fs[k] + instance.forward[k] for k in range(n)]
    b_end = [bs[k] + instance.backward[k] for k in range(n)]
    offloaded = set(solution.offloaded)
    intervals = []
    for i in range(n + 1):
        born = 0 if i == 0 else fs[i - 1]
        last_use = b_end[n - 1] if i == n else b_end[i]  # a_i is read by B_{i+1} (a_L by B_L)
        if i in offloaded:
            out_end = max(solution.offload_start[i] + instance.offload_time(i), f_end[i])
            intervals.append((born, out_end, s[i], f"a{i} (before offload)"))
            intervals.append((solution.prefetch_start[i], last_use, s[i], f"a{i} (prefetched)"))
        else:
            intervals.append((born, last_use, s[i], f"a{i}"))
    for i in range(n):  # δ_i written by B_{i+1}, read by B_i (δ_0 dies with B_1)
        intervals.append((bs[i], b_end[i - 1] if i >= 1 else b_end[0], s[i], f"grad{i}"))
    for k in range(n):
        intervals.append((fs[k], f_end[k], instance.workspace_forward[k], f"workspace F{k + 1}"))
        intervals.append((bs[k], b_end[k], instance.workspace_backward[k], f"workspace B{k + 1}"))
    return [interval for interval in intervals if interval[2] > 0 and interval[1] > interval[0]]


def memory_profile(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """Step function ``[(time, bytes in use from that time on), ...]``."""
    events: dict[int, int] = {}
    for start, end, size, _ in _residency(instance, solution):
        events[start] = events.get(start, 0) + size
        events[end] = events.get(end, 0) - size
    profile, usage = [], 0
    for time in sorted(events):
        usage += events[time]  # releases and allocations at one time are summed: release first
        profile.append((time, usage))
    return profile


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (objective), overhead, offloaded bytes/count, peak memory."""
    n = instance.n_layers
    makespan = max(
        [solution.backward_start[k] + instance.backward[k] for k in range(n)]
        + [solution.forward_start[k] + instance.forward[k] for k in range(n)]
    )
    peak = max((usage for _, usage in memory_profile(instance, solution)), default=0)
    offloaded_bytes = sum(instance.activation[i] for i in solution.offloaded)
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "overhead": float(makespan - instance.compute_time),
        "offloaded_bytes": float(offloaded_bytes),
        "offloaded_count": float(len(solution.offloaded)),
        "peak_memory": float(peak),
    }


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible)."""
    violations: list[Violation] = []
    n = instance.n_layers
    if len(solution.forward_start) != n or len(solution.backward_start) != n:
        return [Violation("structure", f"expected {n} forward and backward starts")]
    offloaded = set(solution.offloaded)
    for i in offloaded:
        if i not in instance.offloadable:
            violations.append(Violation("structure", f"a{i} is offloaded but not offloadable"))
    for table_name, table in (("offload_start", solution.offload_start), ("prefetch_start", solution.prefetch_start)):
        if set(table) != offloaded:
            violations.append(Violation("structure", f"{table_name} keys {sorted(table)} differ from offloaded {sorted(offloaded)}"))
    if violations:
        return violations
    fs, bs = solution.forward_start, solution.backward_start
    f, b = instance.forward, instance.backward
    # Compute order F_1..F_L, B_L..B_1 on one stream.
    sequence = [(f"F{k + 1}", fs[k], f[k]) for k in range(n)] + [(f"B{k}", bs[k - 1], b[k - 1]) for k in range(n, 0, -1)]
    if sequence[0][1] < 0:
        violations.append(Violation("order", f"F1 starts at {sequence[0][1]} < 0"))
    for (name_a, start_a, dur_a), (name_b, start_b, _) in zip(sequence, sequence[1:]):
        if start_b < start_a + dur_a:
            violations.append(Violation("order", f"{name_b} starts at {start_b} before {name_a} ends at {start_a + dur_a}"))
    # Transfers: release, offload before prefetch, prefetch before use.
    transfers = []
    for i in sorted(offloaded):
        out_start, in_start = solution.offload_start[i], solution.prefetch_start[i]
        out_end, in_end = out_start + instance.offload_time(i), in_start + instance.prefetch_time(i)
        produced = 0 if i == 0 else fs[i - 1] + f[i - 1]
        if out_start < produced:
            violations.append(Violation("offload-release", f"offload of a{i} starts at {out_start} before a{i} exists ({produced})"))
        if in_start < out_end:
            violations.append(Violation("prefetch-after-offload", f"prefetch of a{i} starts at {in_start} before its offload ends at {out_end}"))
        if in_end > bs[i]:
            violations.append(Violation("prefetch-deadline", f"prefetch of a{i} ends at {in_end} after B{i + 1} starts at {bs[i]}"))
        transfers.append(("out", f"offload a{i}", out_start, out_end))
        transfers.append(("in", f"prefetch a{i}", in_start, in_end))
    channels: dict[str, list] = {}
    for direction, label, start, end in transfers:
        channel = direction if instance.duplex == "full" else "link"
        channels.setdefault(channel, []).append((start, end, label))
    for channel, items in channels.items():
        items = sorted(item for item in items if item[1] > item[0])  # empty transfers occupy nothing
        latest = None  # the transfer seen so far that ends last
        for start, end, label in items:
            if latest is not None and start < latest[1]:
                violations.append(Violation(
                    "channel", f"{latest[2]} [{latest[0]},{latest[1]}) overlaps {label} [{start},{end}) on the {channel} channel"))
            if latest is None or end > latest[1]:
                latest = (start, end, label)
    # A step of zero duration has empty residency intervals at its instant, so the sweep cannot see
    # it; it still reads its operands while the kept a_0..a_{k-2} are resident (the memory floor of
    # `memory_floors` with the kept prefix, the row every exact model has).  For a step of positive
    # duration the sweep implies this row.
    kept = 0
    for k in range(1, n + 1):
        if k >= 2:
            kept += 0 if (k - 2) in offloaded else instance.activation[k - 2]
        for step, duration in ((f"F{k}", f[k - 1]), (f"B{k}", b[k - 1])):
            need = kept + _step_floor(instance, step)
            if duration == 0 and need > instance.memory:
                violations.append(Violation(
                    "memory", f"{step} (zero duration) needs {need} bytes with the kept activations before it "
                              f"> budget {instance.memory}"))
    # Memory sweep over all residency intervals, releases before allocations.
    events = []
    for start, end, size, what in _residency(instance, solution):
        events.append((start, 1, size, what))
        events.append((end, 0, -size, what))
    events.sort(key=lambda e: (e[0], e[1]))
    usage, reported = 0, 0
    for time, kind, delta, what in events:
        usage += delta
        if kind == 1 and usage > instance.memory and reported < 5:
            violations.append(Violation("memory", f"{usage} bytes in use at time {time} (allocating {what}) > budget {instance.memory}"))
            reported += 1
    return violations
