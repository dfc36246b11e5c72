"""Peak memory of a sequence by backward liveness analysis (shared by heuristics and the DP's checks).

Not used by `model.validate`, which applies the definition forward; this is
a second, independent implementation of the same liveness rule:
live_in(t) = (live_out(t) − produced(t)) ∪ read(t), scanning from the end,
where a read of x_i is served by xbar_i when xbar_i is live (kept for an
explicit read by ``B i-1``). Held during operation t: live_out(t), what it
reads and what it produces. x_0 is live from the start, delta_0 to the end.
"""

from __future__ import annotations

from .model import Instance


def memory_levels(instance: Instance, sequence) -> list[int]:
    """Bytes held during each operation, transients included (valid sequences only)."""
    L = instance.length
    size = {}
    for i in range(L + 1):
        size[("x", i)] = instance.x[i]
        size[("d", i)] = instance.x[i]
        if i >= 1:
            size[("xbar", i)] = instance.xbar[i]
    live: set = {("d", 0)}
    live_bytes = size[("d", 0)]  # Σ size over live, kept as live changes (O(1) per operation)
    levels = [0] * len(sequence)
    for t in range(len(sequence) - 1, -1, -1):
        name, i = sequence[t]
        if name == "F":
            produced, transient = ("x", i + 1), instance.ftmp[i]
        elif name == "Fall":
            produced, transient = ("xbar", i + 1), instance.ftmp[i]
        else:
            produced, transient = ("d", i), instance.btmp[i]
        reads = set()
        if name == "B" and i < L:
            reads |= {("xbar", i + 1), ("d", i + 1)}
        if i >= 1 and ("xbar", i) in live:
            reads.add(("xbar", i))
        else:
            reads.add(("x", i))
        added = reads - live  # held during t besides live: the reads not live after t, and what t produces
        if produced not in live and produced not in reads:
            added.add(produced)
        levels[t] = live_bytes + sum(size[v] for v in added) + transient
        if produced in live:
            live.discard(produced)
            live_bytes -= size[produced]
        for value in reads:
            if value not in live:
                live.add(value)
                live_bytes += size[value]
    return levels


def peak(instance: Instance, sequence) -> int:
    """The largest of `memory_levels` (0 for an empty sequence)."""
    return max(memory_levels(instance, sequence), default=0)


def total_time(instance: Instance, sequence) -> int:
    """Σ of the operations' times."""
    return sum(instance.bw[i] if name == "B" else instance.fw[i] for name, i in sequence)
