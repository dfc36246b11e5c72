"""Write the pipeline instances of Tessel's placements (run from the repository root).

    .venv/bin/python instances/pipeline/make_tessel.py

Tessel (MIT licence, github zhiqi-0/Tessel) describes its example placements in
``examples/simulator/cases_tessel.py``. This script restates them from that
description (no Tessel code is copied or needed): one micro-batch is a chain
of blocks (two chains for ``xshape``, two branches joined by a loss block for
``kshape``); a forward block ``F@d`` runs on device d for 1 step and
allocates 1 unit, a backward block ``B@d`` runs 3 steps and frees 1 unit
(2 steps in ``finetune``, 1 in ``alphafold``); an ``S`` block is sharded over
all devices at once (1 step, memory 0; ``kshape``'s loss blocks hold +1/-1 on
every device). The blocks are listed in Tessel's own order (its ``gid``:
by step of the micro-batch plan, ties by first device), so a Tessel
schedule's (gid, micro-batch, step) maps to ``start[micro-batch][gid]``
without renaming (benchmarks/pipeline/tessel_peer.py does that).

Written files: ``tessel/<case>-d<D>-m<M>.json`` (objective period, one
micro-batch per period: Tessel's repetend) and
``tessel/<case>-d<D>-m<M>-n<N>.json`` (objective makespan of N micro-batches,
for Tessel's whole warm-up + repetend + cool-down plan). Each file's source
names the case and Tessel.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent / "tessel"

#: Provenance written into every file.
SOURCE = "Tessel (MIT licence), github zhiqi-0/Tessel, examples/simulator/cases_tessel.py"

#: The cases (xshape and kshape need an even D, nnshape_eager D = 4).
CASES = ("vshape", "xshape", "mshape", "nnshape", "nnshape_eager", "mllm", "kshape", "finetune", "alphafold")

#: (case, devices, memory limit, makespan micro-batches or None): the shipped instances. D = 4 with the limits
#: of Tessel's evaluation scripts (evaluation/search_tessel.sh) and its README; vshape, mshape and xshape
#: also at D = 2, 6, 8 for the search-time comparison.
SHIPPED: tuple[tuple[str, int, int, int | None], ...] = (
    ("vshape", 4, 4, 4),
    ("mshape", 4, 6, 6),
    ("xshape", 4, 4, 3),
    ("nnshape", 4, 6, 6),
    ("nnshape_eager", 4, 6, 6),
    ("kshape", 4, 6, 3),
    ("mllm", 4, 8, 6),
    ("finetune", 4, 4, 4),
    ("alphafold", 4, 4, 4),
    ("vshape", 2, 2, None),
    ("vshape", 6, 6, None),
    ("vshape", 8, 8, None),
    ("mshape", 2, 4, None),
    ("mshape", 6, 12, None),
    ("mshape", 8, 16, None),
    ("xshape", 2, 8, None),
    ("xshape", 6, 20, None),
    ("xshape", 8, 24, None),
)

Row = tuple[str, tuple[int, ...], int, int, str]  # name, devices, duration, memory, kind


def _chain(rows: list[Row]) -> tuple[list[tuple[Row, int]], list[tuple[str, str]]]:
    """Rows laid one after the other from step 0 (as Tessel lays a chain), with the chain's edges."""
    laid, step = [], 0
    for row in rows:
        laid.append((row, step))
        step += row[2]
    return laid, [(a[0], b[0]) for a, b in itertools.pairwise(rows)]


def _forward(devices: range, prefix: str = "", memory: int = 1) -> list[Row]:
    return [(f"{prefix}F@{d}", (d,), 1, memory, "F") for d in devices]


def _backward(devices: range, prefix: str = "", span: int = 3) -> list[Row]:
    return [(f"{prefix}B@{d}", (d,), span, -1, "B") for d in devices]


def _sharded(name: str, devices: int, kind: str, memory: int = 0) -> Row:
    return (name, tuple(range(devices)), 1, memory, kind)


def _rows(case: str, n: int) -> tuple[list[tuple[Row, int]], list[tuple[str, str]]]:
    """Blocks (each with its step in the micro-batch plan) and edges of ``case`` on n devices."""
    up, down, half = range(n), range(n - 1, -1, -1), n // 2
    if case == "vshape":
        return _chain(_forward(up) + _backward(down))
    if case == "mshape":
        return _chain([_sharded("SF", n, "F"), *_forward(up), *_backward(down), _sharded("SB", n, "B")])
    if case == "mllm":
        middle = [_sharded("SF2", n, "F"), _sharded("SB2", n, "B")]
        return _chain([_sharded("SF1", n, "F"), *_forward(up), *middle, *_backward(down), _sharded("SB1", n, "B")])
    if case == "nnshape":
        forward = [_sharded("SF1", n, "F"), *_forward(range(half)), _sharded("SF2", n, "F"), *_forward(range(half, n))]
        # Tessel puts the second sharded backward block after the first D // 2 backward blocks
        late, early = range(n - 1, n - 1 - half, -1), range(n - 1 - half, -1, -1)
        backward = [*_backward(late), _sharded("SB2", n, "B"), *_backward(early)]
        return _chain([*forward, *backward, _sharded("SB1", n, "B")])
    if case == "nnshape_eager":
        if n != 4:
            raise ValueError("nnshape_eager is defined for 4 devices only")
        forward = [_sharded("SF1", n, "F"), *_forward(range(1)), _sharded("SF2", n, "F"), *_forward(range(1, n))]
        backward = [*_backward(range(n - 1, 0, -1)), _sharded("SB2", n, "B"), *_backward(range(0, -1, -1))]
        return _chain([*forward, *backward, _sharded("SB1", n, "B")])
    if case == "finetune":
        return _chain([_sharded("SF", n, "F"), *_forward(up), *_backward(down, span=2)])
    if case == "alphafold":
        passes = [*_forward(up, "1", 0), *_forward(up, "2", 0), *_forward(up, "3", 1)]
        return _chain(passes + _backward(down, span=1))
    if case == "xshape":
        if n % 2:
            raise ValueError("xshape needs an even number of devices (both chains meet on the middle device)")
        v_laid, v_edges = _chain(_forward(up, "V") + _backward(down, "V"))
        a_laid, a_edges = _chain(_forward(down, "A") + _backward(up, "A"))
        return v_laid + a_laid, v_edges + a_edges
    if case == "kshape":
        return _kshape(n)
    raise ValueError(f"unknown Tessel case '{case}' (known: {', '.join(CASES)})")


def _kshape(n: int) -> tuple[list[tuple[Row, int]], list[tuple[str, str]]]:
    """Two pipelines on the two halves of the devices joined by a loss block on all devices (+1, then -1)."""
    if n % 2:
        raise ValueError("kshape needs an even number of devices")
    half = n // 2
    loss = [_sharded("LF", n, "F", 1), _sharded("LB", n, "B", -1)]
    laid: list[tuple[Row, int]] = []
    edges: list[tuple[str, str]] = []
    for devices in (range(half), range(half, n)):
        branch = [*_forward(devices), *loss, *_backward(devices[::-1])]
        branch_laid, branch_edges = _chain(branch)
        laid += [item for item in branch_laid if item[0] not in [row for row, _ in laid]]
        edges += [edge for edge in branch_edges if edge not in edges]
    return laid, edges


def tessel_data(case: str, devices: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Blocks and edges of one micro-batch of ``case`` on ``devices`` devices, in Tessel's block order.

    Tessel numbers the blocks by their step in the micro-batch plan, ties by
    their first device; the index of a block here is that number.
    """
    laid, edges = _rows(case, devices)
    laid.sort(key=lambda item: (item[1], item[0][1][0]))
    blocks = []
    for (name, on, duration, memory, kind), _ in laid:
        record: dict[str, Any] = {"name": name, "device": on[0] if len(on) == 1 else list(on)}
        record.update(duration=duration, memory=memory, kind=kind)
        blocks.append(record)
    if case == "vshape":  # one stage per device: the stage-structured 1F1B class
        for record in blocks:
            record["stage"] = record["device"]
    return blocks, [{"from": a, "to": b, "delay": 0} for a, b in edges]


def tessel_instance(case: str, devices: int, memory: int | None, micro_batches: int | None = None) -> Any:
    """The pipeline Instance of ``case``: objective period (R = 1) if ``micro_batches`` is None, else makespan."""
    from hpcsched.pipeline import Instance

    blocks, edges = tessel_data(case, devices)
    data: dict[str, Any] = {"devices": devices, "memory_limit": None if memory is None else [memory] * devices}
    name = f"{case}-d{devices}" + ("" if memory is None else f"-m{memory}")
    if micro_batches is None:
        data.update(objective="period", period_micro_batches=1)
    else:
        data.update(objective="makespan", micro_batches=micro_batches)
        name += f"-n{micro_batches}"
    data.update(blocks=blocks, edges=edges)
    source = {
        "generator": "tessel",
        "from": SOURCE,
        "options": {"case": case, "devices": devices, "memory": memory, "micro_batches": micro_batches},
        "notes": [
            "times in Tessel's abstract steps",
            "block index = Tessel's gid (step in the micro-batch plan, ties by device)",
            "Tessel frees memory at a block's start, this file at its end: the per-device peaks are the same",
        ],
    }
    return Instance.from_data(data, name=name, source=source)


def instances() -> Iterator[Any]:
    """The shipped instances (`SHIPPED`): a period instance for each, a makespan one where N is given."""
    for case, devices, memory, micro_batches in SHIPPED:
        yield tessel_instance(case, devices, memory)
        if micro_batches is not None:
            yield tessel_instance(case, devices, memory, micro_batches)


def main() -> None:
    from hpcsched.core.io import write_instance

    FOLDER.mkdir(parents=True, exist_ok=True)
    for instance in instances():
        path = FOLDER / f"{instance.name}.json"
        write_instance(instance, path)
        print(path.relative_to(FOLDER.parent), flush=True)


if __name__ == "__main__":
    main()
