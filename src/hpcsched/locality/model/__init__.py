"""Data model of the locality problem: tasks with replicated inputs.

An instance has ``m`` servers and ``n`` tasks; task ``j`` has an integer
duration ``p_j >= 1`` (in ``time_unit``) and a replica set ``R_j`` of distinct
servers that hold its input block. A task is *local* on a server of ``R_j``.

Objectives (``Instance.objective``):

``"makespan"`` (objective 1)
    Every task runs on a server of its replica set; minimize the largest
    server load (sum of the durations of its tasks).
``"communication"`` (objective 2)
    Any task may run anywhere; a non-local task takes ``p_j + remote_cost``.
    Each server runs its queue back to back from time 0, and no server is idle
    while a task has not started: ``max_j start_j <= min_i completion_i``
    (an empty server completes at 0). Minimize the number of non-local tasks.
    The spec's tie-break (makespan) is reported as the KPI ``makespan``; the
    objective value is the count alone (exact methods minimize the count).

Modelling choices where the spec leaves room:

* Storage is compact so that 10^6-10^7 tasks fit: durations are one int64
  array, replica sets are in CSR form (``replica_offsets`` of length n+1 and
  ``replica_servers``), all read-only numpy arrays. Task names are ``None``
  unless the file gave names other than the defaults ``j0, j1, ...``.
* A Solution stores the per-server queues in CSR form as well
  (``queue_offsets``, ``queue_tasks``); ``Solution.from_queues`` and
  ``Solution.from_assignment`` build it. ``to_data`` gives the JSON form
  ``{"queues": [[j, ...], ...]}``.
* `validate` reads the definition only: every task exactly once, no queue
  beyond the m servers, objective 1 every task local, objective 2 start times
  rebuilt from the queue order and the no-idle rule checked. It shares no code
  with the heuristics' simulators or the formulations.
* A solution may list fewer queues than servers: the missing servers are
  empty.

Layers inside this folder: ``schema`` -> ``instance`` -> ``solution`` ->
``npz`` / ``validate`` (`evaluate`, `validate`).
"""

from .instance import Instance
from .npz import NPZ_KEYS, load_npz, save_npz
from .schema import DATA_KEYS, DATA_SCHEMA, MAX_SERVERS, OBJECTIVES, TASK_KEYS
from .solution import Solution
from .validate import evaluate, validate

__all__ = [
    "DATA_KEYS",
    "DATA_SCHEMA",
    "MAX_SERVERS",
    "NPZ_KEYS",
    "OBJECTIVES",
    "TASK_KEYS",
    "Instance",
    "Solution",
    "evaluate",
    "load_npz",
    "save_npz",
    "validate",
]
