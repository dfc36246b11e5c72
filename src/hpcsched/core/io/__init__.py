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

The modules, by role: `output` (atomic or written-through outputs, ``-``),
`schema` (the instance JSON Schema and the check against it), `instances`
(JSON reading, instance documents and files), `solutions` (solution files).
"""

from .instances import (
    STDIN_NAME,
    data_sha256,
    dumps,
    file_sha256,
    instance_document,
    instance_from_document,
    instance_sha256,
    is_instance_document,
    load_json,
    read_instance,
    write_instance,
)
from .output import STDIO, atomic_output, atomic_write_bytes, atomic_write_text, check_output_path, is_stdio
from .schema import (
    FORMAT_VERSION,
    LARGEST_DOUBLE,
    TIME_UNITS,
    _validators,
    as_draft7,
    check_against_schema,
    instance_schema,
    json_path,
    with_number_ranges,
)
from .solutions import claim_violations, read_solution, read_solution_file, solution_document, write_solution

__all__ = [
    "FORMAT_VERSION",
    "LARGEST_DOUBLE",
    "STDIN_NAME",
    "STDIO",
    "TIME_UNITS",
    "_validators",
    "as_draft7",
    "atomic_output",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_against_schema",
    "check_output_path",
    "claim_violations",
    "data_sha256",
    "dumps",
    "file_sha256",
    "instance_document",
    "instance_from_document",
    "instance_schema",
    "instance_sha256",
    "is_instance_document",
    "is_stdio",
    "json_path",
    "load_json",
    "read_instance",
    "read_solution",
    "read_solution_file",
    "solution_document",
    "with_number_ranges",
    "write_instance",
    "write_solution",
]
