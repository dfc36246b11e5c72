"""Writing output files: atomically when they are regular files, through otherwise.

A regular file (or a new one) is written to a temporary file in the same
folder and renamed over the target, so no file is ever half-written. A
symlink's target, a FIFO or a device (``/dev/stdout``) is written through,
never replaced, and ``-`` is standard output.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Literal

from ..errors import OutputPathError


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
