"""JSON Schema of the ``data`` section of a pipeline instance file (docs/pipeline.md, "File format")."""

from __future__ import annotations

from typing import Any

#: The objectives: the makespan of N micro-batches, or the period of a repeated pattern of R.
OBJECTIVES = ("makespan", "period")

#: Block labels: forward, backward (or input-gradient), weight-gradient.
BLOCK_KINDS = ("F", "B", "W")

_DEVICE = {"type": "integer", "minimum": 0}

#: JSON Schema of the ``data`` section of a pipeline instance file.
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pipeline instance data",
    "type": "object",
    "required": ["devices", "blocks"],
    "additionalProperties": False,
    "properties": {
        "devices": {"type": "integer", "minimum": 1, "description": "D, the number of devices"},
        "memory_limit": {
            "description": "per device, its memory limit (null: unlimited); null for the whole list: all unlimited",
            "oneOf": [
                {"type": "null"},
                {"type": "array", "items": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}},
            ],
        },
        "objective": {"enum": list(OBJECTIVES), "description": "makespan (default) or period"},
        "micro_batches": {"type": "integer", "minimum": 1, "description": "N (objective makespan, required)"},
        "period_micro_batches": {
            "type": "integer",
            "minimum": 1,
            "description": "R, micro-batches per period (objective period, default 1)",
        },
        "blocks": {
            "type": "array",
            "minItems": 1,
            "description": "the blocks of one micro-batch",
            "items": {
                "type": "object",
                "required": ["name", "device", "duration", "memory"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1, "description": "unique block name"},
                    "device": {
                        "description": "the device it runs on, or the list of devices it occupies at once",
                        "oneOf": [_DEVICE, {"type": "array", "minItems": 1, "items": _DEVICE}],
                    },
                    "duration": {"type": "integer", "minimum": 1, "description": "time units"},
                    "memory": {
                        "type": "integer",
                        "description": "delta on each of its devices: > 0 allocated at start, < 0 freed at end",
                    },
                    "stage": {"type": "integer", "minimum": 0, "description": "optional stage label"},
                    "kind": {"enum": list(BLOCK_KINDS), "description": "optional: F forward, B backward, W weight"},
                },
            },
        },
        "edges": {
            "type": "array",
            "description": "dependencies inside one micro-batch",
            "items": {
                "type": "object",
                "required": ["from", "to"],
                "additionalProperties": False,
                "properties": {
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "delay": {"type": "integer", "minimum": 0, "description": "communication time (default 0)"},
                },
            },
        },
    },
}
