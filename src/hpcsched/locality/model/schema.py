"""The schema of a locality instance file: objectives, keys, limits and the JSON Schema of ``data``."""

from __future__ import annotations

OBJECTIVES = ("makespan", "communication")

#: Keys of the ``data`` section and of one task record (anything else is refused:
#: a misspelt optional key such as ``"objectiv"`` would otherwise fall back to its
#: default without a word).
DATA_KEYS = ("servers", "objective", "remote_cost", "tasks")
TASK_KEYS = ("name", "duration", "replicas")

#: Largest number of servers. Every method holds a few arrays of m entries
#: (loads, BFS labels, flow nodes), so m is memory, not just a number: 10^11
#: servers would ask for terabytes before any check could fail. Real HDFS
#: clusters have 10^3-10^5 nodes and the shipped scale checks use m <= 10^5;
#: 10^6 leaves an order of magnitude above that while keeping each per-server
#: array at a few MiB. (m is not tied to n: servers holding no replica are
#: legitimate targets of remote tasks under objective 2.)
MAX_SERVERS = 10**6

#: JSON Schema of the ``data`` section of an instance file.
DATA_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "locality instance data",
    "type": "object",
    "required": ["servers", "tasks"],
    "additionalProperties": False,
    "properties": {
        "servers": {"type": "integer", "minimum": 1, "maximum": MAX_SERVERS, "description": "number of servers m"},
        "objective": {
            "enum": ["makespan", "communication"],
            "default": "makespan",
            "description": "makespan: local-only, minimize max load; communication: no idle, minimize non-local tasks",
        },
        "remote_cost": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "extra duration of a non-local task (objective communication)",
        },
        "tasks": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["duration", "replicas"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "duration": {"type": "integer", "minimum": 1},
                    "replicas": {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": True,
                        "items": {"type": "integer", "minimum": 0},
                    },
                },
            },
        },
    },
}
