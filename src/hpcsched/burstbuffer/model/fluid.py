"""The event-driven fluid simulator behind `validate` and `evaluate`.

Written from the definition (``docs/burstbuffer.md``, "The model"), sharing
no code with the methods, which use the per-application recurrence of
``simulate.py``. Between two events every rate is constant, so the buffer
content is piecewise linear and its extremes are at events; at every event
the simulator checks occupancy <= capacity (each partition, the whole
buffer), total drain <= B (and reserved drain <= B) and write rate <= r_k,
and it records each application's timeline (compute / io / throttled), the
per-application buffer content at each event and the completion times.

Events: end of a release wait, of a compute phase, of a burst; a buffer
becoming full or empty; a breakpoint of a drain schedule. Values within a
relative 1e-10 of a boundary are snapped onto it so that float noise cannot
create spurious throttling (the checks use 1e-9). Static allocations are
simulated partition by partition (`static_events`), dynamic ones jointly
(`dynamic_events`: O(log K) per event, and the stretches where nobody is
throttled in one numpy pass, `nominal`).
"""

from __future__ import annotations

from .data import Instance
from .dynamic_events import simulate_dynamic
from .solution import Solution
from .static_events import simulate_static
from .trace import Trace


def simulate(instance: Instance, solution: Solution, *, max_events: int | None = None) -> Trace:
    """Simulate ``solution`` on ``instance`` and return the `Trace`.

    Parameters
    ----------
    instance, solution
        What to simulate (the solution's values are assumed checked, see `validate`).
    max_events
        Event budget (default: 50 per burst and application, plus 1000); a
        simulation that needs more reports a ``simulation`` violation.

    Returns
    -------
    Trace
        Event instants, contents, timelines, completions and violations.
    """
    if solution.allocation == "dynamic":
        return simulate_dynamic(instance, solution, max_events)
    return simulate_static(instance, solution, max_events)
