"""The questions treemem asks and the JSON Schema of an instance's ``data`` (re-exported by ``model``)."""

from __future__ import annotations

from typing import Any

QUESTIONS = ("sequential", "parallel", "out-of-core")
IMPLEMENTED_QUESTIONS = ("sequential", "parallel", "out-of-core")

#: JSON Schema of the ``data`` section of a treemem instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "treemem instance data",
    "type": "object",
    "required": ["question", "graph"],
    "additionalProperties": False,
    "properties": {
        "question": {
            "enum": list(QUESTIONS),
            "description": "sequential: minimize the peak memory of a topological order; parallel: "
            "minimize the makespan on p processors under memory M; out-of-core: minimize the bytes "
            "written to secondary storage under memory M",
        },
        "graph": {
            "type": "object",
            "required": ["nodes", "edges"],
            "additionalProperties": False,
            "properties": {
                "nodes": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["name", "time", "exec", "output"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "time": {"type": "integer", "minimum": 0, "description": "w_i in time_unit"},
                            "exec": {
                                "type": "integer",
                                "minimum": 0,
                                "description": "n_i, temporary memory while i runs",
                            },
                            "output": {"type": "integer", "minimum": 0, "description": "f_i, the output of i"},
                        },
                    },
                },
                "edges": {
                    "type": "array",
                    "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string"}},
                    "description": "[u, v]: v consumes u's output; the graph is acyclic",
                },
            },
        },
        "processors": {"type": "integer", "minimum": 1, "description": "p (parallel question)"},
        "memory": {"type": "integer", "minimum": 0, "description": "M (parallel and out-of-core questions)"},
    },
}
