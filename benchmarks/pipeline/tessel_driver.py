"""Run Tessel's schedule search once and write what it found as JSON (run by tessel_peer.py).

Runs under the Python that has Tessel's dependencies (z3-solver,
more-itertools, numpy) and imports Tessel from the user's checkout; it does
not import hpcsched. Nothing of Tessel is copied here: it calls Tessel's
placement builders (``examples/simulator/cases_tessel.py``) and its
``Composer``, then reads the plan through ``SchedPlan``'s accessors.

    python tessel_driver.py TESSEL_DIR CASE DEVICES MEMORY (N | fast) OUT.json

Tessel prints its progress on stdout; the caller discards it. OUT.json holds:
``micro`` (the block graph of one micro-batch: per gid its devices, span,
memory, btype; edges as gid pairs), ``search_wall_s`` and ``search_cpu_s``
(the search alone, imports excluded), and when a schedule was found
``repetend`` (start and end steps, Tessel's shift P between repetitions and
its blocks), ``blocks`` (the whole warm-up + repetend + cool-down plan, one
row per (gid, mid)), ``peak_memory`` (Tessel's, per device) and
``tessel_validate`` (Tessel's own check of the plan).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path


def _load(tessel: Path):
    sys.path.insert(0, str(tessel))
    from tessel.schedule.composer import Composer

    spec = importlib.util.spec_from_file_location("cases_tessel", tessel / "examples" / "simulator" / "cases_tessel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Composer, module.Placement


def _rows(plan) -> list[dict]:
    return sorted(
        (
            {"gid": b.gid, "mid": b.mid, "devices": list(plan.device(b)), "step": plan.step(b), "span": b.span}
            for b in plan.all_blocks()
        ),
        key=lambda row: (row["step"], row["devices"][0]),
    )


def _shift(schedule, micro_batches: int) -> int:
    """The steps Tessel's ``unroll`` puts between two repetitions of the repetend."""
    unrolled = schedule.unroll(micro_batches + 1)
    step = {(b.gid, b.mid): unrolled.step(b) for b in unrolled.all_blocks()}
    first, last = schedule.repetend
    shifts = {
        step[(b.gid, b.mid + 1)] - schedule.step(b) for b in schedule.all_blocks() if first <= schedule.step(b) < last
    }
    if len(shifts) != 1:
        raise RuntimeError(f"Tessel's unroll shifts the repetend's blocks by different amounts: {sorted(shifts)}")
    return shifts.pop()


def main(tessel: str, case: str, devices: str, memory: str, micro_batches: str, out: str) -> None:
    Composer, Placement = _load(Path(tessel))
    micro = getattr(Placement, case)(int(devices), train=True)
    chain = micro.chain_blocks()
    for gid, block in enumerate(chain):  # Tessel's own numbering (compose_n / compose_fast do the same)
        block.gid = gid
    record: dict = {
        "micro": {
            "blocks": [
                {"devices": list(micro.device(b)), "span": b.span, "memory": b.memory, "btype": b.btype} for b in chain
            ],
            "edges": sorted([b.gid, a.gid] for b in chain for a in b.after),
        }
    }
    wall, cpu = time.perf_counter(), time.process_time()
    if micro_batches == "fast":
        schedule = Composer.compose_fast(micro, int(memory))
    else:
        schedule = Composer.compose_n(micro, int(memory), int(micro_batches))
    record["search_wall_s"] = time.perf_counter() - wall
    record["search_cpu_s"] = time.process_time() - cpu
    if schedule is not None:
        count = max(b.mid for b in schedule.all_blocks()) + 1
        first, last = schedule.repetend
        record["micro_batches"] = count
        record["repetend"] = {"start": first, "end": last, "shift": _shift(schedule, count)}
        record["blocks"] = _rows(schedule)
        record["peak_memory"] = [schedule.peak_memory(d) for d in range(int(devices))]
        record["tessel_validate"] = bool(schedule.validate())
    Path(out).write_text(json.dumps(record))


if __name__ == "__main__":
    main(*sys.argv[1:7])
