"""The out-of-core question (MinIO), written from the definition: validate and evaluate.

Definition
----------
Memory M is below what an in-core traversal needs, so outputs may be
written to secondary storage and read back. A solution is an ``order`` (a
topological permutation of the nodes) and a list ``io`` of events
``("evict", x, k)`` / ``("reload", x, k)``: the event takes place at
position k (0 <= k < n), i.e. after the node at position k − 1 has finished
and its memory was freed, and before the node at position k starts. Events
of one position happen in the order they are listed.

Each output is *absent* (not produced yet, or freed), *resident* (in
memory) or *on disk*:

* ``evict x``: x must be resident; it goes to disk; f_x bytes are written.
* ``reload x``: x must be on disk; it becomes resident; f_x bytes are read.
* After every event, the resident outputs sum to at most M.
* Node v runs only when the outputs of all its predecessors are resident;
  during its step the resident outputs plus n_v plus f_v are at most M.
* When v finishes, n_v is freed, f_v becomes resident (a sink's output is
  freed at its own end, as in the sequential question), and the output of
  each predecessor whose last successor was v is freed.

Objective: the bytes written, Σ f_x over the evict events. Reads are not
added: every evicted output must be reloaded before its next consumer runs
(an output is evicted only while resident and consumed only while resident),
so in a valid solution the bytes read equal the bytes written, and the total
traffic is exactly twice the objective. `evaluate` reports both.

Nothing here is shared with the methods (`hpcsched.treemem.simulate`,
heuristics, formulations).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.violation import Violation

if TYPE_CHECKING:  # the model package imports this module
    from . import Instance, Solution

IO_KINDS = ("evict", "reload")
ABSENT, RESIDENT, ON_DISK = "absent", "resident", "on disk"


def _io_events(instance: Instance, solution: Solution) -> tuple[dict[int, list[tuple[str, int]]], list[Violation]]:
    """Events grouped by position (listed order kept), or the violations of their form."""
    index = {node.name: i for i, node in enumerate(instance.nodes)}
    n = len(instance.nodes)
    by_position: dict[int, list[tuple[str, int]]] = {}
    violations = []
    for k, (kind, label, position) in enumerate(solution.io or ()):
        if kind not in IO_KINDS:
            violations.append(Violation("io-kind", f"io[{k}] is '{kind}', expected evict or reload"))
        elif label not in index:
            violations.append(Violation("unknown-node", f"io[{k}] names unknown node '{label}'"))
        elif not 0 <= position < n:
            violations.append(Violation("io-position", f"io[{k}] is at position {position}, valid: 0..{n - 1}"))
        else:
            by_position.setdefault(position, []).append((kind, index[label]))
    return by_position, violations


def replay(instance: Instance, order: list[int], solution: Solution) -> tuple[list[Violation], dict[str, Any]]:
    """Play the traversal and its events as the definition says; violations and totals.

    ``order`` is the solution's order as indices, already checked to be a
    topological permutation. Totals: ``written``, ``read``, ``evictions``,
    ``peak`` and ``steps`` (the memory during each step).
    """
    by_position, violations = _io_events(instance, solution)
    if violations:
        return violations, {}
    nodes, successors, predecessors = instance.nodes, instance.successors, instance.predecessors
    limit = instance.memory or 0
    state = [ABSENT] * len(nodes)
    remaining_consumers = [len(s) for s in successors]
    held = 0  # bytes of the resident outputs
    written = read = evictions = peak = 0
    steps = []  # memory during each step (what `plot_solution` draws)
    for position, v in enumerate(order):
        for kind, x in by_position.get(position, ()):
            name = nodes[x].name
            if kind == "evict":
                if state[x] != RESIDENT:
                    violations.append(
                        Violation(
                            "evict-not-resident", f"evict '{name}' at position {position}: its output is {state[x]}"
                        )
                    )
                    continue
                state[x] = ON_DISK
                held -= nodes[x].output
                written += nodes[x].output
                evictions += 1
            else:
                if state[x] != ON_DISK:
                    violations.append(
                        Violation(
                            "reload-not-evicted", f"reload '{name}' at position {position}: its output is {state[x]}"
                        )
                    )
                    continue
                state[x] = RESIDENT
                held += nodes[x].output
                read += nodes[x].output
                if held > limit:
                    violations.append(
                        Violation(
                            "memory",
                            f"{held} resident after reloading '{name}' at position {position}, memory is {limit}",
                        )
                    )
            peak = max(peak, held)
        for p in predecessors[v]:
            if state[p] != RESIDENT:
                violations.append(
                    Violation(
                        "input-not-resident",
                        f"'{nodes[v].name}' (position {position}) runs while the output of "
                        f"'{nodes[p].name}' is {state[p]}",
                    )
                )
        during = held + nodes[v].exec + nodes[v].output
        steps.append(during)
        peak = max(peak, during)
        if during > limit:
            violations.append(
                Violation(
                    "memory",
                    f"{during} held while '{nodes[v].name}' (position {position}) "
                    f"runs, memory is {limit} (over by {during - limit})",
                )
            )
        if successors[v]:
            state[v] = RESIDENT
            held += nodes[v].output
        for p in predecessors[v]:
            remaining_consumers[p] -= 1
            if remaining_consumers[p] == 0:  # v was p's last consumer: p's output is freed
                if state[p] == RESIDENT:
                    held -= nodes[p].output
                state[p] = ABSENT
    totals = {"written": written, "read": read, "evictions": evictions, "peak": peak, "steps": steps}
    return violations, totals


def evaluate(instance: Instance, order: list[int], solution: Solution) -> dict[str, float]:
    """Bytes written (the objective) and KPIs of a valid out-of-core solution."""
    _, totals = replay(instance, order, solution)
    return {
        "objective": float(totals["written"]),
        "bytes_written": float(totals["written"]),
        "bytes_read": float(totals["read"]),
        "io_volume": float(totals["written"] + totals["read"]),
        "evictions": float(totals["evictions"]),
        "peak_memory": float(totals["peak"]),
        "memory": float(instance.memory or 0),
    }


def io_from_data(raw: Any, known: set[str]) -> tuple[tuple[str, str, int], ...]:
    """The ``solution.io`` list checked field by field."""
    from ...core.errors import InvalidInstanceError, InvalidSolutionError
    from ...core.fields import require_int, require_list, require_str

    events = []
    try:
        for k, item in enumerate(require_list(raw, "solution.io")):
            event = require_list(item, f"solution.io[{k}]", length=3)
            kind = require_str(event[0], f"solution.io[{k}][0]", choices=IO_KINDS)
            label = require_str(event[1], f"solution.io[{k}][1]")
            if label not in known:
                raise InvalidSolutionError(f"solution.io[{k}][1]", f"unknown node '{label}'")
            events.append((kind, label, require_int(event[2], f"solution.io[{k}][2]", minimum=0)))
    except InvalidSolutionError:
        raise
    except InvalidInstanceError as error:  # the field helpers speak of instances: this is a solution file
        raise InvalidSolutionError(error.field, error.reason) from None
    return tuple(events)
