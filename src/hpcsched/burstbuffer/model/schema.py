"""JSON Schema of the ``data`` section of a burstbuffer instance file (``hpcsched schema burstbuffer``)."""

from __future__ import annotations

from typing import Any

from .data import OBJECTIVES

_NUMBER = {"type": "number", "minimum": 0}
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "burstbuffer instance data",
    "type": "object",
    "additionalProperties": False,
    "required": ["platform", "applications"],
    "properties": {
        "objective": {"enum": list(OBJECTIVES), "default": "sharing"},
        "platform": {
            "type": "object",
            "additionalProperties": False,
            "required": ["pfs_bandwidth", "capacity", "granule"],
            "properties": {
                "pfs_bandwidth": {"type": "number", "exclusiveMinimum": 0, "description": "B, bytes/s"},
                "capacity": {**_NUMBER, "description": "S, bytes"},
                "granule": {"type": "number", "exclusiveMinimum": 0, "description": "G, bytes"},
            },
        },
        "applications": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "release", "iterations", "compute", "volume", "rate"],
                "properties": {
                    "name": {"type": "string"},
                    "release": {**_NUMBER, "description": "s"},
                    "iterations": {"type": "integer", "minimum": 1},
                    "compute": {**_NUMBER, "description": "s per iteration"},
                    "volume": {"type": "number", "exclusiveMinimum": 0, "description": "bytes per iteration"},
                    "rate": {"type": "number", "exclusiveMinimum": 0, "description": "bytes/s into the buffer"},
                    "nodes": {"type": "integer", "minimum": 1},
                },
            },
        },
    },
}
