"""Reading and writing instance files (see `hpcsched.core.io` for the format).

The sha256 of an instance is that of the canonical JSON of its ``data``
section (sorted keys, no spaces), so a solution can be matched to the data it
was computed on whatever the formatting of the file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import FormatError, InvalidInstanceError, NotAnInstanceError
from ..registry import Problem, get_problem, problem_of
from .output import atomic_output, atomic_write_bytes, atomic_write_text, is_stdio
from .schema import FORMAT_VERSION, TIME_UNITS, check_against_schema, json_path


def data_sha256(data: Any) -> str:
    """sha256 of the canonical JSON of ``data``."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes (for the provenance of imported traces)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class _NotJsonNumber(ValueError):
    """A NaN or Infinity in a JSON file; the message starts with its path."""


class _Constant(float):
    """NaN, Infinity or -Infinity as read, kept in place so its JSON path can be named (`_loads`)."""

    def __new__(cls, name: str) -> _Constant:
        made = super().__new__(cls, float(name.replace("Infinity", "inf")))
        made.name = name
        return made

    name: str


def _first_constant(value: Any, path: list) -> tuple[list, str] | None:
    """The path and spelling of the first `_Constant` in a parsed document (depth first, iteratively)."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, _Constant):
            return where, item.name
        if isinstance(item, dict):
            stack.extend((v, [*where, k]) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, [*where, k]) for k, v in reversed(list(enumerate(item))))
    return None


def _parse(load: Any, source: Any) -> Any:
    """``load(source)`` (json.load or json.loads); a NaN or Infinity, which JSON does not allow, is refused with
    its path (``data.fw[2]: NaN is not a number JSON allows``)."""
    seen: list[str] = []

    def mark(name: str) -> _Constant:
        seen.append(name)
        return _Constant(name)

    try:
        document = load(source, parse_constant=mark)
    except RecursionError:  # Python's decoder recurses per level: "[" * 100000 exhausts the stack
        raise ValueError("arrays or objects nested too deeply (JSON files are read up to about 900 levels)") from None
    if seen:
        found = _first_constant(document, [])
        where = json_path(found[0]) if found is not None and found[0] else "(top level)"
        raise _NotJsonNumber(f"{where}: {seen[0]} is not a number JSON allows")
    return document


def load_json(path: str | os.PathLike) -> Any:
    """Parse a JSON (or .json.gz) file, ``-`` being standard input; FormatError
    with file and line on failure."""
    if is_stdio(path):
        try:
            return _parse(json.loads, _read_stdin())
        except json.JSONDecodeError as error:
            raise FormatError(
                f"{STDIN_NAME}: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}"
            ) from None
        except _NotJsonNumber as error:
            raise FormatError(f"{STDIN_NAME}: {error}") from None
        except ValueError as error:
            raise FormatError(f"{STDIN_NAME}: cannot read as JSON: {error}") from None
    path = Path(path)
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            return _parse(json.load, handle)
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise FormatError(f"{path}: is a folder, not a file") from None
    except json.JSONDecodeError as error:
        raise FormatError(f"{path}: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except _NotJsonNumber as error:
        raise FormatError(f"{path}: {error}") from None
    except (ValueError, UnicodeDecodeError, OSError, EOFError) as error:
        raise FormatError(f"{path}: cannot read as JSON: {error}") from None


#: How standard input is named in messages.
STDIN_NAME = "<stdin>"


def _read_stdin() -> str:
    """All of standard input as text (gzip recognized by its magic bytes)."""
    stream = sys.stdin
    buffer = getattr(stream, "buffer", None)
    raw = buffer.read() if buffer is not None else stream.read()
    if isinstance(raw, bytes):
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FormatError(f"{STDIN_NAME}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    return raw


def required_field(document: Any, key: str, kind: type | tuple[type, ...], file: str) -> Any:
    """``document[key]``, refused (`InvalidInstanceError` naming ``file`` and ``key``) when
    ``document`` is not an object, ``key`` is missing or its value is not of ``kind``."""
    if not isinstance(document, dict):
        raise InvalidInstanceError("(top level)", "must be a JSON object", file)
    if key not in document:
        raise InvalidInstanceError(key, "is missing", file)
    value = document[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidInstanceError(key, f"must be {names}, got {type(value).__name__}", file)
    return value


def is_instance_document(document: Any) -> bool:
    """Whether a parsed JSON document is meant as an instance file at all.

    An instance file is an object with a ``data`` section, or at least a
    ``problem`` name while not being a solution file (which has ``problem``
    and ``solution``). A ``solved.json`` table, a list or a solution file is
    not; an instance file with a broken field is (and is refused by name).
    """
    if not isinstance(document, dict):
        return False
    return "data" in document or ("problem" in document and "solution" not in document)


def instance_from_document(document: Any, file: str = "<memory>") -> Any:
    """Build the Instance described by a parsed instance document.

    Raises NotAnInstanceError for a document that is not meant as an instance
    (see `is_instance_document`), InvalidInstanceError for a broken field.
    """
    if not is_instance_document(document):
        what = (
            "a solution file"
            if isinstance(document, dict) and "solution" in document
            else (
                'a JSON object without "problem" and "data"'
                if isinstance(document, dict)
                else f"a JSON {type(document).__name__}"
            )
        )
        raise NotAnInstanceError("(top level)", f"not an instance file: {what}", file)
    problem_name = required_field(document, "problem", str, file)
    try:
        problem = get_problem(problem_name)
    except KeyError as error:
        raise InvalidInstanceError("problem", str(error), file) from None
    if document.get("format", FORMAT_VERSION) != FORMAT_VERSION:
        raise InvalidInstanceError("format", f"must be {FORMAT_VERSION}, got {document.get('format')!r}", file)
    check_against_schema(document, problem, file)
    data = required_field(document, "data", dict, file)
    name = document.get("name", "stdin" if file == STDIN_NAME else Path(file).stem)
    if not isinstance(name, str):
        raise InvalidInstanceError("name", "must be a string", file)
    source = document.get("source", {})
    if not isinstance(source, dict):
        raise InvalidInstanceError("source", "must be an object", file)
    time_unit = document.get("time_unit")
    if time_unit is not None and time_unit not in TIME_UNITS:
        raise InvalidInstanceError("time_unit", f"must be one of {', '.join(TIME_UNITS)}, got {time_unit!r}", file)
    try:
        return problem.instance_type.from_data(data, name=name, time_unit=time_unit, source=source)
    except InvalidInstanceError as error:
        raise error.in_file(file) from None


def _npz_problem(path: Path) -> Problem:
    """The problem named inside a .npz instance file."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as archive:
            if "problem" not in archive.files:
                raise InvalidInstanceError("problem", "is missing", str(path))
            name = str(archive["problem"])
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError) as error:
        raise FormatError(f"{path}: cannot read as .npz: {error}") from None
    try:
        return get_problem(name)
    except KeyError as error:
        raise InvalidInstanceError("problem", str(error), str(path)) from None


def read_instance(path: str | os.PathLike) -> Any:
    """Read an instance file into its Instance.

    ``.json`` and ``.json.gz`` are the reference format; other suffixes (such
    as ``.npz`` for very large instances) go to the problem's own reader.
    """
    if is_stdio(path):
        return instance_from_document(load_json(path), STDIN_NAME)
    path = Path(path)
    if path.suffix == ".npz":
        problem = _npz_problem(path)
        if ".npz" not in problem.file_formats:
            raise FormatError(f"{path}: problem '{problem.name}' has no .npz format; use JSON")
        read, _ = problem.file_formats[".npz"]
        return read(path)
    return instance_from_document(load_json(path), str(path))


def instance_document(instance: Any) -> dict[str, Any]:
    """The JSON document of ``instance`` (see module docstring)."""
    problem = problem_of(instance)
    document: dict[str, Any] = {"problem": problem.name, "format": FORMAT_VERSION, "name": instance.name}
    time_unit = getattr(instance, "time_unit", None)
    if time_unit is not None:
        document["time_unit"] = time_unit
    document["source"] = dict(instance.source)
    document["data"] = instance.to_data()
    return document


def dumps(document: Any) -> str:
    """JSON text as hpcsched writes it (indented, NaN refused)."""
    return json.dumps(document, indent=1, allow_nan=False) + "\n"


def write_instance(instance: Any, path: str | os.PathLike) -> None:
    """Write ``instance`` to ``path`` atomically (gzip if the name ends in .gz;
    a problem's own format for other registered suffixes such as .npz)."""
    suffix = Path(path).suffix
    formats = problem_of(instance).file_formats
    if suffix in formats:
        _, write = formats[suffix]
        with atomic_output(path) as temporary:
            write(instance, temporary)
        return
    text = dumps(instance_document(instance))
    if str(path).endswith(".gz"):
        atomic_write_bytes(path, gzip.compress(text.encode(), mtime=0))
    else:
        atomic_write_text(path, text)


def instance_sha256(instance: Any) -> str:
    """sha256 of the instance's data section (see `data_sha256`)."""
    return data_sha256(instance.to_data())
