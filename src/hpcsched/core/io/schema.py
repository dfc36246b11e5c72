"""The JSON Schema of instance files, and the reader's check against it.

One source of truth for file structure: `instance_schema` is what ``hpcsched
schema`` prints and what `check_against_schema` validates every file with
before the problem's semantic checks, so schema and reader cannot disagree.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import InvalidInstanceError
from ..fields import LARGEST_INTEGER
from ..registry import Problem

#: The ``format`` of the files this version writes and reads.
FORMAT_VERSION = 1
#: The values of an instance file's ``time_unit``.
TIME_UNITS = ("ns", "us", "ms", "s")


def instance_schema(problem: Problem) -> dict[str, Any]:
    """The JSON Schema of ``problem``'s instance files: a closed top level
    around the problem's ``data_schema``. The reader validates every file
    against it before its own semantic checks (`check_against_schema`), and
    ``hpcsched schema`` prints it, so schema and reader cannot disagree on
    structure."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"hpcsched {problem.name} instance",
        "type": "object",
        "required": ["problem", "data"],
        "additionalProperties": False,
        "properties": {
            "problem": {"const": problem.name},
            "format": {"const": FORMAT_VERSION},
            "name": {"type": "string"},
            "time_unit": {"enum": [*TIME_UNITS, None]},
            "source": {
                "type": "object",
                "description": "provenance: generator, parameters and seed, or trace file and sha256",
            },
            "data": with_number_ranges(problem.data_schema),
        },
    }


#: Largest finite double: a JSON number such as ``1e999`` parses to infinity, which no field accepts.
LARGEST_DOUBLE = 1.7976931348623157e308


def with_number_ranges(schema: Any) -> Any:
    """``schema`` with the ranges every hpcsched reader enforces made explicit:
    integers within +-2^53 (`core.fields.LARGEST_INTEGER`: exact in a double,
    summable in int64) and numbers finite, wherever the schema itself states
    no tighter bound. One rule for every problem, so no package can forget it."""
    if isinstance(schema, list):
        return [with_number_ranges(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    widened = {
        key: (value if key in ("enum", "const", "default", "examples") else with_number_ranges(value))
        for key, value in schema.items()
    }
    kinds = schema.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if kinds & {"integer", "number"}:
        limit = LARGEST_INTEGER if "number" not in kinds else LARGEST_DOUBLE
        if "maximum" not in schema and "exclusiveMaximum" not in schema:
            widened["maximum"] = limit
        if "minimum" not in schema and "exclusiveMinimum" not in schema:
            widened["minimum"] = -limit
    return widened


#: problem name -> (the data_schema object it was compiled from, fast check, full validator).
_VALIDATORS: dict[str, tuple[Any, Any, Any]] = {}


def _validators(problem: Problem) -> tuple[Any, Any]:
    """(fast check, full validator) of ``problem``'s instance schema, compiled once.

    ``fastjsonschema`` compiles the schema to Python code: a valid 100k-task
    file is checked in a fraction of a second, where ``jsonschema`` walks it
    in tens of seconds. Only a refused file goes through ``jsonschema``, whose
    errors carry the JSON path and the failing keyword for a precise message.
    """
    cached = _VALIDATORS.get(problem.name)
    if cached is not None and cached[0] is problem.data_schema:
        return cached[1], cached[2]
    import jsonschema

    schema = instance_schema(problem)
    full = jsonschema.Draft202012Validator(schema, format_checker=None)
    fast = None
    draft7 = as_draft7(schema)
    if draft7 is not None:
        try:
            import fastjsonschema

            fast = fastjsonschema.compile(draft7)
        except Exception:  # not installed, or a schema it does not compile: jsonschema alone
            fast = None
    _VALIDATORS[problem.name] = (problem.data_schema, fast, full)
    return fast, full


#: Keywords that mean the same in draft 7 (what fastjsonschema implements) and in 2020-12.
_DRAFT7_KEYWORDS = frozenset(
    {
        "$schema",
        "title",
        "description",
        "default",
        "examples",
        "type",
        "enum",
        "const",
        "properties",
        "patternProperties",
        "additionalProperties",
        "required",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
    }
)


def as_draft7(schema: Any) -> Any:
    """``schema`` (2020-12) in draft 7, what fastjsonschema implements, or None
    when it uses a keyword without a draft-7 equivalent here (fastjsonschema
    would silently ignore it, so such a schema is checked by jsonschema alone).

    ``prefixItems`` becomes draft 7's tuple form of ``items`` (and a 2020-12
    ``items`` beside it, ``additionalItems``)."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict) or not set(schema) <= _DRAFT7_KEYWORDS | {"prefixItems"}:
        return None
    if isinstance(schema.get("items"), list):  # a tuple in draft 7, not a 2020-12 schema
        return None
    converted: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$schema":
            continue
        if key in ("properties", "patternProperties"):
            children = {name: as_draft7(child) for name, child in value.items()}
            if any(child is None for child in children.values()):
                return None
            converted[key] = children
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            members = [as_draft7(child) for child in value]
            if any(member is None for member in members):
                return None
            converted["items" if key == "prefixItems" else key] = members
        elif key in ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"):
            child = as_draft7(value)
            if child is None:
                return None
            converted["additionalItems" if key == "items" and "prefixItems" in schema else key] = child
        else:
            converted[key] = value
    return converted


def json_path(parts: Any) -> str:
    """``["data", "tasks", 3, "memory"]`` as ``data.tasks[3].memory``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _short(value: Any, limit: int = 80) -> str:
    text = (
        json.dumps(value)
        if not isinstance(value, (dict, list))
        else f"a JSON {'object' if isinstance(value, dict) else 'array'}"
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


_BOUND_WORDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
_SIZE_KEYWORDS = ("minItems", "maxItems", "minLength", "maxLength", "minProperties")


def _schema_error(error: Any) -> tuple[str, str]:
    """(field path, reason) of a ``jsonschema`` error, in the reader's words."""
    path = list(error.absolute_path)
    keyword = error.validator
    pointed = _key_error(error, path)
    if pointed is not None:
        return pointed
    if keyword == "type":
        return json_path(path), _type_reason(error)
    if keyword in _BOUND_WORDS:
        return json_path(path), f"must be {_BOUND_WORDS[keyword]} {error.validator_value}, got {_short(error.instance)}"
    if keyword == "uniqueItems":
        return json_path(path), "must not repeat an item"
    if keyword in _SIZE_KEYWORDS:
        return json_path(path), (
            error.message if len(error.message) <= 200 else f"fails {keyword} {error.validator_value}"
        )
    if keyword in ("enum", "const"):
        return json_path(path), _choice_reason(error)
    message = error.message
    return json_path(path), message if len(message) <= 200 else f"fails the schema's '{keyword}' rule"


def _key_error(error: Any, path: list[Any]) -> tuple[str, str] | None:
    """An unknown or missing object key, reported at the key's own path (None for other errors)."""
    keyword, value, expected = error.validator, error.instance, error.validator_value
    if not isinstance(value, dict):
        return None
    if keyword == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = sorted(key for key in value if key not in known)
        if extra:
            listed = ", ".join(sorted(known)) or "none"
            return json_path([*path, extra[0]]), f"unknown key (allowed: {listed})"
    if keyword == "required":
        missing = [key for key in expected if key not in value]
        if missing:
            return json_path([*path, missing[0]]), "is missing"
    return None


def _type_reason(error: Any) -> str:
    """``must be an integer, got string "3"``."""
    value, expected = error.instance, error.validator_value
    got = "null" if value is None else f"{_JSON_TYPES.get(type(value), type(value).__name__)} {_short(value)}"
    wanted = " or ".join(expected) if isinstance(expected, list) else expected
    if wanted == "null":
        return f"must be null, got {got}"
    return f"must be {'an' if str(wanted)[0] in 'aeiou' else 'a'} {wanted}, got {got}"


def _choice_reason(error: Any) -> str:
    """``must be one of "a", "b", got "c"`` (``enum``) or ``must be "a", got "c"`` (``const``)."""
    keyword, value, expected = error.validator, error.instance, error.validator_value
    allowed = ", ".join(_short(v) for v in (expected if keyword == "enum" else [expected]))
    return f"must be {'one of ' if keyword == 'enum' else ''}{allowed}, got {_short(value)}"


def check_against_schema(document: Any, problem: Problem, file: str = "<memory>") -> None:
    """Refuse an instance document that breaks ``problem``'s instance schema.

    Raises
    ------
    InvalidInstanceError
        Naming ``file`` and the JSON path (``data.tasks[3].memory``).
    """
    fast, full = _validators(problem)
    if fast is not None:
        try:
            fast(document)
            return
        except Exception:  # refused (or a value fastjsonschema cannot handle): jsonschema says why
            pass
    import jsonschema

    error = jsonschema.exceptions.best_match(full.iter_errors(document))
    if error is None:
        return
    field_path, reason = _schema_error(error)
    raise InvalidInstanceError(field_path, reason, file)
