"""Data model of treemem: Instance, Solution, evaluate, validate.

A task graph (an in-tree or any DAG) is traversed on one processor; the
objective of the ``"sequential"`` question is the peak memory of the
traversal (see ``docs/treemem.md`` and ``../shared/spec/treemem.md``).

Memory semantics (the definition, which `validate` and `evaluate` implement)
----------------------------------------------------------------------------
While node i runs, memory holds the outputs of every finished node that still
has an unfinished successor (the outputs of i's predecessors among them),
plus i's temporary ``exec`` n_i and its ``output`` f_i. When i finishes, n_i
is freed, and the output of each predecessor whose last successor was i is
freed.

*Sink convention*: the output of a node without successors is freed at its
own end (it is counted while the sink runs, not after). memDAG keeps sink
outputs until the end instead; under that convention the memory at a step
grows by the outputs of the sinks finished before it. `evaluate` reports
that figure too (``peak_keep_sinks``); for an in-tree (one sink, the root,
which runs last) both conventions give the same peak.

Modelling choices where the specification leaves room
-----------------------------------------------------
* Sizes and times are non-negative integers (the spec says integers).
* Node names are unique non-empty strings; an edge ``[u, v]`` names two
  nodes; duplicate edges and self-loops are refused; the graph must be
  acyclic (a cycle is reported with the nodes on it).
* ``question``: ``"sequential"``, ``"parallel"`` and ``"out-of-core"``
  (MinIO: ``memory`` M required; the definition, events and objective are in
  `hpcsched.treemem.model.out_of_core`).
* Parallel question: ``processors`` p >= 1 and ``memory`` M >= 0 are
  required and every ``time`` must be >= 1 (a task of length 0 would hold its
  memory during an empty interval, i.e. never: refusing it keeps the memory
  sweep honest). Memory over time: node i holds n_i on ``[s_i, e_i)`` and f_i
  on ``[s_i, L_i)`` with L_i the latest end of its successors (e_i for a
  sink); at equal times frees happen before allocations.
* The validator is written from the definition and shares no code with
  `hpcsched.treemem.simulate` or the formulations.
"""

from __future__ import annotations

from . import out_of_core
from .data import Instance, Node, Solution
from .schema import DATA_SCHEMA, IMPLEMENTED_QUESTIONS, QUESTIONS
from .validate import evaluate, memory_levels, memory_profile, other_question, peak_of, validate

__all__ = [
    "DATA_SCHEMA",
    "IMPLEMENTED_QUESTIONS",
    "QUESTIONS",
    "Instance",
    "Node",
    "Solution",
    "evaluate",
    "memory_levels",
    "memory_profile",
    "other_question",
    "out_of_core",
    "peak_of",
    "validate",
]
