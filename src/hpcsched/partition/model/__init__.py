"""Data model of the partition problem: a DNN training graph on K GPUs under memory limits.

A DAG of operations v with GPU time p_v (``time``), persistent memory w_v
(``persistent``: weights and optimizer state, held by the GPU hosting v for
the whole iteration) and output size s_v (``output``, bytes). Edge (u, v)
with transfer time c_uv (``transfer``), charged when u and v run on
different GPUs. K identical GPUs with memory M each; optional colocation
groups (all members of a group on one GPU) and pinned nodes. Decisions: a
GPU and a start per node; one operation per GPU at a time; S_v >= C_u (+
c_uv when apart). Objective: the makespan of one iteration. See
``docs/partition.md`` and ``../shared/spec/partition.md``.

Memory models (``memory_model``)
--------------------------------
* ``"static"``: for every GPU g, Σ_{v on g} (w_v + s_v) <= M (the bound
  ParDNN's knapsack uses; the schedule's times do not matter).
* ``"dynamic"``: a sweep over time. On GPU g, at every instant t, the sum of
  the following must be <= M (half-open intervals: an item released at t and
  one allocated at t are never counted together; an empty interval holds
  nothing):

  - w_v for every node v hosted on g, for the whole iteration;
  - the output of every node u on g, alive on ``[S_u, max(C_u, C_v over the
    consumers v of u on g))``: from its producer's start to the end of its
    last consumer on that GPU (to C_u when none);
  - one *copy* per cut edge (u, v) with v on g: s_u bytes alive on
    ``[C_u + c_uv, C_v)``. **Arrival** is defined as C_u + c_uv: the copy is
    sent eagerly when u completes (as TensorFlow's send/recv ops do) and
    lands c_uv later; it is freed when its consumer ends. Two consumers of u
    on one GPU hold two copies (one per edge, as the definition says "a copy
    of u's output then lives on v's GPU").

Modelling choices where the specification leaves room
-----------------------------------------------------
* Times, transfers and memory sizes are non-negative integers; solution
  starts are non-negative integers (with integer data an optimal integer
  schedule exists: shift starts left to an event).
* ``group`` is null, a string or an integer; ``pin`` (optional) is a GPU
  index in ``0..K-1``. A group whose members are pinned to two GPUs, or a
  node (or group) whose memory alone exceeds M, is *legal* data: every
  method answers INFEASIBLE naming it (`hpcsched.partition.bounds.require_feasible`).
* Edges name existing nodes, do not repeat, and the graph is acyclic (a
  cycle is an instance error naming a node on it).
* The validator is written from the definition: the shared schedule rules
  of `hpcsched.taskgraph.validate_machine_schedule` (delay charged between
  *machines*) plus the GPU index, pins, colocation and memory checks here;
  it shares no code with the heuristics' memory accounting
  (`hpcsched.partition.simulate`) or the formulations.
"""

from .data import DATA_SCHEMA, MACHINE_CLASS, MEMORY_MODELS, Instance, Node, Solution
from .validate import evaluate, memory_items, memory_profile, peak_memory, validate

__all__ = [
    "DATA_SCHEMA",
    "MACHINE_CLASS",
    "MEMORY_MODELS",
    "Instance",
    "Node",
    "Solution",
    "evaluate",
    "memory_items",
    "memory_profile",
    "peak_memory",
    "validate",
]
