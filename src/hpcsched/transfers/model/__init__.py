"""Data model of the transfers problem: Instance, Solution, evaluate, validate.

Independent tasks run on one accelerator. Task ``i`` first copies its input
(``transfer`` time c_i) over the single host-to-device link, then computes
(``compute`` time p_i) on the single device, and holds ``memory`` m_i bytes of
device memory from the start of its transfer to the end of its computation
(half-open interval ``[s_i, t_i + p_i)``). Device memory is ``capacity`` M.
The objective is the makespan ``max_i t_i + p_i``.

The modelling choices where the specification leaves room (integer times,
unique names, ``m_i > M`` as legal data that every method answers
INFEASIBLE, zero-length operations overlapping nothing) are listed in
docs/transfers.md. The validator is written from the definition and shares
no code with the simulator (`hpcsched.transfers.simulate`) or the
formulations.
"""

from __future__ import annotations

from .check import evaluate, makespan_of, validate
from .data import DATA_SCHEMA, Instance, Task, require_fits
from .solution import Solution

__all__ = ["DATA_SCHEMA", "Instance", "Solution", "Task", "evaluate", "makespan_of", "require_fits", "validate"]
