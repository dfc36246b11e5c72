"""Compressed ``.npz`` files for very large instances (10^6-10^7 tasks); the JSON form stays the reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import FormatError, InvalidInstanceError
from .instance import Instance

#: Keys `save_npz` writes (`load_npz` refuses others, as `from_data` does).
NPZ_KEYS = (
    "format",
    "problem",
    "name",
    "time_unit",
    "source",
    "servers",
    "objective",
    "remote_cost",
    "durations",
    "replicas",
    "replica_offsets",
    "replica_servers",
    "task_names",
)


def save_npz(instance: Instance, path: str | Path) -> None:
    """Store ``instance`` in a compressed .npz file (for 10^6-10^7 tasks).

    Keys: ``servers, objective, remote_cost, durations, replica_offsets,
    replica_servers`` (and ``replicas`` as an n x r array when every task has r
    replicas), plus ``name``, ``time_unit`` and ``source`` (JSON text).
    """
    arrays: dict[str, Any] = {
        "format": np.int64(1),
        "problem": np.str_("locality"),
        "name": np.str_(instance.name),
        "time_unit": np.str_(instance.time_unit or ""),
        "source": np.str_(json.dumps(dict(instance.source))),
        "servers": np.int64(instance.servers),
        "objective": np.str_(instance.objective),
        "remote_cost": np.int64(instance.remote_cost),
        "durations": instance.durations,
    }
    width = instance.replication
    if width is not None:
        arrays["replicas"] = instance.replica_servers.reshape(-1, width)
    else:
        arrays["replica_offsets"] = instance.replica_offsets
        arrays["replica_servers"] = instance.replica_servers
    if instance.task_names is not None:
        arrays["task_names"] = np.asarray(instance.task_names, dtype=np.str_)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def load_npz(path: str | Path) -> Instance:
    """Read an instance written by `save_npz` (all checks of `Instance` apply)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            files = set(archive.files)
            unknown = sorted(files - set(NPZ_KEYS))
            if unknown:
                raise InvalidInstanceError(unknown[0], "is not a key of a locality .npz file", str(path))
            for key in ("servers", "durations"):
                if key not in files:
                    raise InvalidInstanceError(key, "is missing", str(path))
            if "replicas" in files:
                replicas = archive["replicas"]
                if replicas.ndim != 2:
                    raise InvalidInstanceError("replicas", "must be an n x r array", str(path))
                offsets = np.arange(replicas.shape[0] + 1, dtype=np.int64) * replicas.shape[1]
                flat = replicas.reshape(-1)
            elif {"replica_offsets", "replica_servers"} <= files:
                offsets, flat = archive["replica_offsets"], archive["replica_servers"]
            else:
                raise InvalidInstanceError("replicas", "is missing", str(path))
            time_unit = str(archive["time_unit"]) if "time_unit" in files else ""
            try:
                return Instance(
                    name=str(archive["name"]) if "name" in files else Path(path).stem,
                    servers=int(archive["servers"]),
                    durations=archive["durations"],
                    replica_offsets=offsets,
                    replica_servers=flat,
                    objective=str(archive["objective"]) if "objective" in files else "makespan",
                    remote_cost=int(archive["remote_cost"]) if "remote_cost" in files else 0,
                    task_names=tuple(archive["task_names"].tolist()) if "task_names" in files else None,
                    time_unit=time_unit or None,
                    source=json.loads(str(archive["source"])) if "source" in files else {},
                )
            except InvalidInstanceError as error:
                raise error.in_file(str(path)) from None
    except (OSError, ValueError, EOFError) as error:
        if isinstance(error, InvalidInstanceError):
            raise
        raise FormatError(f"{path}: cannot read as .npz: {error}") from None
