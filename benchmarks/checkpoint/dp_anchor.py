"""The persistent DP in plain C (dp_anchor.c) against `persistent_dp` (numpy) on one cell of dp_time.py's table.

dp_anchor.c restates the recurrence of ``formulations/dp.py`` in C (written
here from the Python code; it is not rotor's C DP, which cannot be fetched on
this machine). It is compiled at run time with ``cc -O2`` into a temporary
directory and called through ctypes; nothing is installed. Both solve the
identical discrete problem: the slot size and the sizes in slots come from the
code path `persistent_dp` uses (``persistent.slots.slot_size`` and ``slot_sizes``,
rounding up), the chain is dp_time.py's.

Prints one line per implementation (wall seconds, user and system CPU seconds
of this process over that phase, the objective: P(0, L) at the full budget,
None when no persistent sequence fits), then the cross-check; exits 1 when the
two objectives differ. ``--numpy-first`` runs numpy before C (alternate it from
cell to cell); ``--no-numpy --expect N`` runs C alone and checks it against an
objective measured earlier (for cells too slow to rerun in numpy);
``--values-only`` fills the C table without the choice table (numpy always
fills both); ``--cflags`` replaces ``-O2``. Exits 0 with a message when no C compiler is found.

    .venv/bin/python benchmarks/checkpoint/dp_anchor.py --L 200 --S 250
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hpcsched.checkpoint import Instance
from hpcsched.checkpoint.formulations import persistent_dp
from hpcsched.checkpoint.persistent.slots import SlotSizes, slot_size, slot_sizes
from hpcsched.core.deadline import Deadline

SOURCE = Path(__file__).resolve().with_name("dp_anchor.c")
#: dp.py's infinity: an entry at or above it means "no sequence".
INFINITY = np.iinfo(np.int64).max // 4
_INT64_P = ctypes.POINTER(ctypes.c_int64)
_INT16_P = ctypes.POINTER(ctypes.c_int16)


def compile_anchor(directory: str | Path, flags: tuple[str, ...] = ("-O2",)) -> ctypes.CDLL | None:
    """Compile dp_anchor.c with ``cc -O2`` (or ``flags``) into ``directory`` and load it; None without ``cc``."""
    compiler = shutil.which("cc")
    if compiler is None:
        return None
    library = Path(directory) / "dp_anchor.so"
    subprocess.run([compiler, *flags, "-shared", "-fPIC", str(SOURCE), "-o", str(library)], check=True)
    loaded = ctypes.CDLL(str(library))
    loaded.dp_anchor_fill.restype = ctypes.c_int64
    loaded.dp_anchor_fill.argtypes = [ctypes.c_long, ctypes.c_long, *[_INT64_P] * 7, _INT64_P, _INT16_P]
    return loaded


@dataclass(frozen=True)
class AnchorTables:
    """What the C DP filled: P(s, t)[m] per stage pair (dp.py's row order), the choices (None: values only).

    ``value`` is P(0, L) at the full budget as the C function returned it (``INFINITY``: no sequence).
    """

    budget: int
    table: np.ndarray
    choice: np.ndarray | None
    value: int

    @property
    def objective(self) -> int | None:
        """P(0, L) at the full budget, None when no persistent sequence fits (as `PersistentPlan.time`)."""
        return None if self.value >= INFINITY else self.value


def _array(values) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.int64))


def fill_with_anchor(library: ctypes.CDLL, instance: Instance, sizes: SlotSizes, choices: bool = True) -> AnchorTables:
    """Fill the C table of ``instance`` in ``sizes`` (slots); the choice table too when ``choices``."""
    length, budget = instance.length, sizes.budget
    if budget < 0:
        return AnchorTables(budget, np.empty((0, 0), dtype=np.int64), None, int(INFINITY))
    if length >= 32767:
        raise ValueError("the anchor stores choices as int16: L must be below 32767")
    rows = (length + 1) * (length + 2) // 2
    table = np.empty((rows, budget + 1), dtype=np.int64)
    choice = np.empty((rows, budget + 1), dtype=np.int16) if choices else None
    fw = _array(instance.fw)
    arrays = [_array(v) for v in (sizes.x, sizes.xbar, sizes.ftmp, sizes.btmp)]
    arrays += [fw, _array(instance.bw), _array(np.concatenate([[0], np.cumsum(fw)]))]
    value = library.dp_anchor_fill(
        length,
        budget,
        *[a.ctypes.data_as(_INT64_P) for a in arrays],
        table.ctypes.data_as(_INT64_P),
        choice.ctypes.data_as(_INT16_P) if choice is not None else None,
    )
    return AnchorTables(budget, table, choice, int(value))


def anchor_sizes(instance: Instance, slots: int) -> SlotSizes:
    """The sizes in slots `persistent_dp` uses by default (its slot size, rounding up)."""
    slot, exact = slot_size(instance, slots)
    return slot_sizes(instance, slot, exact, "up")


def _timed(label: str, run: Callable[[], int | None], length: int, slots: int) -> int | None:
    """Run one implementation, print its line (wall, user and system seconds of this process over it)."""
    before, started = os.times(), time.perf_counter()
    objective = run()
    seconds, after = time.perf_counter() - started, os.times()
    print(
        f"impl={label} L={length} S={slots} seconds={seconds:.2f} user={after.user - before.user:.2f} "
        f"sys={after.system - before.system:.2f} objective={objective}",
        flush=True,
    )
    return objective


def main() -> int:
    from dp_time import LENGTHS, chain  # the benchmark's chains (imports run.py: only when run as a script)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--L", type=int, required=True, choices=LENGTHS)
    parser.add_argument("--S", type=int, required=True)
    parser.add_argument("--numpy-first", action="store_true", help="run persistent_dp before the C DP")
    parser.add_argument("--no-numpy", action="store_true", help="C only; needs --expect")
    parser.add_argument("--expect", type=int, help="objective measured earlier, checked when --no-numpy")
    parser.add_argument("--values-only", action="store_true", help="C without the choice table")
    parser.add_argument("--cflags", default="-O2", help="compiler flags (default -O2)")
    args = parser.parse_args()
    if args.no_numpy and args.expect is None:
        parser.error("--no-numpy needs --expect (the objective to check the C DP against)")
    instance = chain(args.L)
    with tempfile.TemporaryDirectory() as directory:
        library = compile_anchor(directory, tuple(args.cflags.split()))
        if library is None:
            print("no C compiler (cc) on PATH: the anchor is skipped", flush=True)
            return 0
        label = "c-values" if args.values_only else "c"

        def run_c() -> int | None:
            return fill_with_anchor(library, instance, anchor_sizes(instance, args.S), not args.values_only).objective

        def run_numpy() -> int | None:
            return persistent_dp(instance, args.S, Deadline(None), max_cells=None).time

        order = [("numpy", run_numpy), (label, run_c)] if args.numpy_first else [(label, run_c), ("numpy", run_numpy)]
        found = {
            name: _timed(name, run, args.L, args.S) for name, run in order if not (args.no_numpy and name == "numpy")
        }
    reference = ("recorded", args.expect) if args.no_numpy else ("numpy", found["numpy"])
    same = found[label] == reference[1]
    print(f"check: {label} {found[label]} {'==' if same else '!='} {reference[0]} {reference[1]}", flush=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
