"""Importers of real task graphs: the hetero_swf task files and DNN graphs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.errors import FormatError, InvalidInstanceError
from ...core.io import file_sha256
from ..model import Instance
from .common import checked_int


def import_swf(path: str | Path, *, cpus: int = 10, gpus: int = 4, comm: int = 0) -> Instance:
    """The task graph of one hetero_swf file on ``cpus`` CPUs and ``gpus`` GPUs (see the module docstring).

    ``comm``: a uniform c_uv (us) put on every edge (default 0: the traces have none).
    """
    path = Path(path)
    cpus = checked_int(cpus, "options.cpus", 0)
    gpus = checked_int(gpus, "options.gpus", 0)
    comm = checked_int(comm, "options.comm", 0)
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    tasks: list[dict[str, Any]] = []
    raw_edges: list[tuple[str, str, int]] = []
    ids: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 3:
            raise FormatError(f"{path}:{number}: expected 'id cpu_time gpu_time [preds]', got {line!r}")
        try:
            times = [float(fields[1]), float(fields[2])]
        except ValueError:
            raise FormatError(f"{path}:{number}: times must be numbers, got {fields[1]!r} {fields[2]!r}") from None
        converted: list[int | None] = []
        for value, label in zip(times, ("cpu", "gpu"), strict=True):
            if value == -1:
                converted.append(None)
            elif not (value >= 0 and value < 1e12):
                raise FormatError(f"{path}:{number}: {label} time must be >= 0 or -1, got {value}")
            else:
                converted.append(round(value * 1000))
        if fields[0] in ids:
            raise FormatError(f"{path}:{number}: duplicate task id {fields[0]!r}")
        ids[fields[0]] = len(tasks)
        tasks.append({"name": fields[0], "cpu": converted[0], "gpu": converted[1]})
        # The join lines of the forkJoin files split their predecessor list with a space
        # ("102 t t 2 3,4,...,101"): every field after the third is read as predecessors.
        for field in fields[3:]:
            raw_edges += [(pred, fields[0], number) for pred in field.split(",") if pred]
    if not tasks:
        raise FormatError(f"{path}: no task")
    edges = []
    for pred, succ, number in raw_edges:
        if pred not in ids:
            raise FormatError(f"{path}:{number}: predecessor {pred!r} of task {succ!r} is not a task of the file")
        edges.append([pred, succ, comm] if comm else [pred, succ])
    source = {
        "importer": "hetero_swf",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"cpus": cpus, "gpus": gpus, "comm": comm},
        "citation": "marcosamaris/heterogeneous-SWF; Amaris, Lucarelli, Mommessin, Trystram, CCPE 2019, e4647",
        "notes": [
            "times read as milliseconds (probable unit) and rounded to integer microseconds",
            "measured platform: 10 CPU cores, 4 Tesla K20 GPUs (StarPU/Chameleon)",
            "fields after the third are all predecessor lists (forkJoin join lines split theirs with a space)",
            "no communication costs in the trace"
            + (f"; c_uv = {comm} us put on every edge" if comm else " (c_uv = 0)"),
        ],
    }
    try:
        return Instance.from_data(
            {"cpus": cpus, "gpus": gpus, "tasks": tasks, "edges": edges}, name=path.stem, time_unit="us", source=source
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def import_dnn(
    path: str | Path, *, cpus: int | None = None, gpus: int | None = None, scale: int = 1000, comm: bool = True
) -> Instance:
    """A dnn_partitioning graph (msr-fiddle/dnn-partitioning, NeurIPS 2020) as the uniform-acceleration case.

    Nodes give ``cpuLatency`` and ``fpgaLatency`` (the accelerator, read as
    the GPU time); CPU time is a constant multiple of it in every file (10
    for the layer graphs, 23 for the operator graphs): Q|prec|Cmax with two
    speeds. Times and edge ``cost`` (the transfer time, charged here when
    the endpoints run on different types) are multiplied by ``scale`` and
    rounded to integers (the unit is not stated in the files); when the
    file's ratio is one integer r, the CPU time is set to exactly r x the
    rounded GPU time so that the acceleration stays uniform after rounding.
    Nodes with ``supportedOnFpga`` false get no GPU time. ``cpus`` and
    ``gpus`` default to the file's ``maxCPUs`` and ``maxFPGAs``. Memory
    (``size``, ``maxSizePerFPGA``) and colocation (``colorClass``) are not
    part of this problem and are dropped (the partition problem uses them).
    """
    path = Path(path)
    scale = checked_int(scale, "options.scale", 1)
    document = _read_dnn_document(path)
    cpus = checked_int(document.get("maxCPUs", 1) if cpus is None else cpus, "options.cpus", 0)
    gpus = checked_int(document.get("maxFPGAs", 1) if gpus is None else gpus, "options.gpus", 0)
    nodes = document["nodes"]
    if not isinstance(nodes, list) or not all(isinstance(n, dict) for n in nodes):
        raise FormatError(f"{path}: nodes must be a list of objects")
    ratio = _integer_ratio(nodes)
    tasks, index = _dnn_tasks(path, nodes, scale, ratio)
    edges = _dnn_edges(path, document["edges"], tasks, index, scale if comm else 0)
    source = {
        "importer": "dnn_partitioning",
        "file": path.name,
        "sha256": file_sha256(path),
        "options": {"cpus": cpus, "gpus": gpus, "scale": scale, "comm": comm},
        "citation": "msr-fiddle/dnn-partitioning (MIT), Tarnawski et al., NeurIPS 2020",
        "notes": [
            f"times and costs x {scale}, rounded to integers (the files state no unit)",
            (
                f"uniform acceleration: CPU time = {ratio} x GPU time (kept exact after rounding)"
                if ratio is not None
                else "CPU/accelerator ratio not one integer: times rounded separately"
            ),
            "fpgaLatency read as the GPU time; size, maxSizePerFPGA and colorClass dropped",
        ],
    }
    try:
        return Instance.from_data(
            {"cpus": cpus, "gpus": gpus, "tasks": tasks, "edges": edges}, name=path.stem, time_unit=None, source=source
        )
    except InvalidInstanceError as error:
        raise error.in_file(str(path)) from None


def _read_dnn_document(path: Path) -> dict[str, Any]:
    """The parsed JSON of a dnn_partitioning graph (an object with ``nodes`` and ``edges``)."""
    import json

    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise FormatError(f"{path}: cannot read as JSON ({error})") from None
    if not isinstance(document, dict) or "nodes" not in document or "edges" not in document:
        raise FormatError(f"{path}: not a dnn_partitioning graph (no nodes/edges)")
    return document


def _integer_ratio(nodes: list[dict[str, Any]]) -> int | None:
    """The file's CPU/accelerator time ratio when all accelerated nodes share one integer ratio (else None)."""
    ratios = set()
    for n in nodes:
        cpu_time, gpu_time = n.get("cpuLatency"), n.get("fpgaLatency")
        if (
            n.get("supportedOnFpga", True)
            and isinstance(cpu_time, (int, float))
            and isinstance(gpu_time, (int, float))
            and gpu_time > 0
        ):
            ratios.add(round(cpu_time / gpu_time, 6))
    ratio = ratios.pop() if len(ratios) == 1 else None
    return int(ratio) if ratio is not None and float(ratio).is_integer() else None


def _dnn_tasks(
    path: Path, nodes: list[dict[str, Any]], scale: int, ratio: int | None
) -> tuple[list[dict[str, Any]], dict[Any, int]]:
    """The task records of the nodes, and node id -> position."""
    tasks: list[dict[str, Any]] = []
    index: dict[Any, int] = {}
    for position, node in enumerate(nodes):
        try:
            gpu = round(node["fpgaLatency"] * scale) if node.get("supportedOnFpga", True) else None
            cpu = ratio * gpu if ratio is not None and gpu is not None else round(node["cpuLatency"] * scale)
            index[node["id"]] = position
            tasks.append({"name": f"{node['id']}:{node['name']}", "cpu": cpu, "gpu": gpu})
        except (KeyError, TypeError) as error:
            raise FormatError(f"{path}: nodes[{position}]: {error!r} missing or not a number") from None
    return tasks, index


def _dnn_edges(
    path: Path, raw_edges: Any, tasks: list[dict[str, Any]], index: dict[Any, int], cost_scale: int
) -> list[list[Any]]:
    """The edges by task name, with their cost x ``cost_scale`` when not 0 (0: communication ignored)."""
    edges = []
    for position, edge in enumerate(raw_edges):
        try:
            u, v = tasks[index[edge["sourceId"]]]["name"], tasks[index[edge["destId"]]]["name"]
            cost = round(edge.get("cost", 0) * cost_scale) if cost_scale else 0
        except (KeyError, TypeError) as error:
            raise FormatError(f"{path}: edges[{position}]: {error!r} missing or unknown") from None
        edges.append([u, v, cost] if cost else [u, v])
    return edges
