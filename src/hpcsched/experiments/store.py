"""Results files: append one finished run at a time, never half a row.

CSV (the default). Each row is formatted in memory and appended with a single
``write`` on a file opened in append mode, then flushed and ``fsync``-ed, so
a row is on disk before the next run is reported. Text fields never contain
line breaks (`one_line`), so one row is one physical line. If the process is
killed in the middle of that write, what is left is a trailing line without
its newline: opening the file again truncates it (that run was not recorded
and will be run again), so resuming loses no finished row and duplicates none.

Parquet (a results path ending in ``.parquet``; needs pyarrow). Parquet files
cannot be appended to, so the results "file" is a folder (a Parquet dataset)
holding one small part file per row, each written to a temporary name and
renamed: a part is either complete or absent. ``pyarrow.parquet.read_table``
and pandas read the folder as one table.
"""

from __future__ import annotations

import csv
import io
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import HpcschedError
from .runs import COLUMNS, row_key

_NUMERIC = {
    "size": int,
    "seed": int,
    "time_limit": float,
    "objective": float,
    "bound": float,
    "gap": float,
    "runtime_s": float,
}


class ResultsFileError(HpcschedError):
    """A results file that cannot be used (wrong columns, unreadable)."""


def _parse(row: Mapping[str, Any], file: str) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    for column in COLUMNS:
        value = row.get(column)
        if column in _NUMERIC:
            if value is None or value == "" or (isinstance(value, float) and value != value):
                value = None
            else:
                try:
                    value = _NUMERIC[column](float(value)) if _NUMERIC[column] is int else float(value)
                except ValueError:
                    raise ResultsFileError(f"{file}: column {column}: {value!r} is not a number") from None
        elif value is None:
            value = ""
        parsed[column] = value
    return parsed


def _format(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    # One row, one physical line: resumption cuts at the last newline.
    return str(value).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


class CsvStore:
    """A CSV results file (see module docstring)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def _repair(self) -> None:
        """Create the file with its header, or cut a trailing partial row."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists() or self.path.stat().st_size == 0:
            self._append_text(",".join(COLUMNS) + "\n")
            return
        with open(self.path, "rb+") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 1))
            if handle.read(1) == b"\n":
                return
            # Find the last complete line and cut everything after it.
            position = size
            block = 1 << 16
            cut = 0
            while position > 0:
                start = max(0, position - block)
                handle.seek(start)
                chunk = handle.read(position - start)
                index = chunk.rfind(b"\n")
                if index >= 0:
                    cut = start + index + 1
                    break
                position = start
            handle.truncate(cut)
            handle.flush()
            os.fsync(handle.fileno())
        if cut == 0:
            self._append_text(",".join(COLUMNS) + "\n")

    def _append_text(self, text: str) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            payload = text.encode("utf-8")
            written = os.write(fd, payload)
            while written < len(payload):  # a regular file takes it in one go; be safe
                written += os.write(fd, payload[written:])
            os.fsync(fd)
        finally:
            os.close(fd)

    def open(self) -> CsvStore:
        """Prepare the file for appending (see `_repair`); check its header."""
        self._repair()
        with open(self.path, newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), None)
        if tuple(header or ()) != COLUMNS:
            raise ResultsFileError(
                f"{self.path}: not an hpcsched results file (columns {header}; expected {list(COLUMNS)})"
            )
        return self

    def rows(self) -> list[dict[str, Any]]:
        """Every complete row, parsed (numbers as numbers, missing as None)."""
        if not self.path.exists():
            return []
        with open(self.path, "rb") as handle:
            content = handle.read()
        if not content.endswith(b"\n"):
            content = content[: content.rfind(b"\n") + 1]
        reader = csv.DictReader(io.StringIO(content.decode("utf-8"), newline=""))
        if reader.fieldnames is not None and tuple(reader.fieldnames) != COLUMNS:
            raise ResultsFileError(f"{self.path}: not an hpcsched results file (columns {reader.fieldnames})")
        return [_parse(row, str(self.path)) for row in reader]

    def append(self, row: Mapping[str, Any]) -> None:
        """Append one row durably (single write, fsync)."""
        self.append_many([row])

    def append_many(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Append rows that finished together in one write and one fsync
        (a group commit: fsync costs milliseconds, trivial runs less)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        for row in rows:
            writer.writerow([_format(row.get(column)) for column in COLUMNS])
        self._append_text(buffer.getvalue())


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ResultsFileError(
            "Parquet results need pyarrow: pip install pyarrow (or use a .csv results path)"
        ) from None
    return pyarrow


class ParquetStore:
    """A Parquet dataset folder, one part file per row (see module docstring)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._pa = _pyarrow()

    def open(self) -> ParquetStore:
        if self.path.exists() and not self.path.is_dir():
            raise ResultsFileError(f"{self.path}: a Parquet results path must be a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        for leftover in self.path.glob(".*.tmp"):  # a write that was killed
            leftover.unlink(missing_ok=True)
        return self

    def _schema(self):
        pa = self._pa
        kinds = {
            "size": pa.int64(),
            "seed": pa.int64(),
            "time_limit": pa.float64(),
            "objective": pa.float64(),
            "bound": pa.float64(),
            "gap": pa.float64(),
            "runtime_s": pa.float64(),
        }
        return pa.schema([(column, kinds.get(column, pa.string())) for column in COLUMNS])

    def rows(self) -> list[dict[str, Any]]:
        if not self.path.is_dir():
            return []
        rows: list[dict[str, Any]] = []
        for part in sorted(self.path.glob("part-*.parquet")):
            table = self._pa.parquet.read_table(part)
            rows.extend(_parse(row, str(part)) for row in table.to_pylist())
        return rows

    def append(self, row: Mapping[str, Any]) -> None:
        pa = self._pa
        record = {column: row.get(column) for column in COLUMNS}
        for column in ("seed", "size"):
            value = record[column]
            if value is not None:
                record[column] = int(value)
        table = pa.Table.from_pylist([record], schema=self._schema())
        name = f"part-{uuid.uuid4().hex}.parquet"
        temporary = self.path / f".{name}.tmp"
        pa.parquet.write_table(table, temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, self.path / name)

    def append_many(self, rows: Sequence[Mapping[str, Any]]) -> None:
        for row in rows:
            self.append(row)


def open_store(path: str | os.PathLike) -> CsvStore | ParquetStore:
    """The store for ``path``: Parquet when it ends in ``.parquet``, else CSV.

    Raises ResultsFileError naming ``path`` when it cannot be used (a folder
    where a CSV file is expected, a folder that cannot be created or written).
    """
    try:
        if str(path).endswith(".parquet"):
            return ParquetStore(path).open()
        if Path(path).is_dir():
            raise ResultsFileError(f"{path}: is a folder; a CSV results path must be a file")
        return CsvStore(path).open()
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot use as a results file: {error.strerror or error}") from None


def read_rows(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Every complete row of a results file (CSV or Parquet folder)."""
    path = Path(path)
    if not path.exists():
        raise ResultsFileError(f"{path}: no such results file")
    parquet = str(path).endswith(".parquet")
    if not parquet and path.is_dir():
        raise ResultsFileError(f"{path}: is a folder, not a CSV results file")
    store = ParquetStore(path) if parquet else CsvStore(path)
    try:
        return store.rows()
    except (UnicodeDecodeError, csv.Error) as error:
        raise ResultsFileError(f"{path}: not a results file: {error}") from None
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read: {error.strerror or error}") from None


def recorded_keys(rows: Iterable[Mapping[str, Any]]) -> set[tuple]:
    """The run keys present in ``rows``."""
    return {row_key(row) for row in rows}


def write_csv(
    rows: Iterable[Mapping[str, Any]], path: str | os.PathLike, columns: Iterator[str] | tuple = COLUMNS
) -> None:
    """Write ``rows`` as a whole CSV file, atomically (temporary file + rename)."""
    from ..core.io import atomic_write_text

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = tuple(columns)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_format(row.get(column)) for column in columns])
    atomic_write_text(path, buffer.getvalue())
