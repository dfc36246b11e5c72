"""Reading and writing instance and solution files.

Instance file::

    {"problem": "transfers", "format": 1, "name": ..., "time_unit": ...,
     "source": {...provenance...}, "data": {...}}

Solution file::

    {"problem", "format", "instance": {"name", "sha256"}, "method", "status",
     "objective", "bound", "runtime_s", "solver", "solution": {...}}

The sha256 is that of the canonical JSON of the ``data`` section (sorted keys,
no spaces), so a solution can be matched to the data it was computed on
whatever the formatting of the file. Every write goes to a temporary file in
the same folder first and is then renamed, so no file is ever half-written.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .errors import FormatError, InvalidInstanceError, InvalidSolutionError, NotAnInstanceError, OutputPathError
from .registry import Problem, get_problem, problem_of
from .result import Result

FORMAT_VERSION = 1
TIME_UNITS = ("ns", "us", "ms", "s")


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


def _default_mode() -> int:
    """Permissions of a new file under the current umask (mkstemp would give 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` (see `atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode())


#: The path that means standard input (for inputs) or standard output (for outputs).
STDIO = "-"


def is_stdio(path: str | os.PathLike | None) -> bool:
    """Whether ``path`` is ``-``: standard input or output."""
    return path is not None and os.fspath(path) == STDIO


def _write_to_stdout(payload: bytes) -> None:
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    stream.flush()
    if buffer is not None:
        buffer.write(payload)
        buffer.flush()
    else:  # a text-only stream (some test harnesses)
        stream.write(payload.decode())
        stream.flush()


def _output_target(path: str | os.PathLike) -> tuple[Path, bool]:
    """Where an output really goes, and whether it is written through.

    A regular file (or a new one) is replaced atomically. A symlink is
    followed: its target gets the content (atomically when the target is a
    regular file or does not exist yet) and the link stays a link. Anything
    else that exists -- a FIFO, a character device such as ``/dev/stdout``
    or ``/dev/null`` -- is opened and written through, never replaced.
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.exists() and not target.is_dir() and not target.is_file():
        return target, True
    return target, False


def atomic_write_bytes(path: str | os.PathLike, payload: bytes) -> None:
    """Write ``payload`` to ``path``: ``-`` is standard output; a regular file
    is written through a temporary file and a rename (never half-written); a
    symlink's target, a FIFO or a device is written through (see `_output_target`)."""
    if is_stdio(path):
        _write_to_stdout(payload)
        return
    target, through = _output_target(path)
    with _naming(Path(path)):
        if through:
            with open(target, "wb") as out:
                out.write(payload)
            return
        _make_parent(target)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(payload)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, _default_mode())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _make_parent(target: Path) -> None:
    """Create the folder of ``target``; a file in the way is named as such."""
    if target.is_dir():
        raise OutputPathError(f"{target}: is a folder, not a file")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise OutputPathError(f"{target}: cannot create its folder {target.parent}: a file is in the way") from None


class _naming:
    """Re-raise an OSError met while writing ``target`` as an `OutputPathError`
    naming ``target``: the temporary file it goes through means nothing to the user."""

    def __init__(self, target: Path):
        self.target = target

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if isinstance(value, OSError) and not isinstance(value, OutputPathError):
            reason = value.strerror or str(value)
            raise OutputPathError(f"{self.target}: cannot write: {reason}") from None
        return False


def check_output_path(path: str | os.PathLike, option: str | None = None) -> None:
    """Refuse, before any work, an output path that cannot be written.

    The path must not be a folder, and the nearest existing folder above it
    must be a folder in which a file can be created (probed with a real
    temporary file: permission bits say nothing on ``/proc`` or to root).
    Nothing is created except that probe, which is removed at once.

    Raises
    ------
    OutputPathError
        Naming ``option`` (e.g. ``--out``) when given, and the user's path.
    """
    if is_stdio(path):
        return
    where = f"{option} {path}" if option else str(path)
    target, through = _output_target(path)
    if through:
        if not os.access(target, os.W_OK):
            raise OutputPathError(f"{where}: cannot write {target}: permission denied")
        return
    if target.is_dir():
        raise OutputPathError(f"{where}: is a folder, not a file")
    ancestor = target.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputPathError(f"{where}: {ancestor} is not a folder")
    try:
        handle, probe = tempfile.mkstemp(dir=ancestor, prefix=".hpcsched-probe.")
    except OSError as error:
        raise OutputPathError(f"{where}: cannot write in {ancestor}: {error.strerror or error}") from None
    os.close(handle)
    os.unlink(probe)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def load_json(path: str | os.PathLike) -> Any:
    """Parse a JSON (or .json.gz) file, ``-`` being standard input; FormatError
    with file and line on failure."""
    if is_stdio(path):
        try:
            return json.loads(_read_stdin(), parse_constant=_reject_constant)
        except json.JSONDecodeError as error:
            raise FormatError(
                f"{STDIN_NAME}: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}"
            ) from None
        except ValueError as error:
            raise FormatError(f"{STDIN_NAME}: cannot read as JSON: {error}") from None
    path = Path(path)
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            return json.load(handle, parse_constant=_reject_constant)
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise FormatError(f"{path}: is a folder, not a file") from None
    except json.JSONDecodeError as error:
        raise FormatError(f"{path}: malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
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


def _require(document: Any, key: str, kind: type | tuple[type, ...], file: str) -> Any:
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
    from .fields import LARGEST_INTEGER

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
    got = f"{_JSON_TYPES.get(type(value), type(value).__name__)} {_short(value)}"
    wanted = " or ".join(expected) if isinstance(expected, list) else expected
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
    problem_name = _require(document, "problem", str, file)
    try:
        problem = get_problem(problem_name)
    except KeyError as error:
        raise InvalidInstanceError("problem", str(error), file) from None
    if document.get("format", FORMAT_VERSION) != FORMAT_VERSION:
        raise InvalidInstanceError("format", f"must be {FORMAT_VERSION}, got {document.get('format')!r}", file)
    check_against_schema(document, problem, file)
    data = _require(document, "data", dict, file)
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


def _finite_or_none(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def solution_document(instance: Any, result: Result) -> dict[str, Any]:
    """The JSON document of ``result`` computed on ``instance``."""
    return {
        "problem": result.problem,
        "format": FORMAT_VERSION,
        "instance": {"name": instance.name, "sha256": instance_sha256(instance)},
        "method": result.method,
        "status": result.status.value,
        "objective": _finite_or_none(result.objective),
        "bound": _finite_or_none(result.bound),
        "runtime_s": result.runtime_s,
        "solver": result.solver,
        "notes": list(result.notes),
        "solution": None if result.solution is None else result.solution.to_data(),
    }


def write_solution(instance: Any, result: Result, path: str | os.PathLike) -> None:
    """Write ``result`` as a solution file, atomically."""
    atomic_write_text(path, dumps(solution_document(instance, result)))


def read_solution(path: str | os.PathLike, instance: Any) -> Any:
    """Read a solution file written for ``instance`` into its Solution.

    Raises InvalidSolutionError when the file is for another problem or
    another instance (sha256 mismatch), or when its ``solution`` is malformed.
    """
    file = STDIN_NAME if is_stdio(path) else str(path)
    document = load_json(path)
    problem: Problem = problem_of(instance)
    try:
        declared = _require(document, "problem", str, file)
        if declared != problem.name:
            raise InvalidSolutionError("problem", f"is '{declared}' but the instance is '{problem.name}'", file)
        reference = document.get("instance")
        if isinstance(reference, dict) and reference.get("sha256", instance_sha256(instance)) != instance_sha256(
            instance
        ):
            raise InvalidSolutionError(
                "instance.sha256", f"does not match the instance '{instance.name}' (computed on other data)", file
            )
        if document.get("solution", {}) is None:
            status = document.get("status", "without a solution")
            method = document.get("method")
            by = f" of {method}" if isinstance(method, str) else ""
            raise InvalidSolutionError(
                "solution", f"is null: the solution file holds no solution (the solve{by} ended {status})", file
            )
        payload = _require(document, "solution", dict, file)
    except InvalidInstanceError as error:
        if isinstance(error, InvalidSolutionError):
            raise
        raise InvalidSolutionError(error.field, error.reason, file) from None
    try:
        return problem.solution_type.from_data(payload, instance=instance)
    except InvalidInstanceError as error:
        raise InvalidSolutionError(f"solution.{error.field}", error.reason, file) from None


class atomic_output:
    """Context manager giving a temporary path whose content goes to ``path`` on success.

    For writers that insist on a file name (matplotlib's ``savefig``): the
    temporary file keeps the suffix so the format is inferred the same way.
    A regular file is replaced by a rename; ``-`` (standard output), a
    symlink's target, a FIFO or a device get the bytes written through (see
    `atomic_write_bytes`).
    """

    def __init__(self, path: str | os.PathLike):
        self.path = path
        self.target = Path(path)

    def __enter__(self) -> Path:
        if is_stdio(self.path):
            self.real, self.through = self.target, True
        else:
            self.real, self.through = _output_target(self.path)
        with _naming(self.target):
            if self.through:  # the folder of a device or FIFO may not be writable: use the temp folder
                folder, suffix = None, self.real.suffix or self.target.suffix
            else:
                _make_parent(self.real)
                folder, suffix = self.real.parent, self.real.suffix
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{self.real.stem}.", suffix=suffix)
        os.close(handle)
        self.temporary = Path(temporary)
        return self.temporary

    def __exit__(self, kind, value, traceback) -> None:
        with _naming(self.target):
            written = kind is None and self.temporary.exists() and self.temporary.stat().st_size > 0
            if written and self.through:
                try:
                    atomic_write_bytes(self.path, self.temporary.read_bytes())
                finally:
                    self.temporary.unlink(missing_ok=True)
                return
            if written:
                os.chmod(self.temporary, _default_mode())
                os.replace(self.temporary, self.real)
                return
            self.temporary.unlink(missing_ok=True)
        if isinstance(value, OSError) and not isinstance(value, OutputPathError):
            # the writer failed on the temporary file: say so of the user's path
            raise OutputPathError(f"{self.target}: cannot write: {value.strerror or value}") from None
