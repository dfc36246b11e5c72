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
import tempfile
from pathlib import Path
from typing import Any

from .errors import FormatError, InvalidInstanceError, InvalidSolutionError, NotAnInstanceError, OutputPathError
from .registry import Problem, get_problem, problem_of
from .result import Result, Status

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
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    atomic_write_bytes(path, text.encode())


def atomic_write_bytes(path: str | os.PathLike, payload: bytes) -> None:
    """Write ``payload`` to ``path`` through a temporary file and a rename."""
    target = Path(path)
    with _naming(target):
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

    def __exit__(self, kind, value, traceback) -> bool:
        if kind is not None and issubclass(kind, OSError) and not isinstance(value, OutputPathError):
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
    target = Path(path)
    where = f"{option} {target}" if option else str(target)
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
    """Parse a JSON (or .json.gz) file; FormatError with file and line on failure."""
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


def instance_from_document(document: Any, file: str = "<memory>") -> Any:
    """Build the Instance described by a parsed instance document.

    Raises NotAnInstanceError for a document that is not meant as an instance
    (see `is_instance_document`), InvalidInstanceError for a broken field.
    """
    if not is_instance_document(document):
        what = "a solution file" if isinstance(document, dict) and "solution" in document else (
            "a JSON object without \"problem\" and \"data\"" if isinstance(document, dict) else f"a JSON {type(document).__name__}")
        raise NotAnInstanceError("(top level)", f"not an instance file: {what}", file)
    problem_name = _require(document, "problem", str, file)
    try:
        problem = get_problem(problem_name)
    except KeyError as error:
        raise InvalidInstanceError("problem", str(error), file) from None
    if document.get("format", FORMAT_VERSION) != FORMAT_VERSION:
        raise InvalidInstanceError("format", f"must be {FORMAT_VERSION}, got {document.get('format')!r}", file)
    data = _require(document, "data", dict, file)
    name = document.get("name", Path(file).stem)
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
    file = str(path)
    document = load_json(path)
    problem: Problem = problem_of(instance)
    try:
        declared = _require(document, "problem", str, file)
        if declared != problem.name:
            raise InvalidSolutionError("problem", f"is '{declared}' but the instance is '{problem.name}'", file)
        reference = document.get("instance")
        if isinstance(reference, dict) and "sha256" in reference:
            if reference["sha256"] != instance_sha256(instance):
                raise InvalidSolutionError(
                    "instance.sha256", f"does not match the instance '{instance.name}' (computed on other data)", file
                )
        if document.get("solution", {}) is None:
            status = document.get("status", "without a solution")
            method = document.get("method")
            by = f" of {method}" if isinstance(method, str) else ""
            raise InvalidSolutionError("solution", f"is null: the solution file holds no solution (the solve{by} ended {status})", file)
        payload = _require(document, "solution", dict, file)
    except InvalidInstanceError as error:
        if isinstance(error, InvalidSolutionError):
            raise
        raise InvalidSolutionError(error.field, error.reason, file) from None
    try:
        return problem.solution_type.from_data(payload, instance=instance)
    except InvalidInstanceError as error:
        raise InvalidSolutionError(f"solution.{error.field}", error.reason, file) from None


def result_status(document: dict[str, Any]) -> Status:
    """The Status recorded in a solution document."""
    return Status(document["status"])


class atomic_output:
    """Context manager giving a temporary path that replaces ``path`` on success.

    For writers that insist on a file name (matplotlib's ``savefig``): the
    temporary file keeps the suffix so the format is inferred the same way.
    """

    def __init__(self, path: str | os.PathLike):
        self.target = Path(path)

    def __enter__(self) -> Path:
        with _naming(self.target):
            _make_parent(self.target)
            handle, temporary = tempfile.mkstemp(
                dir=self.target.parent, prefix=f".{self.target.stem}.", suffix=self.target.suffix
            )
        os.close(handle)
        self.temporary = Path(temporary)
        return self.temporary

    def __exit__(self, kind, value, traceback) -> None:
        with _naming(self.target):
            if kind is None and self.temporary.exists() and self.temporary.stat().st_size > 0:
                os.chmod(self.temporary, _default_mode())
                os.replace(self.temporary, self.target)
                return
            self.temporary.unlink(missing_ok=True)
        if isinstance(value, OSError) and not isinstance(value, OutputPathError):
            # the writer failed on the temporary file: say so of the user's path
            raise OutputPathError(f"{self.target}: cannot write: {value.strerror or value}") from None
